"""Would a nearest-neighbour fallback help diagnose at first sight?  (issue 11, session 54: measured, not adopted)

Where diagnose names no cause (``unknown``), a reader might still guess from the closest log of the corpus.  This
script replays that guess over the first-sight record (``benchmarks/realworld_firstsight.json``: what diagnose named
for each held-out log when it was first measured, blind) without touching diagnose itself:

* every log becomes the set of words of its lines that look like errors (error, fatal, undefined, cannot, ...);
* words are weighted by inverse document frequency over the dev logs, sets compared by cosine;
* for a held-out log of batch ``b`` that diagnose left ``unknown`` at first sight, only dev logs of batches before
  ``b`` are neighbours (what a fallback shipped at that time could have known); the ``k`` closest vote by score;
* below ``--threshold`` (cosine), or when the vote is ``unknown``, the fallback abstains.

Output, per threshold: ``gain`` (held-out logs that would become right), ``loss`` (logs labelled unknown, right at
first sight, that the fallback would name a cause for: now wrong), ``wrong`` (wrong before and after), and the net
change in right-first logs (gain - loss).  Usage::

    python benchmarks/realworld_neighbour_fallback.py [--k 1] [--threshold 0.2 0.3 0.4 0.5]

Session 54's run (1069 held-out logs of batches before 997 that diagnose left unknown at first sight): the net was
negative at every threshold (k=1: 0.2 +93/-200, 0.3 +81/-121, 0.4 +61/-70, 0.5 +44/-46; k=5 no better), because
most first-sight ``unknown`` answers that were right are logs labelled ``unknown`` whose words resemble a labelled
log's.  So diagnose keeps abstaining where no signature fits.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "diagnose" / "realworld"
FIRSTSIGHT = ROOT / "benchmarks" / "realworld_firstsight.json"

ERRORISH = re.compile(
    r"error|fatal|undefined|cannot|not found|no such|failed|unsupported|mismatch|version|killed|denied|could not"
    r"|unable|missing|invalid|incompatible|requires|exception|traceback",
    re.I,
)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.+-]{2,}")


def words(path: Path) -> set[str]:
    """The lower-cased words (3-40 characters, at most 3 digits) of the error-like lines of one log."""
    out: set[str] = set()
    lines = [line for line in path.read_text(errors="replace").splitlines() if ERRORISH.search(line)]
    for line in lines[:3000]:
        for w in WORD.findall(line):
            w = w.lower().strip(".-+")
            if 3 <= len(w) <= 40 and sum(c.isdigit() for c in w) <= 3:
                out.add(w)
    return out


def replay(k: int, thresholds: list[float]) -> None:
    """Print gain/loss/wrong/abstain per threshold (see the module docstring)."""
    first = json.loads(FIRSTSIGHT.read_text())
    blind_from = first["meta"]["blind_from"]
    seen = first["logs"]
    rows = [r for r in tomllib.loads((CORPUS / "index.toml").read_text())["log"] if r.get("batch", 0) < blind_from]
    dev = [r for r in rows if r["split"] == "dev"]
    bags = {r["file"]: words(CORPUS / r["file"]) for r in rows}
    df: collections.Counter[str] = collections.Counter()
    for r in dev:
        df.update(bags[r["file"]])
    idf = {w: math.log(len(dev) / (1 + c)) for w, c in df.items()}
    unseen = math.log(len(dev))

    def vector(bag: set[str]) -> dict[str, float]:
        v = {w: idf.get(w, unseen) for w in bag}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {w: x / norm for w, x in v.items()}

    vectors = {name: vector(bag) for name, bag in bags.items()}
    postings: dict[str, list[tuple[str, float, int, str]]] = collections.defaultdict(list)
    for r in dev:
        for w, x in vectors[r["file"]].items():
            postings[w].append((r["file"], x, r.get("batch", 0), r["cause"]))

    candidates = []
    for r in rows:
        record = seen.get(r["file"])
        if r["split"] == "dev" or "batch" not in r or not record or record[0] != "unknown":
            continue
        score: dict[str, float] = collections.defaultdict(float)
        label: dict[str, str] = {}
        for w, x in vectors[r["file"]].items():
            for other, y, batch, cause in postings.get(w, ()):
                if batch < r["batch"]:
                    score[other] += x * y
                    label[other] = cause
        top = sorted(score.items(), key=lambda kv: -kv[1])[:k]
        candidates.append((r["cause"], [(s, label[o]) for o, s in top]))

    print(f"{len(candidates)} held-out logs diagnosed unknown at first sight (batches < {blind_from}), k={k}")
    print("threshold  gain  loss  wrong  abstain  net")
    for t in thresholds:
        tally: collections.Counter[str] = collections.Counter()
        for truth, top in candidates:
            if not top or top[0][0] < t:
                tally["abstain"] += 1
                continue
            votes: dict[str, float] = collections.defaultdict(float)
            for s, cause in top:
                votes[cause] += s
            guess = max(votes, key=lambda c: votes[c])
            if guess == "unknown":
                tally["abstain"] += 1
            elif truth == "unknown":
                tally["loss"] += 1
            elif guess == truth:
                tally["gain"] += 1
            else:
                tally["wrong"] += 1
        net = tally["gain"] - tally["loss"]
        print(f"{t:9.2f}  {tally['gain']:4}  {tally['loss']:4}  {tally['wrong']:5}  {tally['abstain']:7}  {net:+4}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=1, help="neighbours that vote (default 1)")
    parser.add_argument("--threshold", type=float, nargs="+", default=[0.2, 0.3, 0.4, 0.5], help="least cosine")
    args = parser.parse_args()
    replay(args.k, args.threshold)


if __name__ == "__main__":
    main()
