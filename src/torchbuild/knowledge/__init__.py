"""Knowledge layer: data files with a source on every row.

Each table is a TOML file in ``knowledge/data/``.  A file holds a top-level
``[meta]`` table (``description``, ``sources``: key -> full citation) and one
array of tables of rows; every row has a ``source`` key naming where it comes from
(a key of ``meta.sources``, a file in the PyTorch repo, an NVIDIA document or an
issue URL).  :func:`load` validates that on every read, so a row without a source
fails the test suite, not a user's build.

A newcomer adds a GPU, a compatibility rule or a failure signature by editing one
of these files; no code changes.
"""

from __future__ import annotations

import functools
import sys
from importlib import resources
from typing import Any

from ..errors import KnowledgeError  # re-exported from its old place

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["KnowledgeError", "load", "rows", "available"]


def available() -> list[str]:
    """Names (without ``.toml``) of every knowledge file shipped with torchbuild."""
    base = resources.files(__name__) / "data"
    return sorted(p.name[:-5] for p in base.iterdir() if p.name.endswith(".toml"))


@functools.cache
def load(name: str) -> dict[str, Any]:
    """Parse ``knowledge/data/<name>.toml`` and check every row names a source.

    :param name: file name without ``.toml`` (``"cuda_host_compilers"``).
    :returns: the parsed TOML document (a dict); cached, do not mutate.
    :raises KnowledgeError: missing file, invalid TOML, or a row whose ``source`` is
        empty or (for a short key) not defined in ``meta.sources``.
    """
    path = resources.files(__name__) / "data" / f"{name}.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise KnowledgeError(f"knowledge file {name}.toml is missing") from exc
    try:
        doc: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"knowledge file {name}.toml is not valid TOML: {exc}") from exc
    sources = doc.get("meta", {}).get("sources", {})
    for key, value in doc.items():
        if key == "meta" or not isinstance(value, list):
            continue
        for i, row in enumerate(value):
            if not isinstance(row, dict):
                continue
            src = row.get("source")
            if not src or not isinstance(src, (str, list)):
                raise KnowledgeError(f"{name}.toml: {key}[{i}] has no source")
            for s in [src] if isinstance(src, str) else src:
                if not _is_citation(s) and s not in sources:
                    raise KnowledgeError(
                        f"{name}.toml: {key}[{i}] cites {s!r}, which is neither a URL/path nor a key of [meta.sources]"
                    )
    return doc


def rows(name: str, table: str) -> list[dict[str, Any]]:
    """The rows of array-of-tables ``table`` in knowledge file ``name``.

    :raises KnowledgeError: as :func:`load`, or when ``table`` is absent.
    """
    doc = load(name)
    if table not in doc:
        raise KnowledgeError(f"{name}.toml has no [[{table}]] rows")
    table_rows: list[dict[str, Any]] = doc[table]
    return table_rows


def _is_citation(s: str) -> bool:
    """A full citation: a URL, or a repository path such as ``pytorch/pytorch:setup.py``."""
    return s.startswith(("http://", "https://")) or ":" in s or "/" in s
