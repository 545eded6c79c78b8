"""Typed look-ups over the compatibility tables in ``knowledge/data``.

Each function answers one question and returns the row's values together with its source
(the citation text from ``[meta.sources]``) and whether the row is ``uncertain`` (then a
decision may warn but must not fail on it).  Nothing here guesses: a version the table does
not cover gives None.

Tables: ``cuda_host_compilers`` (CUDA -> GCC/Clang), ``cuda_drivers`` (CUDA -> driver),
``cuda_archs`` (CUDA -> sm_XY), ``gpus`` (GPU name -> compute capability),
``pytorch_releases`` (PyTorch -> Python, CMake, compilers, C++ standard, CUDA, extension
arches), ``domain_libraries`` (torch -> the torchvision release made for it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from packaging.version import InvalidVersion, Version

from . import load, rows

__all__ = [
    "Cited",
    "is_uncertain",
    "HostLimits",
    "DriverMinimum",
    "ArchSupport",
    "GpuModel",
    "ReleaseFacts",
    "vkey",
    "version_le",
    "version_lt",
    "major_minor",
    "host_compiler_limits",
    "driver_minimum",
    "driver_family_floor",
    "cuda_arch_support",
    "toolkits_supporting_arch",
    "gpu_model",
    "gpu_names",
    "torch_release",
    "DomainPair",
    "torchvision_for_torch",
    "torch_for_torchvision",
    "cite",
]


# ------------------------------------------------------------------ version helpers
def vkey(v: str) -> tuple[int, ...]:
    """Numeric components of a dotted version (``"12.2.0-14"`` -> ``(12, 2, 0)``).

    :raises ValueError: no leading number.
    """
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(v))
    if not m:
        raise ValueError(f"not a version: {v!r}")
    return tuple(int(x) for x in m.group(1).split("."))


def _trunc(v: str, n: int) -> tuple[int, ...]:
    k = vkey(v)[:n]
    return k + (0,) * (n - len(k))


def version_le(v: str, bound: str) -> bool:
    """``v <= bound`` compared on as many components as ``bound`` has
    (``version_le("11.4.0", "11")`` is True: "any 11.x")."""
    n = len(vkey(bound))
    return _trunc(v, n) <= vkey(bound)


def version_lt(v: str, bound: str) -> bool:
    """``v < bound`` with missing components of ``v`` as 0 (``"3.10.2" < "3.13"``)."""
    n = max(len(vkey(bound)), len(vkey(v)))
    return _trunc(v, n) < _trunc(bound, n)


def major_minor(v: str | None) -> str | None:
    """``"2.14.1+cu130"`` -> ``"2.14"``; ``"2.14.0a0+git5c48869"`` -> ``"2.14"``; None stays None."""
    if not v:
        return None
    try:
        rel = Version(v).release
    except InvalidVersion:
        try:
            rel = vkey(v)
        except ValueError:
            return None
    return f"{rel[0]}.{rel[1] if len(rel) > 1 else 0}"


# ------------------------------------------------------------------ citations
@dataclass
class Cited:
    """Base of every answer: ``source`` (full citation text), ``uncertain``, ``note``."""

    source: str = ""
    uncertain: bool = False
    note: str | None = None


def is_uncertain(row: object) -> bool:
    """The one uncertainty rule: True when ``row`` is marked ``uncertain = true``.

    ``row`` is a raw data row (a mapping read from a knowledge file), a typed answer
    (:class:`Cited` and its subclasses), or None (no row: nothing is uncertain).  A check
    whose limit comes from an uncertain row may warn, never fail
    (:func:`torchbuild.decisions.doctor.base._uncertain`).
    """
    if row is None:
        return False
    if isinstance(row, Mapping):
        return bool(row.get("uncertain", False))
    return bool(getattr(row, "uncertain", False))


def cite(table: str, row: dict[str, Any]) -> str:
    """The full citation of ``row`` of knowledge file ``table`` ("; "-joined when several)."""
    sources = load(table).get("meta", {}).get("sources", {})
    src = row.get("source", "")
    keys = [src] if isinstance(src, str) else list(src)
    return "; ".join(sources.get(k, k) for k in keys)


def _cited(table: str, row: dict[str, Any]) -> dict[str, Any]:
    return {"source": cite(table, row), "uncertain": is_uncertain(row), "note": row.get("note")}


# ------------------------------------------------------------------ host compilers
@dataclass
class HostLimits(Cited):
    """Host compilers nvcc ``cuda`` accepts.  ``*_max`` are inclusive maxima compared with
    :func:`version_le`; ``*_max_ga`` the stricter maximum of the GA release when it differs;
    ``ga_nvcc`` the nvcc build number of that GA release when known (``"11.4.48"``)."""

    cuda: str = ""
    gcc_max: str | None = None
    clang_max: str | None = None
    gcc_min: str | None = None
    clang_min: str | None = None
    gcc_max_ga: str | None = None
    clang_max_ga: str | None = None
    ga_nvcc: str | None = None


def host_compiler_limits(cuda: str) -> HostLimits | None:
    """Limits for CUDA ``cuda`` (``"11.8"`` or ``"11.8.89"``), or None when not in the table."""
    mm = major_minor(cuda)
    for row in rows("cuda_host_compilers", "limits"):
        if mm in row["cuda"]:
            return HostLimits(
                cuda=mm or cuda,
                gcc_max=row.get("gcc_max"),
                clang_max=row.get("clang_max"),
                gcc_min=row.get("gcc_min"),
                clang_min=row.get("clang_min"),
                gcc_max_ga=row.get("gcc_max_ga"),
                clang_max_ga=row.get("clang_max_ga"),
                ga_nvcc=row.get("ga_nvcc"),
                **_cited("cuda_host_compilers", row),
            )
    return None


# ------------------------------------------------------------------ drivers
@dataclass
class DriverMinimum(Cited):
    """Minimum driver of toolkit ``cuda`` (GA release) and of its updates (label -> driver)."""

    cuda: str = ""
    min_driver: str = ""
    updates: dict[str, str] = field(default_factory=dict)


def driver_minimum(cuda: str) -> DriverMinimum | None:
    """Table 3 row for ``cuda`` (major.minor), or None."""
    mm = major_minor(cuda)
    if mm is None:  # not a version: no row
        return None
    for row in rows("cuda_drivers", "toolkits"):
        if row["cuda"] == mm:
            return DriverMinimum(
                cuda=mm,
                min_driver=row["min_driver"],
                updates=dict(row.get("updates", {})),
                **_cited("cuda_drivers", row),
            )
    return None


def driver_family_floor(cuda: str) -> DriverMinimum | None:
    """Minor-version-compatibility floor of ``cuda``'s major (any 12.x runs on >= 525.60.13)."""
    try:
        major = vkey(cuda)[0]
    except ValueError:
        return None
    for row in rows("cuda_drivers", "families"):
        if row["major"] == major:
            return DriverMinimum(cuda=str(major), min_driver=row["min_driver"], **_cited("cuda_drivers", row))
    return None


