"""Is a PyTorch tree complete?  Which third-party components does a build need, where does each
come from (the tree, an embedded copy, the system), and what is missing or too old.

Pure functions over facts (:class:`SourceTree`, :class:`SystemLibs`) and the component data
(:mod:`torchbuild.knowledge.components`, ``knowledge/data/pytorch_components.toml``).
Used by ``torchbuild source check``, doctor's ``submodules``/``system_libs`` findings and the
``--system-libs`` part of the plan.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ..facts.model import SourceTree, SystemLibs
from ..knowledge import compat
from ..knowledge.components import Component, cite, components_for, pin_for
from .cmake_cond import cmake_bool

__all__ = ["ComponentStatus", "SourceReport", "check_components", "debian_older"]


@dataclass
class ComponentStatus:
    """One component of one tree.

    ``state``: ``"present"`` (in the tree, at its recorded commit when git says so),
    ``"embedded"`` (an alternative copy in the tree, e.g. ``debian/pocketfft``), ``"unused"`` (the
    tree's CMake files no longer refer to it, as after Debian's patches), ``"system"``
    (a system copy will be used: ``--system-libs`` and a provider installed), ``"off"`` (the
    feature that needs it is off), ``"missing"``, ``"modified"`` (a git submodule at another
    commit than the tree records), ``"too-old"`` (the system copy is older than the release
    needs).  ``provider``: where it comes from (``"third_party/pybind11"``,
    ``"apt: libcpuinfo-dev 0.0~git20220617..."``, ``"pip: pybind11 2.13.6"``).  ``install``:
    packages that would provide it, by manager (``{"apt-get": ["libsleef-dev"], "pip": [...]}``).
    """

    name: str
    path: str
    feature: str
    state: str
    provider: str = ""
    system_switch: str = ""
    detail: str = ""
    install: dict[str, list[str]] = field(default_factory=dict)
    min_version: str = ""
    source: str = ""

    @property
    def ok(self) -> bool:
        """True when the build has what it needs from this component."""
        return self.state in ("present", "embedded", "system", "off", "unused", "worked-around")


@dataclass
class SourceReport:
    """The result of :func:`check_components`: ``release`` (major.minor), ``git`` (the tree is a
    git checkout with ``.gitmodules``), ``components`` in data order, ``install_commands`` (one
    command line per package manager for everything missing that a package provides) and
    ``turned_off`` (``{"USE_KINETO": "why"}``: features ``--system-libs`` turns off)."""

    tree: str
    release: str
    git: bool
    system_libs: bool
    components: list[ComponentStatus] = field(default_factory=list)
    install_commands: list[str] = field(default_factory=list)
    turned_off: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every component is present, embedded, provided by the system, or off."""
        return all(c.ok for c in self.components)

    def missing(self) -> list[ComponentStatus]:
        """Components the build lacks (missing, modified or too old)."""
        return [c for c in self.components if not c.ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``complete`` included)."""
        d = asdict(self)
        d["complete"] = self.complete
        return d


def debian_older(installed: str, minimum: str) -> bool | None:
    """True when Debian version ``installed`` is older than ``minimum`` (dpkg ordering, via
    python-debian's :class:`debian.debian_support.Version`); None when either does not parse."""
    try:
        from debian.debian_support import Version
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        return bool(Version(installed) < Version(minimum))
    except ValueError:
        return None


def _feature_on(comp: Component, options: Mapping[str, str], defaults: Mapping[str, str]) -> bool:
    if not comp.feature:
        return True

    def on(name: str) -> bool:
        v = options.get(name.strip(), defaults.get(name.strip()))
        return cmake_bool(v) is not False

    if "&" in comp.feature:  # "USE_A&USE_B": needed when all are on
        return all(on(n) for n in comp.feature.split("&"))
    return any(on(n) for n in comp.feature.split("|"))  # "USE_A|USE_B": when any is on


def _system_provider(comp: Component, libs: SystemLibs | None) -> tuple[str, str] | None:
    """(provider text, installed Debian version or "") of a system copy, or None."""
    if libs is None:
        return None
    # the build interpreter's site-packages come first: PyTorch's setup.py puts them on
    # CMAKE_PREFIX_PATH, so CMake's find_package finds a PyPI copy before /usr
    for dist in comp.pypi:
        if dist in libs.pypi:
            return f"pip: {dist} {libs.pypi[dist]}", ""
    for pkg in comp.debian:
        if pkg in libs.debian:
            return f"apt: {pkg} {libs.debian[pkg]}", libs.debian[pkg]
    if comp.header and comp.header in libs.headers:
        return f"header {libs.headers[comp.header]}", ""
    return None


def _install_for(comp: Component, manager: str | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if comp.debian and manager in (None, "apt-get"):
        out["apt-get"] = list(comp.debian[:1])
    if comp.pypi:
        out["pip"] = list(comp.pypi[:1])
    return out


def check_components(
    tree: SourceTree,
    release: str,
    *,
    system_libs: bool = False,
    libs: SystemLibs | None = None,
    options: Mapping[str, str] | None = None,
    python: str = "python",
    is_root: bool = True,
    worked_around: Mapping[str, str] | None = None,
) -> SourceReport:
    """Judge a PyTorch tree's third-party components for one release.

    :param tree: the tree's facts (``vendored`` folders, ``submodules`` with git states).
    :param release: major.minor (``"2.6"``) whose components apply.
    :param system_libs: the build uses system copies where the tree lacks a component
        (``--system-libs``); without it a missing component is missing.
    :param libs: the system's copies (None: not probed).
    :param options: the plan's ``USE_*`` values (``{"USE_KINETO": "0"}``); others take the
        tree's CMake defaults.
    :param python: the build interpreter, named in the ``pip install`` command.
    :param is_root: the user is root (no ``sudo`` in front of ``apt-get``).
    :param worked_around: component name -> id of a selected workaround that makes its too-old
        system copy usable (state ``"worked-around"``).
    :returns: :class:`SourceReport`.  Pure: reads only its arguments and the data.
    """
    options = dict(options or {})
    defaults = {o.name: o.default for o in tree.cmake_options}
    vendored = set(tree.vendored)
    subs = {s.path: s for s in tree.submodules}
    git = bool(tree.submodules)
    report = SourceReport(tree=tree.path, release=release, git=git, system_libs=system_libs)
    for comp in components_for(release):
        pin = pin_for(comp.name, release)
        src = cite(comp.source)
        st = ComponentStatus(
            name=comp.name,
            path=comp.path,
            feature=comp.feature,
            state="missing",
            system_switch=comp.system_switch,
            source=src,
        )
        sub = subs.get(comp.path)
        alt = next((a for a in comp.alt_paths if a in vendored), None)
        first = "/".join(comp.path.split("/")[:2])
        if not _feature_on(comp, options, defaults):
            st.state, st.detail = "off", f"{comp.feature} is off"
        elif sub is not None and sub.present:
            st.provider = comp.path
            if sub.state == "modified":
                st.state = "modified"
                st.detail = f"checked out at {sub.sha[:12] if sub.sha else '?'}, not at the commit the tree records"
            else:
                st.state = "present"
        elif comp.path in vendored:
            st.state, st.provider = "present", comp.path
        elif alt is not None:
            st.state, st.provider, st.detail = "embedded", alt, f"embedded copy at {alt}"
        elif (
            tree.cmake_refs
            and comp.path.startswith("third_party/")
            and first not in tree.cmake_refs
            and comp.path not in vendored
        ):
            st.state = "unused"
            st.detail = "the tree's CMake files do not refer to it (patched to use another copy)"
        elif system_libs and (comp.system_switch or (comp.header_only and comp.header)):
            found = _system_provider(comp, libs)
            if found is None:
                st.install = _install_for(comp, libs.package_manager if libs else None)
                st.detail = "no system copy installed" if st.install else "no package provides it"
            else:
                st.provider, deb_version = found
                st.state = "system"
                if pin is not None and pin.min_debian and deb_version:
                    older = debian_older(deb_version, pin.min_debian)
                    if older and pin.known_failure:
                        st.state, st.min_version = "too-old", pin.min_debian
                        st.detail = f"older than {pin.min_debian}; with it the build fails: {pin.known_failure}"
                    elif older:
                        st.min_version = pin.min_debian
                        st.detail = (
                            f"older than {pin.min_debian}, the minimum Debian's PyTorch {release} package "
                            "asks for; no failure with it is known to torchbuild"
                        )
                    if older:
                        st.source = cite(pin.source)
                    if st.state == "too-old" and comp.name in (worked_around or {}):
                        st.state = "worked-around"
                        st.detail += f"; workaround {(worked_around or {})[comp.name]} is applied"
        else:
            if system_libs and not comp.system_switch and not comp.header_only:
                st.detail = "PyTorch has no USE_SYSTEM_* switch for it"
        if (
            st.state == "missing"
            and system_libs
            and comp.feature
            and not st.install
            and not ({"USE_CUDA", "USE_ROCM"} & {f.strip() for f in re.split(r"[|&]", comp.feature)})
        ):
            # a feature with no way to get its component: --system-libs turns it off
            feats = comp.feature.split("&")[-1:] if "&" in comp.feature else comp.feature.split("|")
            for feat in feats:
                report.turned_off[feat.strip()] = f"{comp.path} is not in the tree and has no system package ({src})"
            st.state, st.detail = "off", f"turned off by --system-libs ({comp.feature}=0): {st.detail or 'no provider'}"
        report.components.append(st)
    covered = {c.path for c in report.components}
    for sub in tree.submodules:  # submodules the data does not list: judged by git alone
        if sub.path in covered:
            continue
        state = "missing" if not sub.present else ("modified" if sub.state == "modified" else "present")
        report.components.append(
            ComponentStatus(
                name=sub.name or sub.path,
                path=sub.path,
                feature="",
                state=state,
                provider=sub.path if sub.present else "",
                detail="listed in .gitmodules",
                source=".gitmodules",
            )
        )
    apt = sorted({p for c in report.components if c.state == "missing" for p in c.install.get("apt-get", [])})
    pip = sorted({p for c in report.components if c.state == "missing" for p in c.install.get("pip", [])})
    if apt:
        report.install_commands.append(("" if is_root else "sudo ") + "apt-get install " + " ".join(apt))
    if pip:
        report.install_commands.append(f"{python} -m pip install " + " ".join(pip))
    return report


def known_release(version: str | None) -> str | None:
    """major.minor of ``version`` when the component data covers it, else None."""
    if not version:
        return None
    mm = compat.major_minor(version)
    return mm if mm and components_for(mm) else None
