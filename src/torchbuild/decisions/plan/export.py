"""The plan as a script a person runs by hand: POSIX ``sh``, Windows ``bat``, or ``dotenv``
(variables only); see :meth:`torchbuild.decisions.plan.Plan.export`."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from ...errors import UsageError
from .model import did_you_mean

if TYPE_CHECKING:
    from .model import Plan


def export_plan(plan: Plan, fmt: str) -> str:
    """``plan`` as text in ``fmt`` (``"sh"``, ``"bat"`` or ``"dotenv"``).

    :raises UsageError: unknown format.
    """
    env = plan.env_values()
    if fmt == "dotenv":
        return "".join(f"{k}={_dotenv_quote(v)}\n" for k, v in env.items())
    if fmt == "sh":
        lines = ["#!/bin/sh", f"# torchbuild plan for {plan.source} (profile {plan.profile})", "set -e"]
        lines += [f"export {k}={shlex.quote(v)}" for k, v in env.items()]
        cwd = None
        for c in plan.commands:
            if c.cwd != cwd:
                lines.append(f"cd {shlex.quote(c.cwd)}")
                cwd = c.cwd
            argv = ["$WHEEL" if a == "{wheel}" else a for a in c.argv]
            if "{wheel}" in c.argv:
                lines.append(f"WHEEL=$(ls -t {shlex.quote(plan.wheel_dir or '.')}/*.whl | head -n 1)")
            lines.append(" ".join(a if a == "$WHEEL" else shlex.quote(a) for a in argv))
        return "\n".join(lines) + "\n"
    if fmt == "bat":
        lines = ["@echo off", f"rem torchbuild plan for {plan.source} (profile {plan.profile})"]
        lines += [f'set "{k}={v}"' for k, v in env.items()]
        cwd = None
        for c in plan.commands:
            if c.cwd != cwd:
                lines.append(f'cd /d "{c.cwd}"')
                cwd = c.cwd
            if "{wheel}" in c.argv:
                lines.append(
                    f'for /f "delims=" %%W in (\'dir /b /o-d "{plan.wheel_dir}\\*.whl"\') '
                    f'do (set "WHEEL={plan.wheel_dir}\\%%W" & goto :found)'
                )
                lines.append(":found")
            argv = ["%WHEEL%" if a == "{wheel}" else a for a in c.argv]
            lines.append(" ".join(_bat_quote(a) for a in argv) + " || exit /b 1")
        return "\r\n".join(lines) + "\r\n"
    raise UsageError(
        f"unknown export format {fmt!r}.{did_you_mean(fmt, ['sh', 'bat', 'dotenv'])} Use sh, bat or dotenv."
    )


def _dotenv_quote(v: str) -> str:
    return v if re.fullmatch(r"[A-Za-z0-9_./:+,;=@-]*", v) else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bat_quote(a: str) -> str:
    return f'"{a}"' if (" " in a or not a) and a != "%WHEEL%" else a
