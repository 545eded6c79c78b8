"""Whole-corpus checks of `torchbuild diagnose` that keep blind held-out logs blind (run by hand).

    python benchmarks/realworld_measure.py snapshot OUT.json --blind-from N
    python benchmarks/realworld_measure.py compare BEFORE.json AFTER.json
    python benchmarks/realworld_measure.py measure --blind-from N [--start SRC] [--out OUT.json]
    python benchmarks/realworld_measure.py pin --blind-from N

The corpus is tests/diagnose/realworld (index.toml rows: file, cause, split, batch).  A held-out log of
batch N or later is *blind* until the one measurement of its session (benchmarks/realworld_protocol.md):
nothing here prints its name, label or result.

* ``snapshot`` diagnoses every log that is not blind and writes ``{file: [cause_id, confidence,
  signature, line]}`` to OUT.json (blind logs are left out of the file too); it prints the counts of
  those logs only.  Take one before and one after a change.
* ``compare`` prints every log whose first cause or confidence differs between two snapshots, with
  its expected cause: the effect of a change on the logs that may be read.
* ``measure`` is the measurement: it diagnoses the blind held-out logs (held-out, batch >= N) with
  the code on this checkout's src/ and, with ``--start``, with the code of another tree's src/ (a
  ``git worktree`` of the session's first commit), each in its own Python process, and prints the
  counts per batch and together: right first cause, and confidently wrong (another named cause at
  confidence >= 0.7).  ``--out`` writes the per-log results of this checkout's code to a file, to
  be read only after the counts were taken.
* ``pin`` writes tests/diagnose/realworld_right.txt: the logs that are not blind and whose first cause is
  their label now, one file name a line.  tests/diagnose/test_realworld.py then fails on any of them
  that a later change gets wrong (the floor test alone lets one log's loss hide behind another's gain).
  Run it after a change that makes logs right, or, with the reason in the commit, after one that
  knowingly gives a log up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "diagnose" / "realworld"
#: The issue's bar for "confidently wrong".
SURE = 0.7


def rows() -> list[dict]:
    """The corpus index: one dict per log (file, url, cause, why, split, batch)."""
    return tomllib.loads((CORPUS / "index.toml").read_text(encoding="utf-8"))["log"]


def is_blind(row: dict, blind_from: int) -> bool:
    """Whether ``row`` is a held-out log of batch ``blind_from`` or later (unread until measured)."""
    return row["split"] == "holdout" and (row.get("batch") or 0) >= blind_from


def diagnose_files(files: list[str]) -> dict[str, list]:
    """``{file: [cause_id, confidence, signature, line]}`` of the first cause `torchbuild diagnose --json`
    gives each corpus log in ``files``, with the torchbuild this Python imports."""
    import contextlib
    import io

    from torchbuild.cli import main

    out: dict[str, list] = {}
    for f in files:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["diagnose", str(CORPUS / f), "--json"])
        if rc != 0:
            raise RuntimeError(f"diagnose exited {rc} on {f}")
        c = json.loads(buf.getvalue())["causes"][0]
        out[f] = [c["cause_id"], c["confidence"], c.get("signature"), c.get("line")]
    return out


def score(results: dict[str, list], expected: dict[str, str]) -> tuple[int, int]:
    """(right first cause, confidently wrong) over ``results``."""
    right = sum(results[f][0] == expected[f] for f in results)
    wrong = sum(results[f][0] not in (expected[f], "unknown") and results[f][1] >= SURE for f in results)
    return right, wrong


def _diagnose_seen(blind_from: int) -> tuple[list[dict], list[str], dict[str, list]]:
    """The index, the files of the logs that are not blind (held-out of batch >= ``blind_from`` left out), and
    :func:`diagnose_files` of those files: what ``snapshot`` and ``pin`` both start from."""
    index = rows()
    seen = [r["file"] for r in index if not is_blind(r, blind_from)]
    return index, seen, diagnose_files(seen)


def _snapshot(args: argparse.Namespace) -> int:
    index, seen, results = _diagnose_seen(args.blind_from)
    Path(args.out).write_text(json.dumps(results), encoding="utf-8")
    right, wrong = score(results, {r["file"]: r["cause"] for r in index})
    print(
        f"{len(seen)} logs that are not blind (held-out of batch >= {args.blind_from} left out): "
        f"{right} right first cause, {wrong} confidently wrong"
    )
    return 0


def _compare(args: argparse.Namespace) -> int:
    expected = {r["file"]: r["cause"] for r in rows()}
    a = json.loads(Path(args.before).read_text(encoding="utf-8"))
    b = json.loads(Path(args.after).read_text(encoding="utf-8"))
    changed = 0
    for f in sorted(set(a) & set(b)):
        if a[f][:2] == b[f][:2]:
            continue
        changed += 1
        was, now = a[f][0] == expected[f], b[f][0] == expected[f]
        how = "better" if now and not was else "worse" if was and not now else "changed"
        print(f"{how:7s} {f[:60]:60s} expected {expected[f]:26s} {a[f][0]}/{a[f][1]} -> {b[f][0]}/{b[f][1]}")
    print(f"{changed} of {len(set(a) & set(b))} logs changed")
    return 0


#: The pinned logs (``pin``): right at the last pin, kept right by tests/diagnose/test_realworld.py.
PINS = ROOT / "tests" / "diagnose" / "realworld_right.txt"


def _pin(args: argparse.Namespace) -> int:
    index, seen, results = _diagnose_seen(args.blind_from)
    expected = {r["file"]: r["cause"] for r in index}
    right = sorted(f for f in seen if results[f][0] == expected[f])
    head = (
        "# Corpus logs whose first cause was their label at the last `python benchmarks/realworld_measure.py pin`\n"
        "# (blind held-out logs left out): tests/diagnose/test_realworld.py keeps each of them right.\n"
    )
    PINS.write_text(head + "".join(f + "\n" for f in right), encoding="utf-8")
    print(f"{len(right)} of {len(seen)} logs that are not blind pinned in {PINS.relative_to(ROOT)}")
    return 0


def _measure_with(src: Path, files: list[str]) -> dict[str, list]:
    """Diagnose ``files`` with the torchbuild of ``src`` (a tree's src/ folder), in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        code = (
            "import json, sys\n"
            f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
            "import realworld_measure as m\n"
            f"files = json.loads({json.dumps(json.dumps(files))})\n"
            f"open({str(out)!r}, 'w').write(json.dumps(m.diagnose_files(files)))\n"
        )
        env = dict(os.environ, PYTHONPATH=str(src))
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp)
        return json.loads(out.read_text(encoding="utf-8"))


