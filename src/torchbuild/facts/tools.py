"""Build tools on PATH: cmake (and cmake3), ninja, git, ccache, sccache, distcc, patchelf.

Each is found with :func:`shutil.which` (PATH, then the build interpreter's scripts folder,
where ``pip install cmake ninja`` puts them) and asked ``--version``.  Output formats read
from the real tools: ``cmake version 3.25.1``, ``1.11.1`` (ninja), ``git version 2.39.5``,
``ccache version 4.8``, ``sccache 0.7.7``, ``distcc 3.4 x86_64-pc-linux-gnu``,
``patchelf 0.17.2``.
"""

from __future__ import annotations

import re

from ._util import run_version, which
from .model import Tool

__all__ = ["TOOLS", "parse_tool_version", "probe_tool", "version_argv"]

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


def version_argv(name: str, extra_dirs: list[str] | None = None) -> list[str] | None:
    """``[PATH, "--version"]`` for the ``name`` that would be used, or None if absent."""
    path = which(name, extra_dirs)
    return [path, "--version"] if path else None


def probe_tool(name: str, extra_dirs: list[str] | None = None) -> Tool:
    """``Tool(path, version)`` for ``name``; ``Tool(None, None)`` when it is not installed."""
    argv = version_argv(name, extra_dirs)
    if argv is None:
        return Tool()
    out = run_version(argv)
    return Tool(path=argv[0], version=parse_tool_version(name, out.text) if out else None)
