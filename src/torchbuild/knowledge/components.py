"""Typed look-ups over ``knowledge/data/pytorch_components.toml``: the third-party components a
PyTorch release's build uses, and over ``knowledge/data/workarounds.toml``: known fixes per release.

A component row says where the component lives in the tree (``third_party/pybind11``), its
upstream repository, which releases list it in their ``.gitmodules``, the ``USE_*`` option
that needs it, its ``USE_SYSTEM_*`` switch, and the Debian and PyPI packages that can provide
it.  A pin row gives, for one release, the commit the tag records, its upstream version and
the minimum Debian package version the release's Debian packaging requires.  Every row names
its source (see the file's ``[meta.sources]``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from . import load

__all__ = [
    "Component",
    "Pin",
    "Workaround",
    "components_for",
    "component_releases",
    "pin_for",
    "workarounds_for",
    "cite",
]


@dataclass(frozen=True)
class Component:
    """One third-party component of a PyTorch build.

    ``feature``: the ``USE_*`` option that needs it (``""``: every build needs it);
    ``system_switch``: its ``USE_SYSTEM_*`` CMake option (``""``: no system build possible);
    ``in_system_libs``: ``USE_SYSTEM_LIBS=ON`` turns ``system_switch`` on; ``debian``/``pypi``:
    packages that provide it; ``header``: a header (relative to an include folder) whose presence
    shows a system copy; ``source``: citation keys.
    """

    name: str
    path: str
    repo: str = ""
    releases: tuple[str, ...] = ()
    feature: str = ""
    system_switch: str = ""
    in_system_libs: bool = False
    debian: tuple[str, ...] = ()
    pypi: tuple[str, ...] = ()
    header: str = ""
    pkgconfig: str = ""
    #: a header-only library: a system copy on the default include path is used without any switch
    header_only: bool = False
    #: other places in a tree that hold a copy (``debian/pocketfft`` in Debian's source package)
    alt_paths: tuple[str, ...] = ()
    source: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pin:
    """What release ``release`` records for ``component``: ``commit`` (40 hex, ``""`` unknown),
    upstream ``version`` and ``min_debian`` (a Debian version string, ``""`` none), cited by ``source``."""

    component: str
    release: str
    commit: str = ""
    version: str = ""
    min_debian: str = ""
    #: the failure an older system copy is known to cause (the compiler's words); "" when the
    #: minimum is only what Debian's packaging asks for (then doctor warns instead of stopping)
    known_failure: str = ""
    source: tuple[str, ...] = ()


@dataclass(frozen=True)
class Workaround:
    """A known fix for one release (``knowledge/data/workarounds.toml``).

    ``kind``: ``"setting"`` (``settings``: KEY -> VALUE added to the plan), ``"patch"`` (``patch``:
    a file in ``knowledge/data/patches/`` applied with ``patch -p1`` after a dry run), or
    ``"flatc"`` (regenerate a FlatBuffers header with the system ``flatc``).  ``when``: the
    condition that selects it (see :mod:`torchbuild.decisions.workarounds`); ``why``: the failure
    it prevents, in the words of the log; ``undo``: how to reverse it.
    """

    id: str
    releases: tuple[str, ...]
    kind: str
    when: dict[str, str]
    why: str
    settings: dict[str, str] = field(default_factory=dict)
    patch: str = ""
    files: tuple[str, ...] = ()
    undo: str = ""
    #: the component whose too-old system copy this works around ("" none)
    component: str = ""
    source: tuple[str, ...] = ()


def _tuple(v: object) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,) if v else ()
    return tuple(str(x) for x in v)  # type: ignore[union-attr]


@functools.cache
def _components() -> tuple[Component, ...]:
    doc = load("pytorch_components")
    out = []
    for r in doc.get("component", []):
        out.append(
            Component(
                name=r["name"],
                path=r["path"],
                repo=r.get("repo", ""),
                releases=_tuple(r.get("releases")),
                feature=r.get("feature", ""),
                system_switch=r.get("system_switch", ""),
                in_system_libs=bool(r.get("in_system_libs", False)),
                debian=_tuple(r.get("debian")),
                pypi=_tuple(r.get("pypi")),
                header=r.get("header", ""),
                pkgconfig=r.get("pkgconfig", ""),
                header_only=bool(r.get("header_only", False)),
                alt_paths=_tuple(r.get("alt_paths")),
                source=_tuple(r.get("source")),
            )
        )
    return tuple(out)


@functools.cache
def _pins() -> tuple[Pin, ...]:
    doc = load("pytorch_components")
    return tuple(
        Pin(
            component=r["component"],
            release=r["release"],
            commit=r.get("commit", ""),
            version=r.get("version", ""),
            min_debian=r.get("min_debian", ""),
            known_failure=r.get("known_failure", ""),
            source=_tuple(r.get("source")),
        )
        for r in doc.get("pin", [])
    )


def component_releases() -> list[str]:
    """Every major.minor release some component row names, oldest first."""
    from .compat import vkey

    return sorted({rel for c in _components() for rel in c.releases}, key=vkey)


def components_for(release: str) -> list[Component]:
    """The components release ``release`` (``"2.6"``) lists, in file order; ``[]`` for a
    release the data does not cover."""
    return [c for c in _components() if release in c.releases]


def pin_for(component: str, release: str) -> Pin | None:
    """The pin row for ``component`` at ``release``, or None."""
    return next((p for p in _pins() if p.component == component and p.release == release), None)


def cite(keys: tuple[str, ...] | list[str], name: str = "pytorch_components") -> str:
    """The citation texts of ``keys`` in knowledge file ``name``, joined with ``; ``."""
    sources = load(name).get("meta", {}).get("sources", {})
    return "; ".join(sources.get(k, k) for k in keys)


@functools.cache
def _workarounds() -> tuple[Workaround, ...]:
    doc = load("workarounds")
    return tuple(
        Workaround(
            id=r["id"],
            releases=_tuple(r.get("releases")),
            kind=r["kind"],
            when=dict(r.get("when", {})),
            why=r.get("why", ""),
            settings={k: str(v) for k, v in r.get("settings", {}).items()},
            patch=r.get("patch", ""),
            files=_tuple(r.get("files")),
            undo=r.get("undo", ""),
            component=r.get("component", ""),
            source=_tuple(r.get("source")),
        )
        for r in doc.get("workaround", [])
    )


def workarounds_for(release: str) -> list[Workaround]:
    """Workarounds whose ``releases`` include ``release`` (``"2.6"``), in file order."""
    return [w for w in _workarounds() if release in w.releases]
