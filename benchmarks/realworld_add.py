"""Add real logs to tests/diagnose/realworld/ (run by hand), with the held-out split
decided by a hash of the file name, never by hand.

    python benchmarks/realworld_add.py BATCH_FILE [--batch N]

BATCH_FILE holds entries of the form::

    === name.log
    url: https://github.com/owner/repo/issues/N
    cause: cause_id
    why: the cause as judged from the thread
    note: optional (what was trimmed)
    ---
    the log text, exactly as pasted in the thread (trimmed to the relevant part)

Each log is written to the corpus and a row is appended to index.toml with
``split = split_of(name)`` and ``batch = N`` (default 2: the logs of issue 11's first
round; 3: its second round).  An existing file name or URL is refused.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import tomllib

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "diagnose" / "realworld"


def split_of(name: str) -> str:
    """The split of a log of batch 2 or later: "holdout" when the first byte of sha256(name) is
    below 128 (half of the logs), else "dev".  Fixed before any signature was written
    for these logs; a log never moves from held-out to dev."""
    return "holdout" if hashlib.sha256(name.encode()).digest()[0] < 128 else "dev"


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(batch: str, number: int = 2) -> int:
    """Append the entries of the file ``batch`` to the corpus as batch ``number``."""
    index = CORPUS / "index.toml"
    rows = tomllib.loads(index.read_text(encoding="utf-8"))["log"]
    names = {r["file"] for r in rows}
    urls = {r["url"] for r in rows}
    out = []
    held_out = 0
    for chunk in Path(batch).read_text(encoding="utf-8").split("\n=== ")[0:]:
        chunk = chunk.removeprefix("=== ")
        if not chunk.strip():
            continue
        head, _, body = chunk.partition("\n---\n")
        lines = head.splitlines()
        name = lines[0].strip()
        meta = dict(ln.split(": ", 1) for ln in lines[1:] if ": " in ln)
        if name in names or meta["url"] in urls:
            print(f"skip {name}: already in the corpus ({meta['url']})", file=sys.stderr)
            continue
        if not meta["url"].startswith("https://github.com/"):
            # the corpus takes logs from public GitHub issue threads only (test_corpus_is_well_formed); the name is
            # not printed, since the entry's split is not known to the reader yet
            print("skip an entry: its url is not a GitHub issue thread", file=sys.stderr)
            continue
        names.add(name)
        urls.add(meta["url"])
        (CORPUS / name).write_text(body.rstrip("\n") + "\n", encoding="utf-8")
        row = (
            f"\n[[log]]\nfile = {_q(name)}\nsplit = {_q(split_of(name))}\nbatch = {number}\n"
            f"url = {_q(meta['url'])}\ncause = {_q(meta['cause'])}\nwhy = {_q(meta['why'])}\n"
        )
        if meta.get("note"):
            row += f"note = {_q(meta['note'])}\n"
        out.append(row)
        if split_of(name) == "dev":
            print(f"added {name} (dev)")
        else:
            held_out += 1  # a held-out log's name is not printed: its name hints at its cause
    with index.open("a", encoding="utf-8") as f:
        f.write("".join(out))
    print(f"added {held_out} held-out logs (names not printed)")
    return 0


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("batch_file")
    ap.add_argument("--batch", type=int, default=2, help="the batch number written in index.toml (default 2)")
    a = ap.parse_args()
    sys.exit(main(a.batch_file, a.batch))
