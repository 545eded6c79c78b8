"""Root over symptom: reasoning between causes with the context a log gives (pure).

Several real failures show a true symptom whose root is elsewhere (issue 11): a CUDA
library that is not found because the extension was built for another CUDA, a
missing torch symbol that is the extension/torch version mismatch rather than the
C++ ABI, errors inside ``<tuple>`` because nvcc does not support that GCC at all.
Signatures match lines; this module looks at what else the log says and re-orders
(or qualifies) the causes:

* :class:`~torchbuild.decisions.diagnose_context.ContextCollector` keeps a few facts while
  the log streams by (bounded): versions printed (torch, CUDA, GCC),
  ``-D_GLIBCXX_USE_CXX11_ABI`` flags, where torch was imported from, ROCm markers, code that
  reads torch's CUDA version, pip's isolated builds;
* :func:`reason` applies the rules below to the causes the signatures gave and
  returns the new cause list (root first) with notes for the person.  When the log
  cannot tell two causes apart, both are reported in order, with lowered confidence.

Every rule names its source (the issue threads of tests/diagnose/realworld or the
tool whose message is matched).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .diagnose_context import ContextCollector, LogContext

__all__ = ["LogContext", "ContextCollector", "reason", "UNDECIDED_CAP", "SignatureHit"]

#: Confidence of each cause when the log cannot tell two causes apart.
UNDECIDED_CAP = 0.55
_CUDA_SO = re.compile(
    r"lib(?:cudart|cublas\w*|cudnn\w*|cufft\w*|curand|cusparse|cusolver\w*|nvrtc|nccl|nvToolsExt)\.so\.(?P<v>\d+(?:\.\d+)?)"
)
#: What Python says when None reaches code that wanted a version string (``torch.version.cuda``
#: of a CPU-only torch): ``.split()`` on None, ``re``/``packaging`` parsing None.
_NONE_ERROR = re.compile(r"NoneType|expected string or bytes-like object")
#: ROCm's runtime libraries, versioned by the ROCm major in their soname (ROCm/apex#73: ROCm 5.0.2
#: ships libamdhip64.so.5, ROCm 4.5.2 libamdhip64.so.4).
_ROCM_SO = re.compile(
    r"lib(?:amdhip64|hiprtc|rocblas|MIOpen|rccl|hipblas\w*|hipsparse|hipfft|rocfft|roctracer64|hsa-runtime64)"
    r"\.so\.(?P<v>\d+)"
)
#: torch's own shared libraries (torch/lib of a wheel, lib/ of libtorch).
_TORCH_SO = re.compile(r"\b(?P<lib>lib(?:torch\w*|c10\w*|shm|caffe2\w*)\.(?:so|dylib))\b")


class _CauseLike(Protocol):
    cause_id: str
    confidence: float
    line: int | None
    signature: str | None
    values: dict[str, str]
    explanation: str
    fix: str
    source: str


@dataclass(frozen=True)
class SignatureHit:
    """A signature match anywhere in the log: its cause id, signature id and line."""

    cause_id: str
    signature: str
    line: int


def _cap(c: _CauseLike, conf: float) -> _CauseLike:
    return replace(c, confidence=round(min(c.confidence, conf), 2))  # type: ignore[type-var]


def _as(c: _CauseLike, cause_id: str, conf: float, explanation: str, fix: str, source: str) -> _CauseLike:
    return replace(
        c,
        cause_id=cause_id,
        confidence=round(conf, 2),
        explanation=explanation,  # type: ignore[type-var]
        fix=fix,
        source=source,
        signature=f"reason:{cause_id}",
    )


def _site(path: str) -> bool:
    return "site-packages" in path or "dist-packages" in path


def _torch_new_abi(ctx: LogContext) -> bool | None:
    """Whether the log's torch uses the new C++ ABI: conda-forge and source builds
    (``+git``) do; pip wheels do from torch 2.7 (PyTorch 2.7 release notes) and did not
    before; None when the log does not say."""
    if ctx.torch_conda_forge or any("+git" in v or "cxx11" in v for v in ctx.torch_versions):
        return True
    for v in ctx.torch_versions:
        m = re.match(r"(\d+)\.(\d+)", v)
        if m:
            return (int(m.group(1)), int(m.group(2))) >= (2, 7)
    return None


def _abi_evidence(symbol: str, ctx: LogContext) -> bool:
    """True when the log shows that torch and the extension use different C++ ABIs:
    both ``-D_GLIBCXX_USE_CXX11_ABI`` values, or the ABI the missing symbol was built
    with (``__cxx11``: new; ``Ss``: old) against the ABI of the log's torch."""
    if len(ctx.abi_flags) == 2:
        return True
    torch_new = _torch_new_abi(ctx)
    if torch_new is None or not symbol:
        return False
    ext_new = "cxx11" in symbol
    return ext_new != torch_new


