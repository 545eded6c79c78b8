"""Knowledge layer: data files with a source on every row.

Each table is a TOML file in ``knowledge/data/`` (or, for the failure signatures, a
folder of them: one file per cause family, see :func:`load`).  A table holds a top-level
``[meta]`` table (``description``, ``sources``: key -> full citation) and one
array of tables of rows; every row has a ``source`` key naming where it comes from
(a key of ``meta.sources``, a file in the PyTorch repo, an NVIDIA document or an
issue URL).  :func:`load` validates that on every read, so a row without a source
fails the test suite, not a user's build.

A newcomer adds a GPU, a compatibility rule or a failure signature by editing one
of these files; no code changes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from .._cachedir import cache_dir
from ..errors import KnowledgeError  # re-exported from its old place

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["KnowledgeError", "load", "rows", "available", "files", "derived"]


def _data() -> Any:
    """The ``knowledge/data/`` folder (an importlib Traversable)."""
    return resources.files(__name__) / "data"


#: The file of a folder table that holds its ``[meta]`` (``description``, ``sources``).
META_FILE = "_meta.toml"


def _is_folder_table(path: Any) -> bool:
    """Whether ``path`` (a Traversable) is a folder table: a folder with a ``_meta.toml``."""
    return bool(path.is_dir() and (path / META_FILE).is_file())


def available() -> list[str]:
    """Names of every knowledge table shipped with torchbuild: a ``<name>.toml`` file or a
    ``<name>/`` folder of TOML files (see :func:`load`), without ``.toml``."""
    return sorted(
        p.name[:-5] if p.name.endswith(".toml") else p.name
        for p in _data().iterdir()
        if p.name.endswith(".toml") or _is_folder_table(p)
    )


def files(name: str) -> list[str]:
    """The files that make up knowledge table ``name``, relative to ``knowledge/data/``:
    ``["<name>.toml"]``, or for a folder its ``_meta.toml`` then its other ``.toml`` files by name.

    :raises KnowledgeError: when neither exists.
    """
    base = _data()
    folder = base / name
    if _is_folder_table(folder):
        parts = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml") and p.name != META_FILE)
        return [f"{name}/{META_FILE}", *(f"{name}/{p}" for p in parts)]
    if (base / f"{name}.toml").is_file():
        return [f"{name}.toml"]
    raise KnowledgeError(f"knowledge file {name}.toml is missing")


def _read(rel: str) -> bytes:
    """The bytes of knowledge file ``rel`` (relative to ``knowledge/data/``).

    :raises KnowledgeError: when the file is missing.
    """
    path = _data()
    for part in rel.split("/"):
        path = path / part
    try:
        data: bytes = path.read_bytes()
    except FileNotFoundError as exc:
        raise KnowledgeError(f"knowledge file {rel} is missing") from exc
    return data


def _parse(rel: str, data: bytes) -> dict[str, Any]:
    """Parse the TOML ``data`` of knowledge file ``rel``.

    :raises KnowledgeError: when it is not valid UTF-8 TOML.
    """
    try:
        doc: dict[str, Any] = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KnowledgeError(f"knowledge file {rel} is not valid TOML: {exc}") from exc
    return doc


#: Bumped when the cached form of a table changes meaning.
_CACHE_FORMAT = 1


def _cache_key(name: str, texts: list[tuple[str, bytes]]) -> str:
    """A sha256 (hex) of everything a parsed, checked table depends on: the table's files
    (names and bytes), this module's code, torchbuild's version and the interpreter's
    ``marshal`` format.  An edited data file or a new torchbuild never meets an old entry."""
    h = hashlib.sha256(f"{_CACHE_FORMAT}\0{name}\0{__version__}\0{sys.version}\0{marshal.version}".encode())
    h.update(_loader_code())
    for rel, data in texts:
        h.update(b"\0" + rel.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


@functools.cache
def _loader_code() -> bytes:
    """This module's source, read once per process for every table's :func:`_cache_key` (b"" when
    it cannot be read, as in a zip import)."""
    with contextlib.suppress(OSError):
        return Path(__file__).read_bytes()
    return b""


def _cache_file(name: str, key: str) -> Path:
    """The cache file of table ``name`` under ``key``: ``<cache_dir>/knowledge/<name>-<key[:32]>.marshal``."""
    return cache_dir() / "knowledge" / f"{name}-{key[:32]}.marshal"


def _cached(name: str, key: str) -> dict[str, Any] | None:
    """The parsed table ``name`` stored under ``key``, or None when there is none (or it is
    unreadable: the caller then parses the TOML, as without a cache)."""
    try:
        stored = marshal.loads(_cache_file(name, key).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key and isinstance(stored[1], dict):
        doc: dict[str, Any] = stored[1]
        return doc
    return None


def _store(name: str, key: str, doc: dict[str, Any]) -> None:
    """Remember the checked table ``doc`` under ``key`` and drop the table's older entries.

    Written to a temporary file, then renamed, so a reader never sees half a file.  A cache
    that cannot be written (read-only home, a value ``marshal`` cannot hold) is skipped: the
    next run parses the TOML again, which is only slower."""
    path = _cache_file(name, key)
    try:
        blob = marshal.dumps((key, doc))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, path)
        for old in path.parent.glob(f"{name}-*.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
    except (OSError, ValueError):
        return


def derived(name: str, inputs: bytes, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A table computed from knowledge, kept in ``<cache_dir>/knowledge/`` like a parsed table (:func:`load`): the
    stored value when one was stored under the same ``inputs``, else ``compute()``, stored for the next process.

    :param name: the table's name in the cache (``derived-<name>-<key>.marshal``; the older entries of the name are
        dropped when a new one is stored).
    :param inputs: everything the value depends on (bytes: the data it is computed from and the code that computes
        it); hashed with sha256 as a table's files are (:func:`_cache_key`: with torchbuild's version and the
        interpreter's).
    :param compute: makes the value: a dict that ``marshal`` can hold (str keys; str, int, float, list, tuple and dict
        values); called only when no stored value fits.
    :returns: the value (do not mutate: a later call may return the same object's stored form).
    """
    table = f"derived-{name}"
    key = _cache_key(table, [("inputs", inputs)])
    cached = _cached(table, key)
    if cached is not None:
        return cached
    doc = compute()
    _store(table, key, doc)
    return doc


