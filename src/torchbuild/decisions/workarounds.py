"""Which known workarounds (``knowledge/data/workarounds.toml``) a build needs.

Pure: the conditions are evaluated on facts the caller collected (the tree, the system
libraries, the CMake version) and the plan's choice of system libraries.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..facts.model import SourceTree, SystemLibs
from ..knowledge.compat import version_lt
from ..knowledge.components import Workaround, cite, workarounds_for

__all__ = ["Selected", "select_workarounds", "worked_around"]


@dataclass
class Selected:
    """A workaround that applies, with ``reason``: the facts that made its condition true."""

    workaround: Workaround
    reason: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: id, kind, settings, patch, files, why, reason, undo, source (citation text)."""
        w = self.workaround
        return {
            "id": w.id,
            "kind": w.kind,
            "settings": dict(w.settings),
            "patch": w.patch,
            "files": list(w.files),
            "component": w.component,
            "why": w.why,
            "reason": self.reason,
            "undo": w.undo,
            "source": cite(w.source, "workarounds"),
        }


def _holds(
    key: str, value: str, tree: SourceTree, libs: SystemLibs | None, system_libs: bool, cmake_version: str | None
) -> str | None:
    """The reason text when condition ``key = value`` holds, else None."""
    if key == "system_libs":
        return "--system-libs" if system_libs == (value == "on") else None
    if key == "header_lacks":
        header, _, symbol = value.partition(":")
        if libs is None or header not in libs.headers:
            return None
        declared = libs.symbols.get(value)
        return f"{libs.headers[header]} does not declare {symbol}" if declared is False else None
    if key == "flatc_differs":
        want = tree.flatbuffers_headers.get(value)
        if libs is None or not libs.flatc or not want or "third_party/flatbuffers" in tree.vendored:
            return None
        return f"{value} asserts FlatBuffers {want}, the system flatc is {libs.flatc}" if want != libs.flatc else None
    if key == "install_rpath":
        return (
            f"cmake/Dependencies.cmake sets CMAKE_INSTALL_RPATH {tree.install_rpath}"
            if tree.install_rpath is not None and tree.install_rpath == value
            else None
        )
    if key == "cmake_from":
        if not cmake_version:
            return None
        return None if version_lt(cmake_version, value) else f"CMake {cmake_version} (>= {value})"
    return None


def select_workarounds(
    release: str, tree: SourceTree, libs: SystemLibs | None, *, system_libs: bool, cmake_version: str | None
) -> list[Selected]:
    """The workarounds of ``release`` whose every ``when`` condition holds.

    :param release: major.minor (``"2.6"``).
    :param tree: the tree's facts (FlatBuffers header versions, vendored folders).
    :param libs: system libraries (None: not probed; conditions on them are false).
    :param system_libs: the plan builds against system libraries.
    :param cmake_version: the CMake that will configure (``"3.25.1"``) or None.
    :returns: selected workarounds in data order, each with its reason.
    """
    out: list[Selected] = []
    for w in workarounds_for(release):
        reasons = [_holds(k, v, tree, libs, system_libs, cmake_version) for k, v in w.when.items()]
        if reasons and all(r is not None for r in reasons):
            out.append(Selected(w, "; ".join(r for r in reasons if r)))
    return out


def worked_around(selected: list[Selected]) -> dict[str, str]:
    """Component name -> id of the selected workaround that makes its too-old system copy usable."""
    return {s.workaround.component: s.workaround.id for s in selected if s.workaround.component}