def _counts(results: dict[str, list], index: list[dict]) -> dict[int, tuple[int, int, int]]:
    by_file = {r["file"]: r for r in index}
    per: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    for f, (got, conf, *_rest) in results.items():
        exp, batch = by_file[f]["cause"], by_file[f]["batch"]
        per[batch][0] += 1
        per[batch][1] += got == exp
        per[batch][2] += got not in (exp, "unknown") and conf >= SURE
    return {b: (n, ok, wr) for b, (n, ok, wr) in per.items()}


def _measure(args: argparse.Namespace) -> int:
    index = rows()
    blind = [r["file"] for r in index if is_blind(r, args.blind_from)]
    if not blind:
        print(f"no held-out log of batch {args.blind_from} or later")
        return 1
    final = _measure_with(ROOT / "src", blind)
    start = _measure_with(Path(args.start), blind) if args.start else None
    fc = _counts(final, index)
    sc = _counts(start, index) if start is not None else None
    for b in sorted(fc):
        n, ok, wr = fc[b]
        was = f"{sc[b][1]:2d}/{n} start -> " if sc is not None else ""
        cw = f"{sc[b][2]} -> {wr}" if sc is not None else f"{wr}"
        print(f"batch {b} held-out: {was}{ok:2d}/{n} now, confidently wrong {cw}")
    n = len(blind)
    ok, wr = sum(v[1] for v in fc.values()), sum(v[2] for v in fc.values())
    line = (
        f"together ({n}): {ok}/{n} ({100 * ok / n:.1f}%) right first, {wr}/{n} ({100 * wr / n:.1f}%) confidently wrong"
    )
    if start is not None and sc is not None:
        sok, swr = sum(v[1] for v in sc.values()), sum(v[2] for v in sc.values())
        moved = sum(start[f][:2] != final[f][:2] for f in blind)
        line += f"; start: {sok}/{n}, {swr}/{n}; logs whose answer changed: {moved}"
    print(line)
    if args.out:
        Path(args.out).write_text(json.dumps(final), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("snapshot", help="diagnose every log that is not blind; write the results to OUT")
    p.add_argument("out")
    p.add_argument("--blind-from", type=int, required=True, help="the first blind batch (held-out logs from it on)")
    p.set_defaults(run=_snapshot)
    p = sub.add_parser("compare", help="logs whose first cause changed between two snapshots")
    p.add_argument("before")
    p.add_argument("after")
    p.set_defaults(run=_compare)
    p = sub.add_parser("measure", help="the one measurement: counts only, on the blind held-out logs")
    p.add_argument("--blind-from", type=int, required=True)
    p.add_argument("--start", help="src/ of the session start's tree (a git worktree), to score it too")
    p.add_argument("--out", help="write this checkout's per-log results here (read them after the counts)")
    p.set_defaults(run=_measure)
    p = sub.add_parser("pin", help="record the logs that are right now, for the per-log regression test")
    p.add_argument("--blind-from", type=int, required=True, help="the first blind batch (held-out logs from it on)")
    p.set_defaults(run=_pin)
    args = ap.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