@functools.cache
def load(name: str) -> dict[str, Any]:
    """Parse knowledge table ``name`` and check every row names a source.

    A table is ``knowledge/data/<name>.toml``, or a folder ``knowledge/data/<name>/`` whose
    ``_meta.toml`` holds the ``[meta]`` table and whose other files hold rows only (the
    signatures: one file per cause family); a folder's rows are joined file by file, in the
    order of :func:`files`, and may cite any key of the ``_meta.toml``'s ``[meta.sources]``.

    :param name: table name without ``.toml`` (``"cuda_host_compilers"``, ``"signatures"``).
    A checked table is also kept in ``<cache_dir>/knowledge/`` (``$TORCHBUILD_CACHE``), keyed
    by the sha256 of its files and of this code, so a new process skips the TOML parse (about
    60 ms of ``diagnose``'s start-up for the signatures); an edited file is parsed again.

    :returns: the parsed TOML document (a dict); cached, do not mutate.
    :raises KnowledgeError: missing file, invalid TOML, a ``[meta]`` outside a folder's
        ``_meta.toml``, or a row whose ``source`` is empty or (for a short key) not defined
        in ``meta.sources``.
    """
    texts = [(rel, _read(rel)) for rel in files(name)]
    cache_key = _cache_key(name, texts)
    cached = _cached(name, cache_key)
    if cached is not None:
        return cached
    doc = _parse(*texts[0])
    sources = doc.get("meta", {}).get("sources", {})
    _check_sources(doc, sources, texts[0][0])
    for rel, data in texts[1:]:
        part = _parse(rel, data)
        if "meta" in part:
            raise KnowledgeError(f"{rel}: [meta] belongs in {name}/{META_FILE}, not in a file of rows")
        _check_sources(part, sources, rel)
        for key, value in part.items():
            if not isinstance(value, list):
                raise KnowledgeError(f"{rel}: {key} is not an array of tables ([[{key}]] rows)")
            doc.setdefault(key, []).extend(value)
    _store(name, cache_key, doc)
    return doc


def _check_sources(doc: dict[str, Any], sources: dict[str, Any], rel: str) -> None:
    """Every row of every array of tables in ``doc`` cites a URL/path or a key of ``sources``."""
    for key, value in doc.items():
        if key == "meta" or not isinstance(value, list):
            continue
        for i, row in enumerate(value):
            if not isinstance(row, dict):
                continue
            src = row.get("source")
            if not src or not isinstance(src, (str, list)):
                raise KnowledgeError(f"{rel}: {key}[{i}] has no source")
            for s in [src] if isinstance(src, str) else src:
                if not _is_citation(s) and s not in sources:
                    raise KnowledgeError(
                        f"{rel}: {key}[{i}] cites {s!r}, which is neither a URL/path nor a key of [meta.sources]"
                    )


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
