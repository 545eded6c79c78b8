"""The compile cache's line in the build summary, and the compilers a build used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def summary_line(entry: Mapping[str, Any] | None) -> str:
    """``cache sccache (local): 22 hits, 0 misses, 100% hit rate`` for the build summary,
    or ``""`` when no cache was used."""
    if not entry or entry.get("tool") in (None, "none"):
        if entry and entry.get("distribute"):
            return f"distributed with {entry['distribute']} ({entry.get('hosts')})"
        return ""
    backend = entry.get("backend") or "local"
    if entry.get("url") and backend == "redis":
        backend = str(entry["url"])
    parts = [f"cache {entry['tool']} ({backend})"]
    if entry.get("hits") is None:
        parts.append("statistics unavailable")
    else:
        rate = entry.get("hit_rate")
        parts.append(
            f"{entry['hits']} hits, {entry['misses']} misses"
            + (f", {rate * 100:.0f}% hit rate" if rate is not None else "")
            + (f", {entry['errors']} cache errors" if entry.get("errors") else "")
        )
    if entry.get("distribute"):
        parts.append(f"distributed with {entry['distribute']}")
    return ": ".join(parts[:2]) + ("; " + "; ".join(parts[2:]) if len(parts) > 2 else "")


def compilers_of(facts: Any) -> dict[str, Any]:
    """The compilers a build uses, for the record: ``cc``/``cxx`` (path, kind, version,
    the variable that chose it) and ``nvcc`` (path, version), from :class:`Facts`."""
    out: dict[str, Any] = {}
    for key in ("cc", "cxx"):
        c = getattr(facts, key, None)
        if c is not None:
            out[key] = {"path": c.path, "kind": c.kind, "version": c.version, "from_env": c.from_env}
    cuda = getattr(facts, "cuda", None)
    if cuda is not None and cuda.nvcc:
        out["nvcc"] = {"path": cuda.nvcc, "version": cuda.full_version or cuda.version}
    return out