def reason(
    causes: Sequence[_CauseLike],
    ctx: LogContext,
    hits: Sequence[SignatureHit] = (),
    cause_for: Callable[[SignatureHit], _CauseLike | None] | None = None,
) -> tuple[list[_CauseLike], list[str]]:
    """Re-order or qualify ``causes`` (root first, as the signatures gave them) with
    the log's context.

    :param causes: the diagnosis' causes (dataclass instances with ``cause_id``,
        ``confidence``, ``signature``, ``values``...); not modified.
    :param ctx: what :class:`ContextCollector` saw in the log.
    :param hits: every signature match of the log (for rules that look beyond the
        root, e.g. a pip dependency conflict printed before the failure).
    :param cause_for: makes the cause of one of ``hits`` (to report a symptom next
        to its root); None: such causes are not added.
    :returns: the new cause list (root first; an undecidable pair as two causes with
        confidence at most :data:`UNDECIDED_CAP`) and notes for the person.
    """
    out = list(causes)
    if not out:
        return out, []
    root = out[0]
    notes: list[str] = []
    rest = out[1:]

    # 1. a missing torch symbol that takes std::string: another torch, or the other
    #    C++ ABI.  Only an ABI difference printed in the log decides for the ABI
    #    (conda-forge's torch uses the new ABI; both -D_GLIBCXX_USE_CXX11_ABI values).
    #    Sources: rusty1s/pytorch_scatter#186, rusty1s/pytorch_sparse#250 (version),
    #    CharlesShang/DCNv2#19 (ABI).
    if root.signature == "undefined-symbol-abi":
        symbol = root.values.get("symbol", "")
        if "cxx11" in symbol and _torch_new_abi(ctx) is None:
            # The extension wants std::__cxx11 (the new ABI) and the log does not say
            # which ABI torch uses.  Pip wheels of torch before 2.7 export no __cxx11
            # symbol at all (pytorch/pytorch#65651), so the ABI is the likelier root; an
            # extension for another torch stays listed second.  intel/torch-ccl#16.
            first = _cap(root, UNDECIDED_CAP + 0.05)
            second = _as(
                root,
                "torch_extension_mismatch",
                UNDECIDED_CAP - 0.05,
                f"The extension may also have been built for another torch version: torch does not export {symbol}.",
                "Install the extension version made for this torch, or rebuild it against this torch "
                "(pip install --no-build-isolation --no-cache-dir <pkg>).",
                "https://github.com/rusty1s/pytorch_scatter/issues/186",
            )
            notes.append(
                "The missing symbol takes the C++11-ABI std::string (std::__cxx11): an extension built with "
                "_GLIBCXX_USE_CXX11_ABI=1 against a torch built with 0 (pip wheels before torch 2.7) is the usual "
                "cause; check torch._C._GLIBCXX_USE_CXX11_ABI."
            )
            return [first, second, *rest], notes
        if not _abi_evidence(symbol, ctx):
            sym = symbol or "the missing symbol"
            first = _as(
                root,
                "torch_extension_mismatch",
                UNDECIDED_CAP,
                f"The extension needs {sym}, which this torch does not export: it was built for another torch "
                "version, or with the other C++ ABI (the symbol takes std::string); the log does not say which.",
                "Install the extension build made for this torch version (and ABI: "
                "torch._C._GLIBCXX_USE_CXX11_ABI), or rebuild it against this torch "
                "(pip install --no-build-isolation --no-cache-dir <pkg>).",
                "https://github.com/rusty1s/pytorch_scatter/issues/186",
            )
            out = [first, _cap(root, UNDECIDED_CAP - 0.05), *rest]
            notes.append(
                "The missing symbol fits both an extension built for another torch and a C++ ABI mismatch; "
                "the log shows neither torch's ABI nor the extension's, so both are listed."
            )
            return out, notes

    # 2. errors inside the host C++ library headers: the known nvcc/GCC 11 bug, or a GCC
    #    that this CUDA does not support at all (GCC 6 <tuple> with CUDA 8: NVIDIA/nccl#102).
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
            out = [first, _cap(root, UNDECIDED_CAP), *rest]
            notes.append(f"Errors inside GCC {major}'s headers: the unsupported host compiler is the likelier root.")
            return out, notes

    # 3. "No module named 'torch._C'" from an installed torch is not the source tree.
    #    Source: tsurumeso/vocal-remover#109 (site-packages) vs pytorch/pytorch#788.
    if root.cause_id == "import_from_source_dir" and ctx.torch_imports and all(_site(p) for p in ctx.torch_imports):
        out = [
            _as(
                root,
                "unknown",
                0.0,
                f"torch was imported from an installed package ({ctx.torch_imports[0]}), not from a source tree, "
                "and its compiled module torch._C is missing: a broken or partial install.",
                "Reinstall torch (pip install --force-reinstall torch, with the index URL of your CUDA build).",
                "torchbuild",
            ),
            *rest,
        ]
        out[0] = replace(out[0], signature=None)  # type: ignore[type-var]
        notes.append("torch came from site-packages, so the source-tree explanation does not fit.")
        return out, notes

    # 4. a versioned CUDA library that is not found: missing from the library path, or
    #    the extension was built for another CUDA (iSEE-Laboratory/LLMDet#32: mmcv for
    #    CUDA 10.1 on a CUDA 12.1 system).
    if root.cause_id == "shared_library_not_found":
        m = _CUDA_SO.search(root.values.get("lib", "") + " " + " ".join(e.text for e in getattr(root, "evidence", [])))
        if m:
            want = m.group("v")
            other = [v for v in ctx.cuda_versions if not v.startswith(want.split(".")[0] + ".") and v != want]
            ext = _as(
                root,
                "torch_extension_mismatch",
                0.6 if other else UNDECIDED_CAP - 0.05,
                f"A module wants the CUDA {want} runtime library, "
                + (
                    f"but this machine's CUDA is {other[0]}: it was built for another CUDA (or torch)."
                    if other
                    else "which is not installed: it may have been built for another CUDA (or torch)."
                ),
                "Install the build of that package made for your torch and CUDA (or rebuild it here).",
                "https://github.com/iSEE-Laboratory/LLMDet/issues/32",
            )
            if other:
                out = [ext, _cap(root, UNDECIDED_CAP), *rest]
                notes.append(f"The library wanted (CUDA {want}) differs from the CUDA the log shows ({other[0]}).")
            else:
                out = [_cap(root, 0.6), ext, *rest]
                notes.append(
                    f"libraries of CUDA {want} are missing: either not on the library path, or the module "
                    "was built for another CUDA; the log does not show which CUDA this machine has."
                )
            return out, notes
        m = _ROCM_SO.search(root.values.get("lib", "") + " " + " ".join(e.text for e in getattr(root, "evidence", [])))
        if m:
            # The same for ROCm: a module linked against another ROCm's runtime (ROCm/apex#73: built
            # with ROCm 5, run with ROCm 4.5), or the library is not on the path; the log cannot say.
            want = m.group("v")
            ext = _as(
                root,
                "torch_extension_mismatch",
                UNDECIDED_CAP - 0.05,
                f"A module wants the ROCm {want}.x runtime library, which is not installed: it may have been "
                "built for another ROCm (or another torch), or left over from an earlier build.",
                "Rebuild the module against this ROCm and torch (remove its old build/ directory first), or "
                "install the build made for them.",
                "https://github.com/ROCm/apex/issues/73",
            )
            out = [_cap(root, 0.6), ext, *rest]
            notes.append(
                f"ROCm {want}.x libraries are missing: either not on the library path, or the module was built "
                "for another ROCm; the log does not show which."
            )
            return out, notes

        # torch's own library (libc10.so, libtorch_cpu.so) not found when something loads it: the
        # library directory of torch is not on the loader's path (a module imported before
        # `import torch`: pytorch/extension-cpp, trilinear; a libtorch program without
        # LD_LIBRARY_PATH: hasktorch), or the module was built for a torch that had a library this
        # one lacks (torchlars built for torch >= 1.5 on torch 1.4); one line cannot tell which.
        m = _TORCH_SO.search(root.values.get("lib", ""))
        if m and root.confidence > 0.6:
            ext = _as(
                root,
                "torch_extension_mismatch",
                UNDECIDED_CAP - 0.05,
                f"The module may also have been built for another torch, one that has {m.group('lib')}.",
                "Install the build of that package made for this torch (or rebuild it against this torch).",
                "https://github.com/kakaobrain/torchlars/issues/15",
            )
            notes.append(
                f"{m.group('lib')} is torch's own library: either torch's lib directory is not on the loader's path "
                "(import torch before the extension; LD_LIBRARY_PATH for a libtorch program), or the module was "
                "built for another torch; the log does not say which."
            )
            return [_cap(root, 0.6), ext, *rest], notes

    # 5. pip reported a dependency conflict earlier: the failure that follows is its
    #    symptom (a BLAS / symbol / library error of the mismatched package).
    symptom = {
        "blas_not_found",
        "torch_extension_mismatch",
        "cxx_abi_mismatch",
        "shared_library_not_found",
        "numpy_abi_mismatch",
        "system_library_missing",
    }
    conflict = next((h for h in hits if h.cause_id == "dependency_version_conflict"), None)
    if conflict is not None and root.cause_id in symptom and conflict.line <= (root.line or 0):
        first = _as(
            root,
            "dependency_version_conflict",
            0.6,
            f"pip reported a dependency conflict (line {conflict.line}) before this {root.cause_id} failure: "
            "the installed versions do not fit together, and the error below is the symptom.",
            "Pin the packages together (the versions pip names on that line), then reinstall.",
            "pip-msgs",
        )
        out = [first, _cap(root, UNDECIDED_CAP), *rest]
        notes.append(f"A dependency conflict (line {conflict.line}) comes before the {root.cause_id} error.")
        return out, notes

    # 5b. the conflict is the first error: the later failure is its symptom, reported second
    if root.cause_id == "dependency_version_conflict" and cause_for is not None:
        later = next((h for h in hits if h.cause_id in symptom and h.line > (root.line or 0)), None)
        c = cause_for(later) if later is not None else None
        if c is not None:
            out = [root, _cap(c, UNDECIDED_CAP), *rest]
            notes.append(f"The {c.cause_id} failure on line {c.line} follows from this dependency conflict.")
            return out, notes

    # 6. a C++ standard error with a compiler too old for that standard.
    if root.cause_id == "cxx_standard_mismatch" and ctx.gcc_majors and min(ctx.gcc_majors) < 7:
        g = min(ctx.gcc_majors)
        first = _as(
            root,
            "compiler_too_old",
            UNDECIDED_CAP + 0.05,
            f"torch's headers need a newer C++ standard, and the compiler is GCC {g}, too old for it.",
            "Install a newer gcc/g++ (GCC 9 or later for torch 2.x) and point CC/CXX at it.",
            "https://github.com/pytorch/vision/issues/2509",
        )
        out = [first, _cap(root, UNDECIDED_CAP), *rest]
        notes.append(f"GCC {g} is in the log: the compiler, not only the -std flag, is too old.")
        return out, notes

    # 7. a CUDA cause in a ROCm build is at most a guess (pytorch/pytorch#7687).
    cuda_causes = {
        "cuda_toolkit_incomplete",
        "cuda_toolkit_not_found",
        "cuda_version_mismatch",
        "cuda_arch_unsupported",
        "nvcc_unknown_host_flag",
        "cuda_toolkit_too_old",
    }
    rocm_itself = any("hipcc" in v for v in root.values.values())  # ROCm's compiler is what is missing
    if ctx.rocm and root.cause_id in cuda_causes and root.confidence > UNDECIDED_CAP and not rocm_itself:
        out = [_cap(root, 0.5), *rest]
        notes.append("This is a ROCm (HIP) build: a CUDA cause is only a guess here.")
        return out, notes

    # 8. a compiler that crashed (signal 11, killed) in a log that also says a file could not be
    #    written: the full disk (or TMPDIR) is the root, the crash its symptom (pytorch/pytorch#2046:
    #    cicc died of signal 11 beside "ptxas fatal : Internal error: writing file"; TMPDIR fixed it).
    if root.cause_id in {"internal_compiler_error", "out_of_memory"} and cause_for is not None:
        disk = next((h for h in hits if h.cause_id == "disk_full"), None)
        c = cause_for(disk) if disk is not None else None
        if c is not None:
            out = [_cap(c, 0.7), _cap(root, UNDECIDED_CAP), *rest]
            notes.append(
                f"A write failure (line {c.line}) sits beside the compiler crash: a full disk or TMPDIR makes "
                "compilers die, so the disk is the likelier root."
            )
            return out, notes

    # 9. a setup.py that crashed on None while reading torch's CUDA version: torch.version.cuda
    #    is None in a CPU-only torch (openvino.genai#163: auto-gptq's setup.py, macOS;
    #    ashawkey/torch-ngp#167: cpp_extension's _check_cuda_version parsing None).
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
        notes.append("A NoneType error right after code that reads torch's CUDA version: a CPU-only torch.")
        return out, notes

    # 10. find_package(Torch) failed inside pip's isolated build environment: torch is not
    #     installed there (tatsy/torchmcubes#29; scikit-build-core and setuptools both).
    if root.cause_id == "torch_cmake_config_not_found" and ctx.pip_isolated and not ctx.no_build_isolation:
        first = _as(
            root,
            "torch_missing_in_build_env",
            0.7,
            "CMake's find_package(Torch) ran in pip's isolated build environment, which has no torch: the package "
            "does not declare torch as a build requirement.",
            "pip install --no-build-isolation <pkg> with torch installed (or add torch to the package's "
            "build-system.requires).",
            "https://github.com/tatsy/torchmcubes/pull/29",
        )
        out = [first, _cap(root, UNDECIDED_CAP), *rest]
        notes.append("pip built this in an isolated environment: torch is not installed there.")
        return out, notes
    # 11. "No module named 'torch'" in a log that shows no package build at all: a program run
    #     in an environment without torch, not pip's isolated build (the cause is about builds).
    if root.signature == "module-not-found-torch" and not ctx.building:
        out = [_cap(root, 0.6), *rest]
        notes.append(
            "No package build shows in the log: if this happened while building, torch is missing from the build "
            "environment (pip's isolation); if a program failed, torch is not installed in the Python that ran it."
        )
        return out, notes
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
        notes.append("The log does not show whether CMake ran by hand or under pip: both causes are listed.")
        return out, notes
    return out, notes
