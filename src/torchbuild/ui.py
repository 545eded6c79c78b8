"""Terminal output shared by every command: one console on stderr.

Machine output (``--json``) goes to stdout only; everything for a person goes to
stderr through :data:`console`, so ``torchbuild X --json | jq`` always works.
On a terminal (or with ``FORCE_COLOR``/``TTY_COMPATIBLE``/``TTY_INTERACTIVE``) the
console is rich's, which honours ``NO_COLOR``/``FORCE_COLOR`` itself; to a pipe or a file
the same text goes out as plain lines without loading rich (rich would print exactly
these characters there, and importing it takes about 60 ms on the 2-core test machine).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotations only: ui imports nothing of the lower layers at run time
    from .decisions.plan import Plan
    from .decisions.verify.model import VerifyReport

__all__ = ["console", "echo_command", "render_findings", "render_plan", "render_verify", "StderrConsole"]

#: Environment variables that make rich style output even when stderr is not a terminal.
RICH_FORCING_VARS = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


class StderrConsole:
    """The console for people, on stderr.

    ``print(*objects, style=None, end="\\n", markup=True, **kw)`` takes what
    :meth:`rich.console.Console.print` takes.  On a terminal it is a
    ``rich.console.Console(stderr=True, highlight=False, soft_wrap=True)``
    (:attr:`rich`); otherwise strings (markup rendered to its text), ``rich.text.Text``
    (its ``plain`` text) are written as they are, and anything else is handed to rich.
    The decision is taken on each call, so a replaced ``sys.stderr`` (tests) is seen.
    """

    def __init__(self) -> None:
        self._rich: Any = None

    @property
    def rich(self) -> Any:
        """The ``rich.console.Console`` behind this output (created on first use)."""
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(stderr=True, highlight=False, soft_wrap=True)
        return self._rich

    def _styled(self) -> bool:
        if any(os.environ.get(v) for v in RICH_FORCING_VARS):
            return True
        try:
            return bool(sys.stderr.isatty())
        except (AttributeError, ValueError):
            return False

    @property
    def is_terminal(self) -> bool:
        """True when stderr is a terminal (live progress is drawn only then)."""
        return self.rich.is_terminal if self._styled() else False

    def print(
        self, *objects: Any, style: str | None = None, end: str = "\n", markup: bool = True, **kwargs: Any
    ) -> None:
        """Print ``objects`` separated by spaces, then ``end``; see the class docstring."""
        if not self._styled():
            parts: list[str] = []
            for o in objects:
                if isinstance(o, str):
                    if markup and "[" in o:
                        from rich.markup import render

                        o = render(o).plain
                    parts.append(o)
                elif (rt := sys.modules.get("rich.text")) is not None and isinstance(o, rt.Text):
                    parts.append(o.plain)  # whoever made a Text has loaded rich already
                else:
                    break
            else:
                sys.stderr.write(" ".join(parts) + end)
                return
        self.rich.print(*objects, style=style, end=end, markup=markup, **kwargs)


#: The console for people: stderr, colours only on a terminal.
console = StderrConsole()


def echo_command(argv: Sequence[str], *, cwd: str | None = None, env_diff: Mapping[str, str] | None = None) -> None:
    """Print ``+ <command>`` before running it (every external command is echoed).

    :param argv: the argument list that will be run.
    :param cwd: shown as ``(in DIR)`` when given.
    :param env_diff: variables the plan sets, shown as ``KEY=VALUE`` before the command.
    """
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env_diff or {}).items())
    line = "+ " + (prefix + " " if prefix else "") + shlex.join(list(argv))
    if cwd:
        line += f"   (in {cwd})"
    console.print(line, style="dim", markup=False)


_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def render_findings(findings: Sequence[object], *, title: str = "doctor") -> None:
    """Print doctor findings grouped by severity (errors first), each with its fix.

    :param findings: objects with ``check``, ``severity`` (error/warning/note), ``message``,
        ``fix`` attributes (:class:`torchbuild.decisions.doctor.Finding`).
    """
    order = {"error": 0, "warning": 1, "note": 2}
    items = sorted(findings, key=lambda f: order.get(getattr(f, "severity", "note"), 3))
    if not items:
        console.print(f"{title}: no problems found", style="green")
        return
    counts = {s: sum(1 for f in items if getattr(f, "severity", "") == s) for s in order}
    console.print(
        f"{title}: {counts['error']} error(s), {counts['warning']} warning(s), {counts['note']} note(s)",
        markup=False,
        style="bold",
    )
    for f in items:
        sev = getattr(f, "severity", "note")
        console.print(
            f"  {sev:<7} [{getattr(f, 'check', '?')}] ", style=_SEVERITY_STYLE.get(sev, ""), end="", markup=False
        )
        console.print(str(getattr(f, "message", "")), markup=False)
        fix = getattr(f, "fix", None)
        if fix:
            console.print(f"          fix: {fix}", markup=False, style="dim")


def render_plan(plan: Plan, *, explain: bool = False) -> None:
    """Print the resolved plan before any work (cibuildwheel's preamble pattern).

    :param plan: a :class:`torchbuild.decisions.plan.Plan`.
    :param explain: also say where each value came from.
    """
    p = plan
    console.print(
        f"plan for {p.source}  ({p.kind}, {p.backend} front end, profile {p.profile})", style="bold", markup=False
    )
    rows = [
        ("mode", p.mode),
        ("build type", p.build_type),
        ("jobs", p.jobs),
        ("CUDA", p.cuda),
        ("arch list", p.arch_list),
        ("compiler cache", p.cache),
        ("install", p.install),
    ]
    for label, s in rows:
        value = (
            ";".join(s.value)
            if isinstance(s.value, list)
            else ("on" if s.value is True else "off" if s.value is False else s.value)
        )
        line = f"  {label:<15} {value}"
        if explain:
            line += f"    <- {s.source}"
        console.print(line, markup=False)
    if p.env:
        console.print("  environment:", markup=False)
        for k, s in p.env.items():
            console.print(f"    {k}={s.value}" + (f"    <- {s.source}" if explain else ""), markup=False)
    console.print("  commands:", markup=False)
    for c in p.commands:
        console.print(f"    [{c.phase}] {shlex.join(c.argv)}", markup=False)
    workarounds = getattr(p, "workarounds", None) or []
    if workarounds:
        console.print("  workarounds:", markup=False)
        for w in workarounds:
            what = (
                ", ".join(f"{k}={v}" for k, v in w["settings"].items())
                if w["kind"] == "setting"
                else f"{w['kind']} {w['patch'] or ', '.join(w['files'])}"
            )
            console.print(
                f"    {w['id']}: {what}" + (f"    <- {w['reason']} [{w['source']}]" if explain else ""), markup=False
            )
            if explain:
                console.print(f"      why: {w['why']}", markup=False)
                console.print(f"      undo: {w['undo']}", markup=False)
    sources = getattr(p, "sources", None) or {}
    if explain and sources.get("components"):
        comps = sources["components"]
        console.print(
            f"  third-party components (PyTorch {sources.get('release')}"
            f"{', --system-libs' if sources.get('system_libs') else ''}):",
            markup=False,
        )
        for c in comps:
            console.print(f"    {c['path']:<32} {c['state']:<9} {c['provider'] or c['detail']}", markup=False)
        for feat, why in (sources.get("turned_off") or {}).items():
            console.print(f"    turned off: {feat}=0 <- {why}", markup=False)
    for d in p.reconfigure:
        console.print(
            f"  reconfigure: {d.name} is {d.cached!r} in CMakeCache.txt, the plan says {d.planned!r}",
            style="yellow",
            markup=False,
        )
    for w in p.warnings:
        console.print(f"  warning: {w}", style="yellow", markup=False)
    for n in p.notes:
        console.print(f"  note: {n}", style="cyan", markup=False)


def render_verify(report: VerifyReport) -> None:
    """Print a verify report: one line per check, the fix under each failed one, then a
    verdict line.

    :param report: :class:`torchbuild.actions.verify.VerifyReport` (``target``, ``python``,
        ``checks`` with ``id``, ``ok``, ``message``, ``fix``; ``ok``, ``failed``).
    """
    r = report
    console.print(f"verify {r.target} ({r.python})", style="bold", markup=False)
    for c in r.checks:
        mark, style = ("ok  ", "green") if c.ok else ("FAIL", "red")
        console.print(f"  {mark} {c.id}: {c.message}", style=None if c.ok else style, markup=False)
        if not c.ok and c.fix:
            console.print(f"       fix: {c.fix}", markup=False)
    console.print(
        f"{r.target}: " + ("all checks passed" if r.ok else f"{len(r.failed)} check(s) failed"),
        style="green" if r.ok else "red",
        markup=False,
    )
