"""A blind log-only reading of never-seen held-out logs, taken beside the measurement (run by hand).

    python benchmarks/realworld_reader.py prepare --blind-from N DIR
    python benchmarks/realworld_reader.py collect DIR OUT.json

Session 28's reading (benchmarks/realworld_relabel.py) put what a log alone supports at about 85%, on logs the
project had already read.  This takes the same reading on the logs of a blind round, so the reader and
``diagnose`` are scored on the very same never-seen logs:

* ``prepare`` copies every blind held-out log (held-out, batch >= N) to ``DIR/logs/NNN.log``, numbered in the
  order of ``sha256("reader:" + file name)``, so a number says nothing of the file name (which hints at the
  cause); the key (number -> file) goes to ``DIR/key.json``, which nobody reads before the measurement.  It prints
  the count only.  A helper session that sees only ``DIR/logs`` and causes.md (no file names, no threads, no
  labels, no search tool, nothing of torchbuild) writes ``DIR/answers.json``: ``{"NNN": [cause_id, "high" |
  "medium" | "low"]}``.
* ``collect``, after the measurement, maps the answers back to file names and writes OUT.json in the format
  benchmarks/realworld_relabel.py reads (``{"meta": ..., "answers": {file: [cause_id, confidence]}}``).

Raises SystemExit with a message when DIR already holds logs (a reading is never overwritten) or when an answer
names a number that ``prepare`` did not write.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld_measure  # noqa: E402


def blind_files(blind_from: int) -> list[str]:
    """The file names of the blind held-out logs (held-out, batch >= ``blind_from``), in reader order."""
    names = [r["file"] for r in realworld_measure.rows() if realworld_measure.is_blind(r, blind_from)]
    return sorted(names, key=lambda f: hashlib.sha256(f"reader:{f}".encode()).hexdigest())


def prepare(blind_from: int, out: Path) -> int:
    """Write ``out/logs/NNN.log`` and ``out/key.json``; return the number of logs."""
    logs = out / "logs"
    if logs.exists() and any(logs.iterdir()):
        raise SystemExit(f"{logs} already holds logs: choose a new folder (a reading is never overwritten)")
    logs.mkdir(parents=True, exist_ok=True)
    key = {}
    for i, name in enumerate(blind_files(blind_from), 1):
        num = f"{i:03d}"
        shutil.copyfile(realworld_measure.CORPUS / name, logs / f"{num}.log")
        key[num] = name
    (out / "key.json").write_text(json.dumps({"blind_from": blind_from, "key": key}, indent=1), encoding="utf-8")
    return len(key)


def collect(folder: Path, out: Path) -> int:
    """Map ``folder/answers.json`` back to file names and write ``out``; return the number of answers."""
    key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    answers = json.loads((folder / "answers.json").read_text(encoding="utf-8"))
    unknown = sorted(set(answers) - set(key["key"]))
    if unknown:
        raise SystemExit(f"answers for numbers that prepare did not write: {', '.join(unknown)}")
    by_file = {key["key"][n]: [a[0], a[1]] for n, a in sorted(answers.items())}
    meta = {
        "what": f"a log-only reading of the blind held-out logs of batches >= {key['blind_from']}, taken before "
        "their measurement (benchmarks/realworld_reader.py)",
        "reader": "one helper session that saw only the numbered logs and causes.md (no file names, threads, "
        "labels, search tool or torchbuild), naming a cause id (or unknown) and high/medium/low",
        "logs": len(key["key"]),
        "answered": len(by_file),
    }
    out.write_text(json.dumps({"meta": meta, "answers": by_file}, indent=1) + "\n", encoding="utf-8")
    return len(by_file)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="copy the blind held-out logs, numbered, for a log-only reader")
    p.add_argument("--blind-from", type=int, required=True)
    p.add_argument("dir", type=Path)
    c = sub.add_parser("collect", help="after the measurement: the reader's answers by file name")
    c.add_argument("dir", type=Path)
    c.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "prepare":
        print(f"{prepare(args.blind_from, args.dir)} blind held-out logs written to {args.dir / 'logs'}")
    else:
        print(f"{collect(args.dir, args.out)} answers written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
