"""Reasoning rules for Windows builds (pure): setuptools' "[WinError 2]" when build_ext starts a program that is not
on PATH (the compiler, outside a Visual Studio developer prompt), an old Visual Studio's cl.exe that failed where
the log shows no torch, or where cl itself rejected a GCC-only flag, and the MSVC STL's first CUDA version check
(STL1002) tripped by clang compiling CUDA.  Each rule takes the root cause, the other causes,
the log's context and its signature hits and returns the new cause list with notes, or None (the shape of
:mod:`torchbuild.decisions.diagnose_rules_build`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .diagnose_context import LogContext
from .diagnose_rules_common import CauseFor, SignatureHit, Verdict, _as, _CauseLike, _root_line, _unknown_ahead

#: setuptools' (distutils') report of a program it could not start on Windows: "error: [WinError 2] The
#: system cannot find the file specified" right after "running build_ext".
_WIN_SPAWN_NOT_FOUND = re.compile(r"^error: \[WinError 2\] The system cannot find the file specified")


def _build_program_not_found_windows(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """An unmatched "error: [WinError 2] The system cannot find the file specified" in a log that shows a
    package build (``running build_ext``): the program setuptools tried to start is not on PATH, and in
    build_ext that program is the compiler (cl.exe outside a Visual Studio developer prompt, or nvcc)
    (qwopqwop200/GPTQ-for-LLaMa#47: fixed by building from the x64 Native Tools Command Prompt)."""
    if root.cause_id != "unknown" or not ctx.building:
        return None
    text = _root_line(root).strip()
    if not _WIN_SPAWN_NOT_FOUND.search(text):
        return None
    first = _as(
        root,
        "compiler_missing",
        0.6,
        "The build could not start one of its programs ([WinError 2]: file not found). In build_ext that is the "
        "compiler: cl.exe is on PATH only inside a Visual Studio developer prompt (or nvcc is not on PATH).",
        "Install Visual Studio Build Tools with 'Desktop development with C++' and build from the 'x64 Native "
        "Tools Command Prompt' (or after vcvars64.bat); for CUDA extensions put the toolkit's bin on PATH too.",
        "https://github.com/qwopqwop200/GPTQ-for-LLaMa/issues/47",
    )
    return [first, *rest], ["A build step could not start a program: on Windows that is usually cl.exe off PATH."]


#: cl.exe reading a GCC warning flag as its own /W<level> with a non-numeric level: "cl : Command line error D8021 :
#: invalid numeric argument '/Wno-cpp'" (a setup.py's extra_compile_args written for GCC; the ten logs of issue 11's
#: corpus with it, pycocotools, Open3D, TON, libnabo and others, were all judged no listed cause: the project's flags).
_CL_GCC_FLAG = re.compile(r"\bD8021\s*:\s*invalid numeric argument '/W")


def _old_msvc_without_torch(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """Visual Studio 2015's cl.exe is too old for torch's headers (C++17), not for C code in general: pycocotools
    built with it failed on a GCC-only flag (cl's D8021 on '/Wno-cpp', threads of the corpus judged no listed
    cause).  Without torch in the log (its extension builder's compiler check, a torch traceback, a torch version),
    the old Visual Studio is not reported as the cause; nor where cl's own error is D8021 on a GCC warning flag, which
    no Visual Studio accepts (the same log printed after a real PyTorch build, tests/diagnose/test_structure.py)."""
    if root.signature != "msvc-2015-or-older-compiler-failed":
        return None
    flag = next((e.text for e in getattr(root, "evidence", []) if _CL_GCC_FLAG.search(e.text)), None)
    if flag is not None:
        why = (
            f"cl.exe rejected a GCC-only flag ({flag.strip()}): the package passes GCC's compile flags to MSVC, "
            "which every Visual Studio refuses, so the old Visual Studio is not what failed."
        )
        fix = (
            "Give MSVC its own flags (extra_compile_args without -W..., -std=c99 and other GCC options when "
            "sys.platform is win32), or build with a compiler the flags were written for."
        )
        note = "cl's own error is a GCC flag it cannot read, not torch's headers."
    elif ctx.torch_imports or ctx.torch_versions or any(h.signature.startswith("cpp-extension") for h in hits):
        return None
    else:
        why = (
            "cl.exe of an old Visual Studio (2015 or older) failed, and nothing in the log says it compiled code "
            "that includes torch's headers (which need a newer MSVC): the compiler's own error above the failed "
            "command is the one to read."
        )
        fix = (
            "Read cl's first error above the failed command; if the code includes torch's headers, use Visual "
            "Studio 2019 or 2022."
        )
        note = "No torch in the log: Visual Studio 2015 compiles plain C/C++ extensions, so its age is not the cause."
    return _unknown_ahead(root, rest, why, fix, note)


#: The CUDA release the MSVC STL's CUDA check asked for when it first shipped (Visual Studio 2019 16.10, MSVC
#: 14.29-14.31's yvals_core.h): later toolsets ask for later releases in the same message.
_STL_FIRST_CUDA_CHECK = "10.1 Update 2"


def _stl_cuda_check_without_nvcc(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """The MSVC STL's "STL1002: Unexpected compiler version, expected CUDA 10.1 Update 2 or newer" in a log that shows
    no nvcc: that first form of the check reads nvcc's __CUDACC_VER_* macros whenever __CUDACC__ is defined, so clang
    compiling CUDA (clang++ on a .cu file, hipify-clang), which defines __CUDACC__ but not nvcc's macros, trips it
    whatever its CUDA (microsoft/STL#2359, ROCm/HIPIFY#336: both threads judged no listed cause; the workaround is
    _ALLOW_COMPILER_AND_STL_VERSION_MISMATCH).  With nvcc in the log, an nvcc older than CUDA 10.1 Update 2 under a
    newer MSVC stays the row's reading."""
    if root.signature != "msvc-stl-expects-newer-cuda" or root.values.get("cuda") != _STL_FIRST_CUDA_CHECK:
        return None
    if ctx.nvcc_seen:
        return None
    return _unknown_ahead(
        root,
        rest,
        "The Visual Studio STL's CUDA version check (yvals_core.h, STL1002) fired in a build that shows no nvcc: its "
        "first form reads nvcc's version macros whenever CUDA code is compiled, so clang compiling CUDA (clang++, "
        "hipify-clang) trips it whatever the CUDA installed.",
        "If clang compiles the CUDA code, define _ALLOW_COMPILER_AND_STL_VERSION_MISMATCH (or use a Visual Studio "
        "whose STL knows clang's CUDA mode); if nvcc does, install CUDA 10.1 Update 2 or newer.",
        "STL1002 asking for CUDA 10.1 Update 2 with no nvcc in the log: the check misreads clang's CUDA mode.",
    )
