"""Reasoning rules for failures while building (pure): a host compiler too new for nvcc, a compiler too
old for the C++ standard, CUDA causes in a ROCm build, a crash beside a full disk, a CPU-only torch read by
setup.py, a package's CUDA check that cannot tell an old toolkit from no
nvcc, a setup.py that fails where it runs CUDA_HOME/bin/nvcc, errors inside the C++ standard
headers while nvcc compiles, a package's own module missing after its build could not run.  Each
rule takes the root cause, the other causes, the log's context and its signature hits and returns
the new cause list with notes, or None (the same shape as
:mod:`torchbuild.decisions.diagnose_rules_after_build`); the pip and uv rules are in
:mod:`torchbuild.decisions.diagnose_rules_install`, the Windows ones (setuptools' [WinError 2], an old Visual
Studio's cl.exe) in :mod:`torchbuild.decisions.diagnose_rules_windows`, the order of all in
:data:`torchbuild.decisions.diagnose_reasons.RULES`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .diagnose_context import LogContext
from .diagnose_rules_common import (
    _NONE_ERROR,
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _as,
    _cap,
    _CauseLike,
    _first_ahead,
    _hit_cause,
    _hit_first,
    _release,
    _unknown_ahead,
)

#: Signatures of a build script that refuses the CUDA version it read from nvcc (see
#: :func:`_cuda_too_old_or_no_nvcc`).
_PACKAGE_NEEDS_CUDA = frozenset({"ext-cuda-too-old-for-package", "requires-newer-cuda"})


def _gcc_headers_unsupported(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """Errors inside the host C++ library headers: the known nvcc/GCC 11 bug, or a GCC that this
    CUDA does not support at all (GCC 6 <tuple> with CUDA 8: NVIDIA/nccl#102)."""
    if root.signature == "nvcc-std-function-parameter-packs":
        m = re.search(r"/c\+\+/(\d+)/", " ".join([root.explanation, *[e.text for e in getattr(root, "evidence", [])]]))
        major = (
            int(m.group(1)) if m else (ctx.gcc_majors[-1] if ctx.gcc_majors else None)
        )  # the GCC seen last, nearest the error
        if major is not None and major != 11:
            first = _as(
                root,
                "host_compiler_unsupported",
                UNDECIDED_CAP + 0.05,
                f"nvcc fails to parse GCC {major}'s own C++ headers: this CUDA most likely does not support "
                f"GCC {major} (the known header bug is GCC 11 with CUDA 11.4-11.6).",
                "Use a GCC this CUDA supports (CC/CXX/CUDAHOSTCXX), or a CUDA that supports this GCC.",
                "https://github.com/NVIDIA/nccl/issues/102",
            )
            return _first_ahead(
                first,
                root,
                rest,
                f"Errors inside GCC {major}'s headers: the unsupported host compiler is the likelier root.",
            )

    return None


def _std_old_compiler(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A C++ standard error with a compiler too old for that standard: torch's own headers saying so elsewhere
    in the log (c10's "You're running a too old version of GCC", csukuangfj/kaldifeat#27, batch 144 held-out, seen
    after session 27's measurement), or a GCC before 7 printed."""
    if root.cause_id != "cxx_standard_mismatch":
        return None
    old = _hit_cause(hits, cause_for, lambda h: h.cause_id == "compiler_too_old")
    if old is not None:
        return _first_ahead(
            old,
            root,
            rest,
            f"torch's headers say on line {old.line} that the compiler is too old: the C++ standard error "
            "follows from it.",
        )
    if ctx.gcc_majors and min(ctx.gcc_majors) < 7:
        g = min(ctx.gcc_majors)
        first = _as(
            root,
            "compiler_too_old",
            UNDECIDED_CAP + 0.05,
            f"The code needs a newer C++ standard than this compile uses, and the compiler is GCC {g}, too old for it.",
            "Install a newer gcc/g++ (GCC 9 or later for torch 2.x) and point CC/CXX at it.",
            "https://github.com/pytorch/vision/issues/2509",
        )
        return _first_ahead(
            first, root, rest, f"GCC {g} is in the log: the compiler, not only the -std flag, is too old."
        )

    return None


#: Words in a signature's values that name ROCm's own toolkit (LoadHIP.cmake's ROCM_PATH and version headers,
#: cpp_extension's ROCM_HOME, hipcc): such a cause is about ROCm, not a CUDA guess in a ROCm build.
_ROCM_WORDS = ("hipcc", "ROCM_HOME", "ROCM_PATH", "rocm_version.h", "hip_version.h")


def _cuda_in_rocm(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A CUDA cause in a ROCm build is at most a guess (pytorch/pytorch#7687)."""
    cuda_causes = {
        "cuda_toolkit_incomplete",
        "cuda_toolkit_not_found",
        "cuda_version_mismatch",
        "cuda_arch_unsupported",
        "nvcc_unknown_host_flag",
        "cuda_toolkit_too_old",
    }
    # ROCm's own toolkit is what is missing (hipcc, ROCM_HOME, ROCM_PATH, ROCm's version headers)
    rocm_itself = any(w in v for v in root.values.values() for w in _ROCM_WORDS)
    if ctx.rocm and root.cause_id in cuda_causes and root.confidence > UNDECIDED_CAP and not rocm_itself:
        out = [_cap(root, 0.5), *rest]
        return out, ["This is a ROCm (HIP) build: a CUDA cause is only a guess here."]

    return None


def _crash_beside_full_disk(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A compiler that crashed (signal 11, killed) in a log that also says a file could not be
    written: the full disk (or TMPDIR) is the root, the crash its symptom (pytorch/pytorch#2046:
    cicc died of signal 11 beside "ptxas fatal : Internal error: writing file"; TMPDIR fixed it)."""
    if root.cause_id in {"internal_compiler_error", "out_of_memory"}:
        c = _hit_cause(hits, cause_for, lambda h: h.cause_id == "disk_full")
        if c is not None:
            return _first_ahead(
                _cap(c, 0.7),
                root,
                rest,
                f"A write failure (line {c.line}) sits beside the compiler crash: a full disk or TMPDIR makes "
                "compilers die, so the disk is the likelier root.",
            )

    return None


def _none_cuda_version(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A setup.py that crashed on None while reading torch's CUDA version: torch.version.cuda is
    None in a CPU-only torch (openvino.genai#163: auto-gptq's setup.py, macOS; ashawkey/torch-
    ngp#167: cpp_extension's _check_cuda_version parsing None)."""
    if (
        root.cause_id == "unknown"
        and ctx.cuda_version_code
        and any(_NONE_ERROR.search(e.text) for e in getattr(root, "evidence", []))
    ):
        first = _as(
            root,
            "torch_cpu_only",
            0.6,
            "The build script read torch's CUDA version and got None: the installed torch is a CPU-only build "
            "(torch.version.cuda is None), and this package builds only against a CUDA torch.",
            "Install a CUDA build of torch (pip install torch --index-url https://download.pytorch.org/whl/<cuXXX>), "
            "or set the package's CUDA-version variable if it supports a CPU build.",
            "https://github.com/openvinotoolkit/openvino.genai/issues/163",
        )
        out = [first, *rest]
        return out, ["A NoneType error right after code that reads torch's CUDA version: a CPU-only torch."]

    return None


def _cmake_torch_not_found(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """CMake's find_package(Torch) failed and the log shows neither pip nor a cmake command: a C++ project
    without CMAKE_PREFIX_PATH, or a Python package built by pip in isolation; both are reported
    (tatsy/torchmcubes#29)."""
    if root.cause_id == "torch_cmake_config_not_found" and not ctx.cmake_by_hand:
        # the log shows neither pip nor a cmake command: a C++ project without CMAKE_PREFIX_PATH,
        # or a Python package built by pip in isolation; both are reported (tatsy/torchmcubes#29).
        second = _as(
            root,
            "torch_missing_in_build_env",
            UNDECIDED_CAP - 0.05,
            "If pip ran this build, torch is missing from pip's isolated build environment.",
            "pip install --no-build-isolation <pkg> with torch installed.",
            "https://github.com/tatsy/torchmcubes/pull/29",
        )
        out = [_cap(root, 0.6), second, *rest]
        return out, ["The log does not show whether CMake ran by hand or under pip: both causes are listed."]
    return None


def _cuda_too_old_or_no_nvcc(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A package's "only supported on CUDA X and above" with no nvcc version anywhere in the log:
    the toolkit may be too old, or there is no nvcc at all.  flash-attn, mamba and causal-conv1d
    read the version from ``$CUDA_HOME/bin/nvcc -V`` and print this same message (with "make sure
    nvcc has a supported version") whichever it is; state-spaces/mamba#323: the maintainer answered
    that the message means nvcc is needed.  Both are listed, the older toolkit first."""
    if root.cause_id != "cuda_toolkit_too_old" or root.signature not in _PACKAGE_NEEDS_CUDA:
        return None
    if not any("only supported on CUDA" in e.text for e in getattr(root, "evidence", [])):
        return None  # another project's wording ("PyTorch requires CUDA 11.0 or above." reads CMake's CUDA)
    if ctx.nvcc_versions or root.values.get("found"):
        return None
    second = _as(
        root,
        "cuda_toolkit_not_found",
        UNDECIDED_CAP - 0.05,
        "Or there is no nvcc at all: the package reads the CUDA version from nvcc -V, and without a toolkit "
        "(a torch wheel brings only the CUDA runtime) it reports the version check as failed.",
        "Install the CUDA toolkit (nvcc) matching torch.version.cuda and set CUDA_HOME to it.",
        "https://github.com/state-spaces/mamba/issues/323",
    )
    notes = [
        "The log does not show which nvcc (if any) was found: run nvcc -V (and echo $CUDA_HOME) to tell an old "
        "toolkit from a missing one."
    ]
    return [_cap(root, UNDECIDED_CAP), second, *rest], notes


#: An exception that says a program was not found, or that None met a string (a CUDA_HOME of None
#: joined with "/bin/nvcc"), in any language of Windows' error text.
_NOT_FOUND_OR_NONE = re.compile(
    r"FileNotFoundError|\[WinError 2\]|\[Errno 2\]|NoneType' and 'str'|NoneType.*\+|can only concatenate str"
)
#: An error located inside the host C++ standard library's headers (libstdc++: .../include/c++/7/...).
_STD_HEADER_ERROR = re.compile(r"/include/c\+\+/\d+(?:\.\d+)*/[\w/.]+[:(]\d+(?::\d+)?\)?:? error\b")


def _nvcc_path_failed(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A setup.py that died right where it builds nvcc's path or runs it (a traceback's source line
    ``subprocess.check_output([cuda_dir + "/bin/nvcc", "-V"])``) with "file not found" ([WinError 2],
    whatever the language) or with None + str (CUDA_HOME is None): there is no nvcc, no CUDA toolkit.
    Sources: NVIDIA/apex#1549 (Windows, WinError 2 in Chinese), NVIDIAGameWorks/kaolin#561 (None)."""
    if root.cause_id != "unknown" or not ctx.nvcc_code:
        return None
    if not any(_NOT_FOUND_OR_NONE.search(e.text) for e in getattr(root, "evidence", [])):
        return None
    first = _as(
        root,
        "cuda_toolkit_not_found",
        0.7,
        "The build script failed where it looks for nvcc (CUDA_HOME/bin/nvcc): the file does not exist, or "
        "CUDA_HOME is not set at all (None). The CUDA toolkit is not installed, or not where CUDA_HOME points; "
        "a torch wheel brings only the CUDA runtime, not nvcc.",
        "Install the CUDA toolkit matching torch.version.cuda and set CUDA_HOME (CUDA_PATH on Windows) to it, "
        "then build again.",
        "https://github.com/NVIDIA/apex/issues/1549",
    )
    return [first, *rest], ["The traceback's code runs CUDA_HOME/bin/nvcc just before the error."]


def _std_header_error_under_nvcc(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """An error that no signature knows, located inside the host C++ standard library's own headers
    (/usr/include/c++/7/bits/basic_string.tcc, .../c++/6.3.0/tuple), in a log where nvcc compiles:
    nvcc's front end cannot parse this GCC's headers (CUDA 10.1.105 with GCC 7:
    NVIDIAGameWorks/kaolin#307; GCC 6 <tuple> with CUDA 8: NVIDIA/nccl#102).  Not sure: user code can
    also fail inside a std header."""
    if root.cause_id != "unknown" or not ctx.nvcc_seen:
        return None
    if not any(_STD_HEADER_ERROR.search(e.text) for e in getattr(root, "evidence", []) if e.line == root.line):
        return None
    first = _as(
        root,
        "nvcc_host_stdlib_incompatible",
        0.6,
        "The error is inside the host compiler's own C++ standard library headers while nvcc compiles: this "
        "nvcc cannot parse this GCC's headers (a known bug of some CUDA / GCC pairs).",
        "Use a CUDA update or a GCC version known to work with this CUDA (CC/CXX/CUDAHOSTCXX), then build again.",
        "https://github.com/NVIDIAGameWorks/kaolin/issues/307",
    )
    return [first, *rest], ["The first error is in the C++ standard library's headers, and nvcc is compiling."]


def _math_library_api_either_way(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """nvcc not knowing a cuBLAS/cuSPARSE/cuSOLVER name (signature ``cuda-math-library-api-undefined-nvcc``): the
    toolkit is older than the code, or newer and the name was removed (cuSPARSE's legacy csrmm/csrmv API and
    CUSPARSE_MM_ALG_DEFAULT under CUDA 11/12: pytorch 1.5's SparseCUDABlas.cu, kokkos-kernels, mfem; issue 11
    batch 918).  No cause id names a toolkit newer than the code, and of the seen logs with such a root
    6 of 8 were labelled unknown, so the answer is unknown with both readings, the old toolkit second."""
    if root.signature != "cuda-math-library-api-undefined-nvcc":
        return None
    api = root.values.get("api", "the name")
    return _unknown_ahead(
        root,
        rest,
        f"This CUDA's math-library headers do not declare {api}: either the toolkit is older than the code needs, or "
        "newer, and the name was removed (cuSPARSE's legacy API went in CUDA 11 and 12).",
        f"Look up {api} in the CUDA release notes: build with the CUDA the project supports, or a release of the "
        "project written for this CUDA.",
        f"{api} may be too new or already removed for this CUDA.",
    )


#: Causes that stop a package's own compiled module from being built (see :func:`_own_module_never_built`).
_BUILD_BLOCKERS = (
    "compiler_missing",
    "ninja_missing",
    "cuda_toolkit_not_found",
    "host_compiler_unsupported",
    "compiler_too_old",
    "python_headers_missing",
)


def _own_module_never_built(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """ "No module named 'pkg.sub'" (a submodule of a package, not a missing distribution) in a log that
    also shows why a build could not run (no compiler, no ninja, no nvcc...): the module is the
    package's own compiled op, which was never built, so the build blocker is the root
    (Megvii-BaseDetection/YOLOX#1371: fast_cocoeval's JIT build on Windows without cl.exe)."""
    if root.cause_id != "python_dependency_missing":
        return None
    module = root.values.get("module", "")
    if "." not in module.strip("."):
        return None
    c = _hit_cause(hits, cause_for, lambda h: h.cause_id in _BUILD_BLOCKERS)
    if c is None:
        return None
    return _first_ahead(
        _cap(c, 0.7),
        root,
        rest,
        f"'{module}' is a module of the package itself, and line {c.line} shows why it could not be built "
        f"({c.cause_id}): the missing module is the symptom.",
    )


def _cuda_home_list(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A CUDA header or library missing while the log shows CUDA_HOME set like PATH (an include flag
    "-isystem /usr/local/cuda:/usr/local/cuda:.../include"): the toolkit is not found because CUDA_HOME
    names no folder, not a toolkit without that part (vacancy/PreciseRoIPooling#48, torch's
    cpp_extension joins CUDA_HOME and "include")."""
    if root.cause_id == "cuda_toolkit_incomplete":
        c = _hit_cause(hits, cause_for, lambda h: h.signature == "cuda-home-path-list")
        if c is not None:
            return _first_ahead(
                c,
                root,
                rest,
                f"Line {c.line} shows CUDA_HOME holding several folders: the CUDA part is missing because the "
                "toolkit is looked for in a path that does not exist.",
            )
    return None


#: The rows of a relocation that does not fit: GNU ld's wording, and lld's and gold's.
_RELOCATION_ROWS = ("relocation-truncated-fatbin", "relocation-out-of-range")


def _relocation_without_gpu(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A 32-bit relocation that does not fit, in a log that never mentions CUDA or ROCm: no fat binary
    of GPU code can have grown the library, so the arch list is only a guess (pytorch/pytorch#172631:
    a CPU-only AArch64 build whose benchmark objects outgrew R_AARCH64_CALL26's range)."""
    if root.signature in _RELOCATION_ROWS and not (ctx.cuda_seen or ctx.rocm or ctx.nvcc_seen):
        return [_cap(root, 0.5), *rest], [
            "The log shows no CUDA or ROCm: a library too large for its relocations is not explained by GPU "
            "architectures here (an oversized object, a code model or linker option), so this is only a guess."
        ]
    return None


def _cudnn_version_unread(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """PyTorch's "requires cuDNN 7 and above" after "Found cuDNN: v?": its CMake found cuDNN but read no version.
    The CMake files of a torch before 1.6 read it from cudnn.h, which cuDNN 8 moved to cudnn_version.h, so a
    sound cuDNN 8 reads as none (pytorch/pytorch#40965 and #41593: none of the cause ids says that); a newer
    torch reads cudnn_version.h, and then the cuDNN found is incomplete (Karbo123/segmentator#11).  With a torch
    before 1.6 printed the answer is unknown; without a torch version both stay below 0.7."""
    if root.signature != "pytorch-cmake-cudnn-too-old" or not ctx.cudnn_version_unread:
        return None
    old = [v for v in ctx.torch_versions if (r := _release(v)) is not None and r < (1, 6)]
    new = [v for v in ctx.torch_versions if (r := _release(v)) is not None and r >= (1, 6)]
    if new:
        return None
    reading = (
        'PyTorch\'s CMake found cuDNN but could not read its version ("Found cuDNN: v?"): the CMake files of a '
        "torch before 1.6 read the version macros from cudnn.h, which cuDNN 8 moved to cudnn_version.h, so the "
        'check "requires cuDNN 7 and above" fails although cuDNN is there.'
    )
    fix = (
        "Use a libtorch / torch whose CMake files read cudnn_version.h (PyTorch 1.6 and later), or patch "
        "share/cmake/Caffe2/public/cuda.cmake to read the version from cudnn_version.h."
    )
    if old:
        return _unknown_ahead(
            root,
            rest,
            reading,
            fix,
            f'torch {old[0]} reads cuDNN\'s version from cudnn.h: "v?" is its misreading of cuDNN 8.',
        )
    return [_cap(root, 0.5), *rest], [
        '"Found cuDNN: v?": the version was unreadable. With a torch before 1.6 that is its CMake misreading '
        "cuDNN 8 (cudnn_version.h); with a newer torch the cuDNN found is incomplete. The log does not say which "
        "torch this is."
    ]


def _cuda_arch_without_compiler(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """CMake found no CUDA architecture after it could not identify the CUDA compiler at all ("-- The CUDA compiler
    identification is unknown" earlier: a CMAKE_CUDA_COMPILER that does not exist, as CMake 3.25.1 prints it here):
    nvcc never ran, so the toolkit is not found, not a host compiler that nvcc rejects."""
    return _hit_first(
        root,
        rest,
        hits,
        cause_for,
        roots=frozenset({"cmake-cuda-no-working-architecture"}),
        hit="cmake-cuda-compiler-identification-unknown",
        note="CMake could not identify the CUDA compiler on line {line}: nvcc did not run, so no architecture was "
        "found because the compiler is missing, not because it rejected the host compiler.",
    )


def _same_cuda_twice(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """PyTorch's "Found two conflicting CUDA installs" with the same version printed twice: the CMake of torch 2.1
    compared the two include folders as strings, so one toolkit reached by two paths (/usr/local/cuda and
    /usr/local/cuda-12.1, a symlinked include folder) failed the check; torch 2.6's cmake/public/cuda.cmake compares
    versions ("Found two conflicting CUDA versions").  No cause id names a check that misfired, so the answer is
    unknown with the workaround.  Sources: pytorch/pytorch#108931 (the fix, PR #108932; issue 11 batch 568 held-out,
    read after session 41's measurement) and pytorch/pytorch#106971 (FBGEMM in a CUDA 12.1 image; batch 568 dev, the
    workaround CUDA_PATH=/usr/local/cuda-12.1)."""
    if root.signature != "pytorch-cmake-two-cuda-installs":
        return None
    seen = ctx.cuda_install_versions
    if len(seen) < 2 or len(set(seen[:2])) != 1:
        return None
    return _unknown_ahead(
        root,
        rest,
        f"PyTorch's CMake reports two CUDA installs, but both are CUDA {seen[0]}: one toolkit reached by two paths "
        "(a symlink such as /usr/local/cuda -> /usr/local/cuda-X.Y). The check of torch 2.1's cuda.cmake compared "
        "the folders, not the versions, so it fails here although nothing conflicts.",
        "Point every CUDA variable at the same path (CUDA_PATH, CUDA_HOME and CUDAToolkit_ROOT to the real folder, "
        "e.g. /usr/local/cuda-X.Y, with its bin first on PATH), or use a torch whose cuda.cmake compares versions.",
        f"Both installs print CUDA {seen[0]}: the same toolkit through two paths, not a version conflict.",
    )
