"""The part of a PyTorch plan that depends on where third-party code comes from:
``--system-libs`` (the ``USE_SYSTEM_*`` switches, features turned off, packages to install)
and the known workarounds of the tree's release.  Pure; called by :func:`make_plan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..facts.model import Facts
from .components import SourceReport, check_components, known_release
from .workarounds import Selected, select_workarounds, worked_around

__all__ = ["SourceSettings", "source_settings"]


@dataclass
class SourceSettings:
    """``options``: KEY -> (value, where it came from) to add to the plan; ``report``: the
    component check (None when the tree's release is not in the data); ``workarounds``:
    selected workarounds; ``notes``/``warnings``: lines for the plan."""

    options: dict[str, tuple[str, str]] = field(default_factory=dict)
    report: SourceReport | None = None
    workarounds: list[Selected] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def source_settings(facts: Facts, *, system_libs: bool, options: Mapping[str, str], python: str) -> SourceSettings:
    """Resolve the settings for a PyTorch tree's third-party code.

    :param facts: facts with ``source`` (a pytorch tree) and, for ``system_libs``,
        ``system_libs`` (probed system copies).
    :param system_libs: the user asked for ``--system-libs``.
    :param options: the plan's options so far (``{"USE_KINETO": "0"}``).
    :param python: the build interpreter.
    :returns: :class:`SourceSettings`.
    """
    out = SourceSettings()
    src = facts.source
    if src is None:
        return out
    release = known_release(src.version)
    if release is None:
        if system_libs:
            out.warnings.append(
                f"--system-libs: PyTorch {src.version} is not in torchbuild's component data, so no "
                "USE_SYSTEM_* switch is chosen; only USE_SYSTEM_LIBS=ON is set."
            )
            out.options["USE_SYSTEM_LIBS"] = ("ON", "--system-libs")
        return out
    libs = facts.system_libs
    cmake = facts.tools.get("cmake")
    sel = select_workarounds(
        release, src, libs, system_libs=system_libs, cmake_version=cmake.version if cmake is not None else None
    )
    report = check_components(
        src,
        release,
        system_libs=system_libs,
        libs=libs,
        options=options,
        python=python,
        is_root=facts.os.root is True,
        worked_around=worked_around(sel),
    )
    out.report = report
    if system_libs:
        for c in report.components:
            if c.state in ("system", "too-old", "worked-around") and c.system_switch:
                key, _, value = c.system_switch.partition("=")
                if key not in options:
                    out.options[key] = (value or "ON", f"--system-libs: {c.path} is not in the tree; {c.provider}")
        in_tree = [
            c.path
            for c in report.components
            if c.system_switch.startswith("USE_SYSTEM_") and c.state in ("present", "modified")
        ]
        if not in_tree and "USE_SYSTEM_LIBS" not in options:
            # PyTorch's setup.py skips its submodule check (which runs `git submodule update` and
            # exits without git) only when USE_SYSTEM_LIBS is set (setup.py check_submodules,
            # https://github.com/pytorch/pytorch/blob/v2.6.0/setup.py#L411)
            out.options["USE_SYSTEM_LIBS"] = (
                "ON",
                "--system-libs: no component with a USE_SYSTEM_* switch is in the "
                "tree (and setup.py skips its submodule check only with it)",
            )
        elif in_tree:
            out.warnings.append(
                "--system-libs: " + ", ".join(in_tree) + " are in the tree, so USE_SYSTEM_LIBS stays off "
                "(it would replace them too) and only the missing components' USE_SYSTEM_* switches "
                "are set; setup.py's submodule check still looks at every submodule folder."
            )
        for feat, why in report.turned_off.items():
            if feat not in options:
                out.options[feat] = ("0", f"--system-libs: {why}")
        for cmd in report.install_commands:
            out.notes.append(f"--system-libs: to provide what is missing, run: {cmd}")
    out.workarounds = sel
    for s in sel:
        w = s.workaround
        for k, v in w.settings.items():
            if k not in options:
                out.options[k] = (v, f"workaround {w.id} ({s.reason})")
        if w.kind != "setting":
            out.notes.append(
                f"workaround {w.id}: {w.kind} {w.patch or ', '.join(w.files)} is applied before the build "
                f"({s.reason}); undo: {w.undo}"
            )
    return out


def report_dict(part: SourceSettings) -> dict[str, Any]:
    """The plan's ``sources`` entry: the component report as a dict (or ``{}``)."""
    return part.report.to_dict() if part.report is not None else {}
