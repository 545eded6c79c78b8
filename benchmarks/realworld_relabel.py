"""How far a log alone can take a diagnosis: a blind log-only reading against the threads' labels (run by hand).

    python benchmarks/realworld_relabel.py [READING.json ...]
    python benchmarks/realworld_relabel.py benchmarks/realworld_relabel_s*.json   (every reading, pooled)

READING (default benchmarks/realworld_relabel_s28.json; benchmarks/realworld_relabel_s30.json is session 30's
reading of its 89 never-seen held-out logs, taken with benchmarks/realworld_reader.py before their measurement) holds
``{"answers": {file: [cause_id, confidence]}}``: the
cause a reader named for each corpus log from its text alone (a helper session that saw neither the file name, the
thread, the label nor torchbuild; confidence high/medium/low).  The labels of tests/diagnose/realworld/index.toml
were judged from the whole thread (a maintainer's diagnosis, the fix that worked), so the reader's agreement with
them estimates what any diagnosis from the log alone can reach under this labelling.  Printed beside it, on the same
logs: diagnose at first sight (benchmarks/realworld_firstsight.json, the code of the commit that added each log)
and diagnose now (this checkout's code, which has read every one of them).

Given several readings, the figures are for their logs pooled (a log read twice counts once, with the answer of the
first file that holds it), after one line per reading: the reader's agreement over all the rounds estimates the ceiling
of a diagnosis from the log alone more tightly than one round of 60-90 logs can.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "src"))  # this checkout's torchbuild
import realworld_measure  # noqa: E402


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of k successes in n trials, as fractions."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


def read_answers(reading: Path) -> dict[str, list[str]]:
    """``{file: [cause_id, confidence]}`` of one reading.

    :raises SystemExit: a reading without an ``answers`` object.
    """
    data = json.loads(reading.read_text(encoding="utf-8"))
    if not isinstance(data.get("answers"), dict):
        raise SystemExit(f"{reading}: no 'answers' object (write it with benchmarks/realworld_reader.py collect)")
    return data["answers"]


def pool(each: list[dict[str, list[str]]]) -> dict[str, list[str]]:
    """Several readings' answers pooled; a file in two readings keeps the first one's answer."""
    pooled: dict[str, list[str]] = {}
    for answers in each:
        for f, answer in answers.items():
            pooled.setdefault(f, answer)
    return pooled


def main(readings: list[Path]) -> int:
    rows = {r["file"]: r for r in realworld_measure.rows()}
    each = [read_answers(r) for r in readings]  # each file read once
    if len(readings) > 1:
        for reading, one in zip(readings, each, strict=True):
            k = sum(a[0] == rows[f]["cause"] for f, a in one.items())
            print(f"{reading.name:40s} reader {k:4d}/{len(one):<4d} {k / len(one):6.1%}")
        print("pooled:")
    answers = pool(each)
    first = json.loads((ROOT / "benchmarks" / "realworld_firstsight.json").read_text(encoding="utf-8"))["logs"]
    files = sorted(answers)
    truth = {f: rows[f]["cause"] for f in files}
    now = {f: r[0] for f, r in realworld_measure.diagnose_files(files).items()}
    n = len(files)

    def line(name: str, k: int, m: int) -> str:
        if m == 0:  # e.g. blind logs whose first sight is not recorded yet (realworld_firstsight.py)
            return f"{name:52s} none recorded"
        lo, hi = wilson(k, m)
        return f"{name:52s} {k:4d}/{m:<4d} {k / m:6.1%}   (95% interval {lo:.1%}-{hi:.1%})"

    reader = sum(answers[f][0] == truth[f] for f in files)
    print(line("log-only reader agrees with the thread's label", reader, n))
    for conf in ("high", "medium", "low"):
        sel = [f for f in files if answers[f][1] == conf]
        if sel:
            print(line(f"  ... where the reader said {conf}", sum(answers[f][0] == truth[f] for f in sel), len(sel)))
    seen = [f for f in files if f in first]
    print(line("diagnose at first sight (never read them)", sum(first[f][0] == truth[f] for f in seen), len(seen)))
    print(line("diagnose now (written from these logs too)", sum(now[f] == truth[f] for f in files), n))
    either = sum(answers[f][0] == truth[f] or first[f][0] == truth[f] for f in seen)
    print(line("reader or diagnose at first sight", either, len(seen)))
    pairs = Counter((first[f][0] == truth[f], answers[f][0] == truth[f]) for f in seen)
    print(
        f"first sight right and reader right {pairs[True, True]}, first sight only {pairs[True, False]}, "
        f"reader only {pairs[False, True]}, neither {pairs[False, False]}"
    )
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "readings",
        nargs="*",
        type=Path,
        default=[ROOT / "benchmarks" / "realworld_relabel_s28.json"],
        help="reading files (realworld_reader.py collect); several are pooled",
    )
    sys.exit(main(ap.parse_args().readings))
