"""C and C++ compilers: which one a build will use and its version.

``CC``/``CXX`` (and ``CUDAHOSTCXX``/``NVCC_CCBIN`` for nvcc's host compiler) are honoured
the way CMake and ``torch.utils.cpp_extension`` honour them; otherwise the first of
``cc``/``gcc``/``clang`` (``c++``/``g++``/``clang++``) on PATH.  The version comes from
``<compiler> --version`` (GCC: ``gcc (Debian 12.2.0-14+deb12u1) 12.2.0``; Clang:
``clang version 17.0.6``; Apple: ``Apple clang version 15.0.0``).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping

from ._util import run, run_version, which
from .model import Compiler

__all__ = ["parse_compiler_version", "probe_compiler", "find_compiler", "LAUNCHERS"]

#: Compiler launchers that may prefix ``CC``/``CXX`` (``CC="ccache gcc"``).
LAUNCHERS = {"ccache", "sccache", "distcc", "icecc"}

_CANDIDATES = {"c": ["cc", "gcc", "clang"], "cxx": ["c++", "g++", "clang++"]}


def parse_compiler_version(text: str) -> tuple[str, str | None]:
    """(kind, version) from ``--version`` output.

    ``kind`` is ``"gcc"``, ``"clang"`` (including Apple clang) or ``"unknown"``; ``version``
    the dotted version (``"12.2.0"``) or None.
    """
    first = text.strip().splitlines()[0] if text.strip() else ""
    m = re.search(r"clang version (\d+(?:\.\d+)+)", text)
    if m:
        return "clang", m.group(1)
    if (
        "Free Software Foundation" in text
        or "(GCC)" in first
        or re.match(r"^(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+)(?:-\d+(?:\.\d+)*)?(?:\.exe)?\s", first)
    ):
        m = re.search(r"\)\s+(\d+(?:\.\d+)+)", first) or re.search(r"\s(\d+\.\d+(?:\.\d+)?)(?:\s|$)", first)
        return "gcc", (m.group(1) if m else None)
    if "Microsoft" in text and "C/C++" in text:  # cl.exe prints its banner on stderr
        m = re.search(r"Version (\d+(?:\.\d+)+)", text)
        return "msvc", (m.group(1) if m else None)
    return "unknown", None


def probe_compiler(command: str, from_env: str | None = None) -> Compiler | None:
    """Describe the compiler ``command`` (a name, a path or ``"ccache gcc"``); None if absent."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w for w in words if os.path.basename(w) not in LAUNCHERS] or words
    if not words:
        return None
    path = which(words[0])
    if path is None:
        return None if from_env is None else Compiler(kind="unknown", path=None, version=None, from_env=from_env)
    out = run_version([path, "--version"])
    if out is None and os.path.basename(path).lower().startswith("cl"):
        out = run([path])
    kind, version = parse_compiler_version(out.text if out else "")
    return Compiler(kind=kind, path=path, version=version, from_env=from_env)


def find_compiler(lang: str, env: Mapping[str, str] | None = None) -> Compiler | None:
    """The ``lang`` (``"c"`` or ``"cxx"``) compiler a build will use, or None when none exists.

    ``CC``/``CXX`` win when set (a set variable naming a missing program gives a Compiler
    with ``path=None``, so doctor can say so); else the first candidate on PATH.
    """
    env = os.environ if env is None else env
    var = "CC" if lang == "c" else "CXX"
    if env.get(var):
        return probe_compiler(env[var], from_env=var)
    for name in _CANDIDATES[lang]:
        if which(name):
            return probe_compiler(name)
    return None


def find_cuda_host(env: Mapping[str, str] | None = None) -> Compiler | None:
    """nvcc's host compiler when ``CUDAHOSTCXX`` or ``NVCC_CCBIN`` names one, else None."""
    env = os.environ if env is None else env
    for var in ("CUDAHOSTCXX", "NVCC_CCBIN"):
        if env.get(var):
            return probe_compiler(env[var], from_env=var)
    return None