# ------------------------------------------------------------------ archs
@dataclass
class ArchSupport(Cited):
    """Real archs of toolkit ``cuda``: ``oldest``..``newest`` compute capabilities, or the
    exact ``archs`` list when known."""

    cuda: str = ""
    oldest: str = ""
    newest: str = ""
    archs: list[str] | None = None

    def supports(self, cc: str) -> bool:
        """True when a GPU of compute capability ``cc`` (``"8.9"``) gets SASS from this nvcc."""
        if self.archs is not None:
            return cc in self.archs
        return vkey(self.oldest) <= vkey(cc) <= vkey(self.newest)

    def describe(self) -> str:
        """``sm_75-sm_121`` style range for messages."""
        return f"{sm(self.oldest)}-{sm(self.newest)}"


def sm(cc: str) -> str:
    """``"8.9"`` -> ``"sm_89"``, ``"9.0a"`` -> ``"sm_90a"``."""
    return "sm_" + cc.replace(".", "")


def cuda_arch_support(cuda: str) -> ArchSupport | None:
    """The accepted real archs of CUDA ``cuda`` (major.minor), or None."""
    mm = major_minor(cuda)
    if mm is None:  # not a version: no row
        return None
    for row in rows("cuda_archs", "archs"):
        if mm in row["cuda"]:
            return ArchSupport(
                cuda=mm, oldest=row["oldest"], newest=row["newest"], archs=row.get("archs"), **_cited("cuda_archs", row)
            )
    return None


def toolkits_supporting_arch(cc: str) -> list[str]:
    """CUDA versions (major.minor, oldest first) whose nvcc compiles for ``cc`` (certain rows only)."""
    out: list[str] = []
    for row in rows("cuda_archs", "archs"):
        if is_uncertain(row):
            continue
        a = ArchSupport(oldest=row["oldest"], newest=row["newest"], archs=row.get("archs"))
        if a.supports(cc):
            out += row["cuda"]
    return sorted(set(out), key=vkey)


