"""Write knowledge/data/signature_precision.toml from the real-log corpus (run by hand).

    python benchmarks/realworld_calibrate.py --blind-from N

Every log of tests/diagnose/realworld that is not blind (``realworld_measure.is_blind``) is diagnosed
with the calibration off (an empty precision table), as `torchbuild diagnose` would name its first
cause before :func:`torchbuild.decisions.diagnose.ranking.calibrate`.  Per signature, the script counts
the logs it was named first for *with a confidence of 0.7 or more* (``named``: the findings it would
state), in how many of those the cause judged from the issue thread was the one named (``right``), and
the judged causes of the others (``others``).  Only signatures with at least one such log judged
another cause get a row: the rest were right every time.

`diagnose` reads the rows (``load_precision``) and keeps a cause below 0.7 when its signature was right
in fewer than 9 of 10 of those logs, counted over at least 3 (``PRECISION_BAR``, ``PRECISION_MIN_LOGS``
in ``torchbuild.decisions.diagnose.model``): a line that several roots share is reported as a likely
cause, not as a finding.  Because the counts are taken with the calibration off, a new run with the
table in place gives the same table.

The same counts are taken *at first sight*: over benchmarks/realworld_firstsight.json, the answers of the
code that added each log and had never read it (``first_named``, ``first_right``, ``first_others``).  The
corpus record overstates how a signature fares on logs nobody has read: it was written from those logs
and fixed on them.  A signature below the bar on either record is kept below 0.7.  Simulated before it
was built (benchmarks/realworld_protocol.md, session 27): over the 420 never-seen held-out logs of
sessions 23-26, each session's first-sight answers calibrated with the records before it, confident
mistakes fell from 19 (corpus record only) to 10, and confident right answers from 168 to 151.
Only signatures that exist today count (a first-sight answer of a signature since removed is left out).

Blind held-out logs are never diagnosed here, so they never reach the table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "torchbuild" / "knowledge" / "data" / "signature_precision.toml"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld_firstsight  # noqa: E402
import realworld_measure  # noqa: E402


def uncalibrated(files: list[str]) -> dict[str, list]:
    """``{file: [cause_id, confidence, signature, line]}``: the first cause `torchbuild diagnose` names
    for each corpus log in ``files`` with the calibration off (an empty precision table)."""
    from torchbuild.actions.diagnose_log import diagnose_file

    out: dict[str, list] = {}
    for f in files:
        c = diagnose_file(realworld_measure.CORPUS / f, precision={}).causes[0]
        out[f] = [c.cause_id, c.confidence, c.signature, c.line]
    return out


Counts = dict[str, tuple[int, int, Counter[str], list[str]]]


def counts(snapshot: dict[str, list], expected: dict[str, str], urls: dict[str, str]) -> Counts:
    """``{signature: (named, right, Counter(other judged cause -> logs), URLs of those other logs)}``
    over the logs of ``snapshot`` (``{file: [cause_id, confidence, signature, line]}``) whose first
    cause has a confidence of 0.7 or more; logs with no signature (``unknown``) are skipped.
    ``expected`` and ``urls`` map a log's file to its judged cause and its issue thread."""
    named: dict[str, int] = defaultdict(int)
    right: dict[str, int] = defaultdict(int)
    others: dict[str, Counter[str]] = defaultdict(Counter)
    where: dict[str, list[str]] = defaultdict(list)
    for f, (cause, conf, sig, _line) in snapshot.items():
        if not sig or conf < 0.7:
            continue
        named[sig] += 1
        if cause == expected[f]:
            right[sig] += 1
        else:
            others[sig][expected[f]] += 1
            where[sig].append(urls[f])
    return {s: (named[s], right[s], others[s], sorted(set(where[s]))) for s in named}


def first_sight(blind_from: int, last_batch: int, signatures: set[str]) -> dict[str, list]:
    """The recorded first-sight answers (benchmarks/realworld_firstsight.json) of the logs from
    ``realworld_firstsight.FIRST_BATCH`` to ``last_batch`` that are not blind for ``blind_from``, with
    an answer whose signature is not in ``signatures`` (removed since) turned into no signature."""
    index = {r["file"]: r for r in realworld_measure.rows()}
    out: dict[str, list] = {}
    for f, (cause, conf, sig, commit) in realworld_firstsight.load().items():
        r = index.get(f)
        if r is None or realworld_measure.is_blind(r, blind_from):
            continue
        if not realworld_firstsight.FIRST_BATCH <= (r.get("batch") or 0) <= last_batch:
            continue
        known = sig in signatures or (sig or "").startswith("reason:")
        out[f] = [cause, conf, sig if known else None, commit]
    return out


