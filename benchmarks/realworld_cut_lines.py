"""Would a reading of messages cut at the end of a line have named never-seen logs? (run by hand)

    python benchmarks/realworld_cut_lines.py [--min 20]

A time-respecting test of one general mechanism, on the first-sight record (benchmarks/realworld_firstsight.json):
for every held-out log of batch 180 or later that the code of its day met as ``unknown``, that day's signatures
(``git archive`` of the commit that added the log) give their patterns' leading literals (``--min`` characters or
more, hint rows left out), and a log line that ends with a cut prefix of one (at least ``--min`` characters, with a
letter left in the part cut off) names that signature's cause.  Printed: how many of those logs it names right,
names where the thread judged no listed cause (a loss), names wrongly (wrong anyway), and leaves unknown.

Session 35 (195 logs, --min 20): 2 right, 0 lost, 0 wrong, 193 unknown (benchmarks/eval_diagnose_issue11_session35.txt).
Needs the repository's history (a full clone), ``git`` and Python 3.11 or later (``re._parser``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld_firstsight  # noqa: E402
import realworld_measure  # noqa: E402

CORPUS = realworld_measure.CORPUS
FIRST_BATCH = 180

#: Runs in a child Python with the old commit's src/ on PYTHONPATH (realworld_firstsight.run_at): argv = files.json
#: out.json min.
_CHILD = r"""
import json, sys
try:
    from torchbuild.decisions.diagnose.signatures import load_signatures
except ImportError:
    from torchbuild.decisions.diagnose import load_signatures
from torchbuild.decisions.diagnose.classify import normalize
import re._parser as sp
from re._constants import LITERAL
least = int(sys.argv[3])

def lead(pattern):
    try:
        items = list(sp.parse(pattern))
    except Exception:
        return ""
    out = []
    for op, av in items:
        if op != LITERAL:
            break
        out.append(chr(av))
    return "".join(out)

heads = [(lead(p), s.cause) for s in load_signatures() if not getattr(s, "hint", False) for p in s.patterns]
heads = [(h, c) for h, c in heads if len(h) > least]
out = {}
for f in json.loads(open(sys.argv[1]).read()):
    hit = None
    for line in open(f, errors="replace").read().splitlines():
        body = normalize(line).rstrip().rstrip("'\"`")
        if len(body) < least:
            continue
        for head, cause in heads:
            if head in body:
                continue
            cuts = range(len(head) - 1, least - 1, -1)
            if any(body.endswith(head[:k]) and any(c.isalpha() for c in head[k:]) for k in cuts):
                hit = cause
                break
        if hit:
            break
    out[f] = hit
open(sys.argv[2], "w").write(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min", type=int, default=20, help="shortest leading literal and cut prefix, in characters")
    args = ap.parse_args(argv)
    index = {r["file"]: r for r in realworld_measure.rows()}
    by_commit: dict[str, list[str]] = defaultdict(list)
    for f, (cause, _conf, _sig, commit) in realworld_firstsight.load().items():
        r = index.get(f)
        if r and r["split"] == "holdout" and r.get("batch", 0) >= FIRST_BATCH and cause == "unknown":
            by_commit[commit].append(f)
    counts: Counter[str] = Counter()
    for commit, files in sorted(by_commit.items()):
        named = realworld_firstsight.run_at(commit, _CHILD, [str(CORPUS / f) for f in files], str(args.min))
        for f in files:
            got, want = named[str(CORPUS / f)], index[f]["cause"]
            kind = "unknown" if got is None else "right" if got == want else "lost" if want == "unknown" else "wrong"
            counts[kind] += 1
    n = sum(counts.values())
    print(f"{n} held-out logs of batch >= {FIRST_BATCH} first met as unknown; cut-line reading (--min {args.min}):")
    for k in ("right", "lost", "wrong", "unknown"):
        print(f"  {k:8s} {counts[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
