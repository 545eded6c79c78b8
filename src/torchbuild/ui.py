"""Terminal output shared by every command: one rich console on stderr.

Machine output (``--json``) goes to stdout only; everything for a person goes to
stderr through :data:`console`, so ``torchbuild X --json | jq`` always works.
``NO_COLOR``/``FORCE_COLOR`` are honoured by rich itself.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from rich.console import Console

__all__ = ["console", "echo_command"]

#: The console for people: stderr, colours only on a terminal.
console = Console(stderr=True, highlight=False, soft_wrap=True)


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
