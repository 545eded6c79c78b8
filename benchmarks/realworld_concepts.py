"""What the plain-words reading (knowledge/data/concepts.toml) does on logs no signature knew (run by hand).

    python benchmarks/realworld_concepts.py --blind-from N [--split-at 180] [--show dev]

The logs: those the code of their day met as `unknown` (benchmarks/realworld_firstsight.json: the code
of the commit that added each log, which had never read it).  Each is diagnosed with today's code
with no signature at all (``signatures=()``, the calibration off), so that the concepts see the log
as they see one that no signature knows; the rows written for these logs since do not help.

For each part of the corpus (batches below --split-at, the part the concepts were written on; the
batches from it on; blind held-out logs, batch >= N, are left out) it prints how many of those logs
the concepts name right (the thread's cause; a cause named by a rule of decisions/diagnose_rules_*,
which needs no signature, counts as left unknown: it is not the concepts' reading), how many whose
thread judged no cause they name (a loss: `unknown` was right), how many they name wrongly that were
wrong anyway, and how many they leave `unknown`.  --show dev|test lists the readings of one part (never the blind logs).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "diagnose" / "realworld"
sys.path.insert(0, str(ROOT / "src"))

from torchbuild.decisions.diagnose import diagnose_lines  # noqa: E402
from torchbuild.decisions.diagnose.concepts import load_concepts  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blind-from", type=int, required=True, help="first batch whose held-out logs are blind")
    ap.add_argument("--split-at", type=int, default=180, help="first batch of the second part (default 180)")
    ap.add_argument("--show", choices=["dev", "test"], help="list the readings of one part")
    args = ap.parse_args(argv)
    index = {r["file"]: r for r in tomllib.loads((CORPUS / "index.toml").read_text(encoding="utf-8"))["log"]}
    first = json.loads((ROOT / "benchmarks" / "realworld_firstsight.json").read_text(encoding="utf-8"))["logs"]
    counts: dict[str, Counter[str]] = {"dev": Counter(), "test": Counter()}
    shown = []
    concept_ids = {c.id for c in load_concepts()}
    for name, answer in sorted(first.items()):
        row = index.get(name)
        if row is None or answer[0] != "unknown":
            continue
        batch = row.get("batch") or 0
        if row["split"] == "holdout" and batch >= args.blind_from:
            continue
        part = "dev" if batch < args.split_at else "test"
        text = (CORPUS / name).read_text(encoding="utf-8", errors="replace").split("\n")
        root = diagnose_lines(enumerate(text, 1), signatures=(), precision={}).root
        label = row["cause"]
        if root.cause_id == "unknown" or root.signature not in concept_ids:
            kind = "left unknown"
        elif root.cause_id == label:
            kind = "named right"
        elif label == "unknown":
            kind = "named, thread judged none (loss)"
        else:
            kind = "named wrong (was wrong)"
        counts[part][kind] += 1
        if args.show == part and kind != "left unknown":
            line = root.evidence[0].text.strip()[:160] if root.evidence else ""
            shown.append(f"{kind:34} {label:28} {root.cause_id:28} {root.signature}  {name}\n    {line}")
    for part, c in counts.items():
        where = f"batches < {args.split_at}" if part == "dev" else f"batches {args.split_at}..{args.blind_from - 1}"
        total = sum(c.values())
        print(f"{part} ({where}): {total} logs first met as unknown")
        for kind in ("named right", "named, thread judged none (loss)", "named wrong (was wrong)", "left unknown"):
            print(f"    {kind:34} {c[kind]:4}")
        print(f"    net change in right first cause: {c['named right'] - c['named, thread judged none (loss)']:+d}")
    for s in shown:
        print(s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
