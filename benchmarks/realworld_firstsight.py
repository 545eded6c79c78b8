"""Record how `torchbuild diagnose` named each real log the first time it met it (run by hand).

    python benchmarks/realworld_firstsight.py --blind-from N

Every log of tests/diagnose/realworld was committed, with its batch, before any signature was written
for it (benchmarks/realworld_protocol.md).  The code of the commit that added a log (``git log
--diff-filter=A``) is therefore the code that had never read it.  This script extracts that commit's
``src/`` (``git archive``), diagnoses the logs it added with the calibration off (an empty precision
table, as benchmarks/realworld_calibrate.py does with today's code) in a child Python, and writes
``{file: [cause_id, confidence, signature, commit]}`` to benchmarks/realworld_firstsight.json.

Those first-sight answers are out of sample for every signature that existed then: a signature's
record on them says how it fares on a log nobody had read, which its record on today's corpus (the
logs it was written from, and fixed on) overstates.  realworld_calibrate.py counts both.

* Blind held-out logs (held-out, batch >= N) are left out: nothing here diagnoses them before their
  measurement.  Run the script again with the next batch number after the measurement.
* Logs of batch 0 (the 84 logs of the first corpus, from which the first signatures were written)
  are left out: they were not first seen by the code that added them.
* Results already in the file are kept (the history does not change); only logs missing from it
  are diagnosed, one child process per adding commit.

Needs the repository's history (a full clone) and ``git``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld_measure  # noqa: E402

ROOT = realworld_measure.ROOT
OUT = Path(__file__).resolve().parent / "realworld_firstsight.json"
#: Batches before this one were not committed before their signatures were written.
FIRST_BATCH = 1

#: Runs in the child, with PYTHONPATH at the old commit's src/: diagnose the listed corpus logs with
#: the calibration off (old code without a calibration table is left as it is).
_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
try:
    import torchbuild.decisions.diagnose.ranking as ranking
    if hasattr(ranking, "load_precision"):
        ranking.load_precision = lambda: {}
except ImportError:
    pass
import realworld_measure as m
files = json.loads(open(sys.argv[1], encoding="utf-8").read())
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(m.diagnose_files(files)))
"""


def adding_commits() -> dict[str, str]:
    """``{file: commit}``: the commit (full hash) that added each corpus log, from ``git log --diff-filter=A``.

    :raises subprocess.CalledProcessError: when git fails (not a git checkout).
    """
    text = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=C %H", "--name-only", "--", "tests/diagnose/realworld/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    out: dict[str, str] = {}
    commit = ""
    prefix = "tests/diagnose/realworld/"
    for line in text.splitlines():
        if line.startswith("C "):
            commit = line[2:].strip()
        elif line.startswith(prefix) and line.endswith(".log"):
            out.setdefault(line[len(prefix) :], commit)
    return out


def run_at(commit: str, code: str, files: list[str], *args: str) -> Any:
    """Run ``code`` in a child Python whose ``PYTHONPATH`` is the ``src/`` of ``commit`` (extracted with
    ``git archive`` into a temporary folder, its working directory), as ``python -c code LISTING OUT *args``:
    LISTING holds ``files`` as JSON, and the JSON the child writes to OUT is returned.

    :raises subprocess.CalledProcessError: when git or the child fails.
    """
    tar = subprocess.run(["git", "archive", "--format=tar", commit, "src"], cwd=ROOT, capture_output=True, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as tf:
            tf.extractall(tmp, filter="data")
        listing, out = Path(tmp) / "files.json", Path(tmp) / "out.json"
        listing.write_text(json.dumps(files), encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(Path(tmp) / "src"))
        subprocess.run([sys.executable, "-c", code, str(listing), str(out), *args], env=env, cwd=tmp, check=True)
        return json.loads(out.read_text(encoding="utf-8"))


def diagnose_at(commit: str, files: list[str]) -> dict[str, list]:
    """``{file: [cause_id, confidence, signature, line]}``: the first cause that the code of ``commit``
    names for each corpus log in ``files``, with the calibration off (:func:`run_at`).

    :raises subprocess.CalledProcessError: when git or the child fails.
    """
    return dict(run_at(commit, _CHILD, files, str(Path(__file__).resolve().parent)))


def load(path: Path = OUT) -> dict[str, list]:
    """The recorded first-sight answers, ``{file: [cause_id, confidence, signature, commit]}``
    (``{}`` when the file does not exist)."""
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["logs"])


def _dumps(doc: dict) -> str:
    """``doc`` as JSON with one log per line (a diff of the record shows the logs added)."""
    logs = ",\n".join(f"{json.dumps(f)}: {json.dumps(v)}" for f, v in doc["logs"].items())
    return f'{{"meta": {json.dumps(doc["meta"])},\n"logs": {{\n{logs}\n}}}}\n'


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--blind-from", type=int, required=True, help="held-out logs of this batch and later are blind: left out"
    )
    ap.add_argument("--out", default=str(OUT), help="the record to complete (default: %(default)s)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    index = realworld_measure.rows()
    wanted = {
        r["file"]
        for r in index
        if (r.get("batch") or 0) >= FIRST_BATCH and not realworld_measure.is_blind(r, args.blind_from)
    }
    have = {f: v for f, v in load(out).items() if f in wanted}
    commits = adding_commits()
    todo: dict[str, list[str]] = defaultdict(list)
    for f in sorted(wanted - set(have)):
        todo[commits[f]].append(f)
    for i, (commit, files) in enumerate(sorted(todo.items()), 1):
        print(f"[{i}/{len(todo)}] code of {commit[:12]}: {len(files)} logs", flush=True)
        for f, (cause, conf, sig, _line) in diagnose_at(commit, files).items():
            have[f] = [cause, conf, sig, commit[:12]]
    last = max(r.get("batch") or 0 for r in index)
    doc = {"meta": {"blind_from": args.blind_from, "last_batch": last}, "logs": dict(sorted(have.items()))}
    out.write_text(_dumps(doc), encoding="utf-8")
    print(f"{out}: {len(have)} logs ({sum(len(v) for v in todo.values())} diagnosed now)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
