"""Which manylinux policy a set of compiled files fits (pure; policy data from auditwheel).

A file fits a policy when every symbol version it requires whose family the policy
constrains (``GLIBC_2.28`` -> family ``GLIBC``, ``CXXABI_1.3.11`` -> ``CXXABI``) is in the
policy's allowed set, which is auditwheel's rule for symbol versions (its
``policy/__init__.py``).  Versions of other families (``GOMP_4.0``, ``OMP_1.0``,
``CUDART_12``) do not constrain the policy.  Libraries a file needs that are neither in the
policy's whitelist nor shipped in the package are reported separately: auditwheel repair
would have to bundle them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..knowledge.manylinux import ManylinuxPolicy

__all__ = ["FAMILIES", "PolicyFit", "fit_policy", "newest_versions"]

#: The symbol-version families reported (newest required) by ``package inspect``.
FAMILIES = ("GLIBC", "GLIBCXX", "CXXABI", "GCC")


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))


def newest_versions(version_needs: Iterable[Mapping[str, Iterable[str]]]) -> dict[str, str]:
    """``{"GLIBC": "2.28", "GLIBCXX": "3.4.22", "CXXABI": "1.3.11", "GCC": "4.2.0"}``: the newest
    numeric version of each family in :data:`FAMILIES` required by any of the files.

    :param version_needs: per file, ``{library: [version names]}`` (``ElfInfo.version_needs``).
    """
    best: dict[str, str] = {}
    for needs in version_needs:
        for versions in needs.values():
            for name in versions:
                fam, _, rest = name.partition("_")
                if (
                    fam in FAMILIES
                    and re.fullmatch(r"\d+(?:\.\d+)*", rest)
                    and (fam not in best or _vkey(rest) > _vkey(best[fam]))
                ):
                    best[fam] = rest
    return best


@dataclass
class PolicyFit:
    """The result of :func:`fit_policy`.

    :ivar policy: the oldest (most compatible) policy every file fits, ``"manylinux_2_28"``,
        or None when none fits (e.g. ``GLIBC_PRIVATE`` or a glibc newer than any policy).
    :ivar aliases: that policy's legacy names.
    :ivar blocking: for the next older policy, the versions that keep the files out of it.
    :ivar external: sonames needed, not in the policy's whitelist and not in the package.
    """

    policy: str | None
    aliases: list[str] = field(default_factory=list)
    blocking: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)


def _violations(policy: ManylinuxPolicy, names: set[str]) -> list[str]:
    bad = []
    for name in sorted(names):
        fam, _, rest = name.partition("_")
        allowed = policy.symbol_versions.get(fam)
        if allowed is not None and rest not in allowed:
            bad.append(name)
    return bad


def fit_policy(
    version_needs: Iterable[Mapping[str, Iterable[str]]],
    needed: Iterable[str],
    shipped: Iterable[str],
    policies: Iterable[ManylinuxPolicy],
) -> PolicyFit:
    """The oldest policy that all files fit.

    :param version_needs: per file, ``{library: [version names]}``.
    :param needed: every ``DT_NEEDED`` soname of the files.
    :param shipped: sonames (file names) present in the package itself.
    :param policies: from :func:`torchbuild.knowledge.manylinux.load_policies`, oldest first.
    """
    names: set[str] = set()
    for needs in version_needs:
        for versions in needs.values():
            names.update(versions)
    ordered = sorted(policies, key=lambda p: -p.priority)
    chosen: ManylinuxPolicy | None = None
    blocking: list[str] = []
    for p in ordered:
        bad = _violations(p, names)
        if not bad:
            chosen = p
            break
        blocking = bad
    shipped_set = set(shipped)
    wl = chosen.whitelist if chosen else (ordered[-1].whitelist if ordered else frozenset())
    external = sorted({n for n in needed if n not in shipped_set and n not in wl})
    return PolicyFit(
        policy=chosen.name if chosen else None,
        aliases=list(chosen.aliases) if chosen else [],
        blocking=blocking[:8],
        external=external,
    )