# ------------------------------------------------------------------ GPUs
@dataclass
class GpuModel(Cited):
    """A GPU model row: compute capability ``cc`` and ``family``."""

    cc: str = ""
    family: str = ""


@functools.cache
def _gpu_patterns() -> list[tuple[re.Pattern[str], dict[str, Any]]]:
    out = []
    for row in rows("gpus", "gpus"):
        for pat in row["match"]:
            out.append((re.compile(pat, re.IGNORECASE), row))
    return out


def gpu_model(name: str) -> GpuModel | None:
    """The compute capability of the GPU called ``name`` (first matching row), or None."""
    for pat, row in _gpu_patterns():
        if pat.search(name):
            return GpuModel(cc=row["cc"], family=row["family"], **_cited("gpus", row))
    return None


def gpu_names() -> list[str]:
    """Example names of every known GPU model (for "did you mean")."""
    return [e for row in rows("gpus", "gpus") for e in row.get("examples", [])]


# ------------------------------------------------------------------ PyTorch releases
@dataclass
class ReleaseFacts:
    """What PyTorch ``torch`` (major.minor) needs; each part is None when the table has no
    row for it.  Parts are dicts with their values plus ``source``/``uncertain``/``note``."""

    torch: str
    python: dict[str, Any] | None = None
    cmake: dict[str, Any] | None = None
    cmake_breaks: dict[str, Any] | None = None
    compiler: dict[str, Any] | None = None
    cxx_standard: dict[str, Any] | None = None
    cuda: dict[str, Any] | None = None
    extension_arches: dict[str, Any] | None = None

    @property
    def known(self) -> bool:
        """True when at least one table covers this release."""
        return any(
            getattr(self, k) is not None
            for k in ("python", "cmake", "compiler", "cxx_standard", "cuda", "extension_arches")
        )


def torch_release(version: str) -> ReleaseFacts:
    """Everything the tables know about PyTorch ``version`` (``"2.4"``, ``"2.14.1+cu130"``)."""
    mm = major_minor(version) or version
    out = ReleaseFacts(torch=mm)
    doc = load("pytorch_releases")
    for table in ("python", "cmake", "cmake_breaks", "compiler", "cxx_standard", "cuda", "extension_arches"):
        for row in doc.get(table, []):
            if mm in row.get("torch", []):
                vals = {k: v for k, v in row.items() if k not in ("torch", "source", "uncertain", "note")}
                vals.update(_cited("pytorch_releases", row))
                setattr(out, table, vals)
                break
    return out


def known_releases() -> list[str]:
    """Every PyTorch major.minor some table row names, oldest first."""
    doc = load("pytorch_releases")
    seen = {t for table in doc.values() if isinstance(table, list) for row in table for t in row.get("torch", [])}
    return sorted(seen, key=vkey)


# ------------------------------------------------------------------ domain libraries
@dataclass
class DomainPair(Cited):
    """A torch release (major.minor, ``"2.2"``) and the torchvision releases made for it
    (``("0.17",)``; ``("0.4.2", "0.4.3")`` for torch 1.3), from torchvision's own table (torch 1.1-2.3)
    and PyTorch's "PyTorch Versions" wiki page (torch 2.4-2.7); ``source`` names which."""

    torch: str = ""
    torchvision: tuple[str, ...] = ()


def _pairs() -> list[DomainPair]:
    return [
        DomainPair(torch=row["torch"], torchvision=tuple(row["torchvision"]), **_cited("domain_libraries", row))
        for row in rows("domain_libraries", "torchvision")
    ]


def _same_release(version: str, release: str) -> bool:
    """``version`` (``"0.13.1+cu113"``) is release ``release`` (``"0.13"``, ``"0.4.2"``): equal on
    the release's own number of parts."""
    try:
        n = len(vkey(release))
        return vkey(version)[:n] == vkey(release)
    except ValueError:
        return False


def torchvision_for_torch(torch_version: str) -> DomainPair | None:
    """The torchvision release(s) made for torch ``torch_version`` (``"2.1.2+cu121"``), or None when
    the table has no row for that torch (2.8 and later, 1.0 and earlier: not read)."""
    mm = major_minor(torch_version)
    return next((p for p in _pairs() if p.torch == mm), None)


def torch_for_torchvision(torchvision_version: str) -> DomainPair | None:
    """The torch release torchvision ``torchvision_version`` (``"0.17.0"``) was made for, or None
    when the table has no row for it."""
    return next((p for p in _pairs() if any(_same_release(torchvision_version, r) for r in p.torchvision)), None)
