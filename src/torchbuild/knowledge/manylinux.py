"""manylinux policies, from auditwheel's own policy data (not a table of ours).

auditwheel (https://github.com/pypa/auditwheel, ``src/auditwheel/policy/manylinux-policy.json``)
ships, for each PEP 600 policy (``manylinux_2_17`` alias ``manylinux2014``, ...), the symbol
versions a wheel's compiled files may require per architecture (``GLIBC``, ``GLIBCXX``,
``CXXABI``, ``GCC``, ``ZLIB``, ``LIBATOMIC``) and the libraries it may link without
bundling them (``lib_whitelist``).  :func:`load_policies` reads that file from the installed
auditwheel (a torchbuild dependency) and names the auditwheel version it came from.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import metadata, resources

__all__ = ["ManylinuxPolicy", "load_policies", "policy_source"]


@dataclass(frozen=True)
class ManylinuxPolicy:
    """One manylinux policy for one architecture.

    :ivar name: ``"manylinux_2_28"`` (no architecture suffix).
    :ivar aliases: legacy names (``["manylinux2014"]``).
    :ivar priority: auditwheel's priority; higher = older, more widely compatible.
    :ivar symbol_versions: ``{"GLIBC": {"2.2.5", ...}, "GLIBCXX": {...}, ...}``.
    :ivar whitelist: sonames a wheel may link without bundling (``libc.so.6``, ``libm.so.6``...).
    """

    name: str
    aliases: tuple[str, ...]
    priority: int
    symbol_versions: dict[str, frozenset[str]] = field(hash=False)
    whitelist: frozenset[str] = field(hash=False)


def policy_source() -> str:
    """Where the policy data comes from: ``"auditwheel 6.8.2, policy/manylinux-policy.json"``."""
    try:
        ver = metadata.version("auditwheel")
    except metadata.PackageNotFoundError:  # pragma: no cover - a declared dependency
        ver = "?"
    return f"auditwheel {ver}, src/auditwheel/policy/manylinux-policy.json"


@functools.cache
def load_policies(arch: str = "x86_64") -> tuple[ManylinuxPolicy, ...]:
    """The manylinux policies auditwheel knows for ``arch``, newest-compatible-last order
    (highest priority = oldest glibc first).

    :raises RuntimeError: auditwheel (a dependency of torchbuild) is not installed.
    """
    try:
        text = (resources.files("auditwheel") / "policy" / "manylinux-policy.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise RuntimeError(
            "auditwheel's policy data is missing: `pip install auditwheel` (a torchbuild dependency)"
        ) from exc
    out = []
    for p in json.loads(text):
        versions = p.get("symbol_versions", {}).get(arch)
        if p["name"] == "linux" or versions is None:
            continue
        out.append(
            ManylinuxPolicy(
                name=p["name"],
                aliases=tuple(p.get("aliases", [])),
                priority=int(p["priority"]),
                symbol_versions={k: frozenset(v) for k, v in versions.items()},
                whitelist=frozenset(p.get("lib_whitelist", [])),
            )
        )
    return tuple(sorted(out, key=lambda q: -q.priority))
