"""Read earlier build records of a tree (``<tree>/.torchbuild/records/*.json``).

Records are written by :mod:`torchbuild.actions.record`; reading them is looking at
the machine, so it lives here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["last_successful_record", "successful_records"]


def successful_records(tree: Path) -> Iterator[dict[str, Any]]:
    """The records of ``tree`` whose ``outcome`` is ``"ok"``, newest first (``_path`` added);
    unreadable or malformed ones are skipped."""
    folder = tree / ".torchbuild" / "records"
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("outcome") == "ok":
            data["_path"] = str(path)
            yield data


def last_successful_record(tree: Path) -> dict[str, Any] | None:
    """The newest record of ``tree`` whose ``outcome`` is ``"ok"``, or None.

    Unreadable or malformed records are skipped (a record is evidence, not input that
    must be valid).
    """
    folder = tree / ".torchbuild" / "records"
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("outcome") == "ok":
            data["_path"] = str(path)
            return data
    return None
