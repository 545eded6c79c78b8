"""Build records: ``<tree>/.torchbuild/records/<timestamp>.json`` .

A record holds the plan, the machine's facts, the source SHA and submodule SHAs,
phase timings (seconds), the outcome, the diagnosis of a failure, the verify report
and every artifact with its sha256.  Records are never overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from ..decisions.redact import redact  # a record is shared with colleagues, a cache password is not

__all__ = ["sha256_file", "write_record", "timestamp", "redact", "RECORD_SCHEMA"]

RECORD_SCHEMA = 1


def timestamp() -> str:
    """Local time as ``YYYYMMDD-HHMMSS`` (names of logs and records)."""
    return time.strftime("%Y%m%d-%H%M%S")


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in ``chunk``-byte pieces.

    :raises OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def write_record(tree: Path, stem: str, data: dict[str, Any]) -> Path:
    """Write ``data`` (JSON types) as a new record file and return its path.

    :param tree: the source tree (records go to ``<tree>/.torchbuild/records/``).
    :param stem: file name stem, usually :func:`timestamp`; ``-1``, ``-2``... are appended
        rather than overwrite an existing record.
    :raises OSError: the folder cannot be written.
    """
    folder = tree / ".torchbuild" / "records"
    folder.mkdir(parents=True, exist_ok=True)
    payload = redact(json.dumps({"schema": RECORD_SCHEMA, **data}, indent=2, default=str)).encode()
    for i in range(1000):
        path = folder / (f"{stem}.json" if i == 0 else f"{stem}-{i}.json")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        return path
    raise OSError(f"too many records named {stem} in {folder}")
