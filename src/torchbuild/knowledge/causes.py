"""The failure cause ids that ``diagnose`` and ``verify`` name, from ``knowledge/data/causes.toml``.

A cause id (``host_compiler_unsupported``, ``out_of_memory``, ``unknown``...) is the public
name of a kind of failure: ``diagnose --json`` reports it as ``cause_id``, every signature of
``signatures/`` names one, and so do verify's findings.  The file groups the ids in
families (``toolchain``, ``cuda``, ``resources``, ``source``, ``after_build``, ``other``) and
gives each its meaning and usual fix.  A cause is a definition, not a fact about a tool: its
rows cite no source (the evidence for a cause is in the signatures).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from . import KnowledgeError, load

__all__ = ["Cause", "causes", "cause_ids", "families", "family_of", "UNKNOWN"]

#: The cause of a failure that no known cause fits.
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Cause:
    """One failure cause.

    :ivar id: the stable id (``"cuda_arch_unsupported"``).
    :ivar family: key of the file's ``[family]`` table (``"cuda"``).
    :ivar meaning: one line: what went wrong.
    :ivar fix: the usual fix, or None (``unknown`` has none).
    :ivar added: for an id that torchbuild adds to the project's cause list, why and which
        command names it; None for the ids of that list.
    """

    id: str
    family: str
    meaning: str
    fix: str | None = None
    added: str | None = None


@functools.cache
def causes() -> tuple[Cause, ...]:
    """Every cause of ``causes.toml``, in the file's order (family by family).

    :raises KnowledgeError: the file is missing or not TOML, a cause lacks ``family`` or
        ``meaning``, or names a family that ``[family]`` does not define.
    """
    doc = load("causes")
    fams = doc.get("family", {})
    out = []
    for cid, row in doc.get("cause", {}).items():
        if not isinstance(row, dict) or not row.get("meaning") or row.get("family") not in fams:
            raise KnowledgeError(f"causes.toml: cause {cid!r} needs a meaning and a family of [family]")
        out.append(
            Cause(id=cid, family=row["family"], meaning=row["meaning"], fix=row.get("fix"), added=row.get("added"))
        )
    return tuple(out)


def cause_ids() -> frozenset[str]:
    """The ids of every cause, ``unknown`` included."""
    return frozenset(c.id for c in causes())


def family_of(cause_id: str) -> str:
    """The family key of ``cause_id`` in causes.toml (``"toolchain"``, ``"cuda"``, ...), or
    ``"other"`` for an id the file does not list.

    :raises KnowledgeError: as :func:`causes`.
    """
    return _family_map().get(cause_id, "other")


@functools.cache
def _family_map() -> dict[str, str]:
    """Cause id -> family key, for :func:`family_of`."""
    return {c.id: c.family for c in causes()}


def families() -> dict[str, tuple[str, ...]]:
    """Family key -> the ids of its causes, in the file's order (``{"toolchain": (...), ...}``).

    :raises KnowledgeError: as :func:`causes`.
    """
    out: dict[str, tuple[str, ...]] = {key: () for key in load("causes").get("family", {})}
    for c in causes():
        out[c.family] += (c.id,)
    return out