def render(
    table: Counts,
    logs: int,
    commit: str,
    blind_from: int,
    last_batch: int,
    first: Counts | None = None,
    first_logs: int = 0,
) -> str:
    """The TOML text: a header naming the corpus and commit, ``[meta]`` (``logs`` counted: those of
    batches up to ``last_batch`` except the held-out logs of ``blind_from`` and later; ``first_sight_logs``:
    those of them with a first-sight answer), then one ``[[signature]]`` row per signature with at least
    one log judged another cause on the corpus (``table``) or at first sight (``first``), worst first."""
    first = first or {}
    lines = [
        "# How often each failure signature, named first by `torchbuild diagnose`, was the cause judged",
        "# from the issue thread, on the real-log corpus tests/diagnose/realworld (index.toml: url, cause, why).",
        f"# Generated by benchmarks/realworld_calibrate.py from {logs} logs (code of {commit}); do not edit by hand.",
        "# named: logs it was named first for with confidence >= 0.7 (the calibration off); right: of those,",
        "# logs whose judged cause is the one named; others: the judged causes of the rest.  first_named,",
        "# first_right, first_others: the same at first sight, with the code of the commit that added each log",
        "# (benchmarks/realworld_firstsight.json).  Only signatures with at least one such log judged another",
        "# cause have a row.  diagnose keeps a signature's cause below confidence 0.7 when right/named or",
        "# first_right/first_named < 0.9 over at least 3 logs (decisions/diagnose/model.py PRECISION_BAR,",
        "# PRECISION_MIN_LOGS).  source: the issue threads of the logs judged another cause.",
        "",
        "[meta]",
        f"logs = {logs}",
        f"first_sight_logs = {first_logs}",
        f"blind_from = {blind_from}",
        f"last_batch = {last_batch}",
        "",
    ]
    empty: tuple[int, int, Counter[str], list[str]] = (0, 0, Counter(), [])
    ids = {s for s, v in table.items() if v[2]} | {s for s, v in first.items() if v[2]}

    def worst(s: str) -> tuple[float, str]:
        n, r, _o, _u = table.get(s, empty)
        fn, fr, _fo, _fu = first.get(s, empty)
        return (min(r / n if n else 1.0, fr / fn if fn else 1.0), s)

    for sig in sorted(ids, key=worst):
        n, r, o, u = table.get(sig, empty)
        fn, fr, fo, fu = first.get(sig, empty)
        lines += ["[[signature]]", f'id = "{sig}"', f"named = {n}", f"right = {r}", f"others = {{ {_table(o)} }}"]
        if fn:
            lines += [f"first_named = {fn}", f"first_right = {fr}", f"first_others = {{ {_table(fo)} }}"]
        lines += ["source = [" + ", ".join(f'"{x}"' for x in sorted(set(u) | set(fu))) + "]", ""]
    return "\n".join(lines)


def _table(counts: Counter[str]) -> str:
    """``a = 2, b = 1``: an inline TOML table of counts, most frequent first."""
    return ", ".join(f"{c} = {k}" for c, k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--blind-from", type=int, required=True, help="held-out logs of this batch and later are blind: left out"
    )
    ap.add_argument("--out", default=str(OUT), help="where to write the table (default: the knowledge file)")
    args = ap.parse_args(argv)
    index = realworld_measure.rows()
    last = max(r.get("batch") or 0 for r in index)
    snap = uncalibrated([r["file"] for r in index if not realworld_measure.is_blind(r, args.blind_from)])
    expected = {r["file"]: r["cause"] for r in index}
    urls = {r["file"]: r["url"] for r in index}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    table = counts(snap, expected, urls)
    from torchbuild.decisions.diagnose import load_signatures

    seen = first_sight(args.blind_from, last, {s.id for s in load_signatures()})
    first = counts(seen, expected, urls)
    text = render(table, len(snap), commit or "unknown", args.blind_from, last, first, len(seen))
    Path(args.out).write_text(text, encoding="utf-8")
    rows = len({s for s, v in table.items() if v[2]} | {s for s, v in first.items() if v[2]})
    print(
        f"{args.out}: {rows} signatures with a log judged another cause, "
        f"from {len(snap)} logs ({len(seen)} at first sight)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
