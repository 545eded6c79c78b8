"""What people read on stderr: plain lines to a pipe (without loading rich), rich's styled
output on a terminal or when colours are forced.

Each case runs a fresh interpreter (the real module state), a pipe for stderr, and for
the terminal case a real pseudo-terminal from util-linux ``script``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

SNIPPET = r"""
import sys
from torchbuild.ui import console
console.print("plan for /t  ([x] stays)", style="bold", markup=False)
console.print("built", style="green", end=" ", markup=False)
console.print("tree in 0 s")
console.print("[yellow]warning:[/yellow] a [b]marked[/b] line")
print("rich loaded before Text:", "rich" in sys.modules, file=sys.stdout)
from rich.text import Text
console.print(Text("why: ", style="bold") + Text("a styled Text"))
"""


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "TERM")
    }
    env.update(extra)
    return env


def test_pipe_gets_plain_lines_and_rich_is_not_loaded():
    proc = subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, env=_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ("plan for /t  ([x] stays)\nbuilt tree in 0 s\nwarning: a marked line\nwhy: a styled Text\n")
    # markup in a string needs rich's parser; plain strings never load rich
    assert proc.stdout.strip() == "rich loaded before Text: True"
    plain_only = SNIPPET.split('console.print("[yellow]')[0] + 'print("rich" in sys.modules)\n'
    proc = subprocess.run([sys.executable, "-c", plain_only], capture_output=True, text=True, env=_env(), timeout=60)
    assert proc.stdout.strip() == "False"
    assert "\x1b[" not in proc.stderr


def test_force_color_in_a_pipe_gets_rich_styles():
    proc = subprocess.run(
        [sys.executable, "-c", SNIPPET],
        capture_output=True,
        text=True,
        env=_env(FORCE_COLOR="1", TERM="xterm-256color"),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" in proc.stderr
    assert "plan for /t  ([x] stays)" in proc.stderr and "warning:" in proc.stderr


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux script not installed")
def test_terminal_gets_rich_styles(tmp_path):
    code = tmp_path / "snippet.py"
    code.write_text(SNIPPET)
    proc = subprocess.run(
        ["script", "-qec", f"{sys.executable} {code}", "/dev/null"],
        capture_output=True,
        text=True,
        env=_env(TERM="xterm-256color"),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout
    assert "\x1b[" in proc.stdout  # the pty merges stderr into what script prints
    assert "built" in proc.stdout and "marked" in proc.stdout
