"""Reasoning rules for a library that is not found at import time (pure): a versioned CUDA or ROCm
library missing because the module was built for another CUDA/ROCm (or only off the loader's path),
torch's own library missing (off the path, or absent from a torch before 1.5 or from a CPU-only torch),
and a torch library missing from a source checkout that Python imported torch from.
Each rule takes the root cause and the rest, the log's context and its signature hits, and
returns the new cause list with notes, or None; see
:func:`torchbuild.decisions.diagnose_reasons.reason`."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..knowledge import rows
from .diagnose_context import LogContext
from .diagnose_rules_common import (
    _CUDA_SO,
    _ROCM_SO,
    _TORCH_SO,
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _as,
    _cap,
    _CauseLike,
    _first_ahead,
    _hit_cause,
    _release,
    _root_line,
    _site,
)

#: The line of a library that Python failed to load (an extension's import, ctypes): the loader's own
#: message follows the exception name.
_PY_LOAD_ERROR = re.compile(r"\b(?:ImportError|OSError)\b")

#: CUDA libraries whose soname version is their own release, not the CUDA toolkit's (libcudnn.so.8 is cuDNN 8).
_NOT_CUDA_VERSIONED = ("libcudnn", "libnccl", "libnvToolsExt")


def _library_of_other_build(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A library that is not found, read with what the log says of its builds: a versioned CUDA or ROCm
    library is missing from the path or the module was built for another CUDA (iSEE-Laboratory/LLMDet#32:
    mmcv for CUDA 10.1 on a CUDA 12.1 system); torch's own library (libc10.so, libtorch_cpu.so,
    libc10_cuda.so) is off the loader's path, or missing from this torch because the module was built for
    a newer one (libtorch_cpu.so) or for a CUDA torch (libc10_cuda.so), which the loader's order tells."""
    if root.cause_id == "shared_library_not_found" and root.signature != "torch-dynamic-library-dlopen-failed":
        # (torch's own run-time dlopen of NVRTC asks for the CUDA torch was built with: no other build is involved,
        # the library is off the loader's path; utensils/comfyui-nix#71, issue 11 batch 725 held-out, read after
        # session 47's measurement)
        # the library the loader could not open, not the one that asked for it ("Could not load library
        # libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open ...": the driver's libcuda.so is missing)
        text = root.values.get("lib", "") or " ".join(e.text for e in getattr(root, "evidence", []))
        m = _CUDA_SO.search(text)
        if m and m.group(0).startswith(_NOT_CUDA_VERSIONED):
            # cuDNN's, NCCL's and NVTX's sonames carry their own major version, not CUDA's
            m = None
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
                return _first_ahead(
                    ext,
                    root,
                    rest,
                    f"The library wanted (CUDA {want}) differs from the CUDA the log shows ({other[0]}).",
                )
            # The log does not show this machine's CUDA.  The threads judged a module other than torch that wants
            # another CUDA's runtime mostly a CUDA mismatch (issue 11's corpus at session 28: 16 cuda_version_mismatch,
            # 10 shared_library_not_found, 3 torch_extension_mismatch), torch's own import mostly its CUDA libraries
            # off the loader's path (8 against 2): the likelier first, both undecided (at most UNDECIDED_CAP).
            major = want.split(".")[0]
            cvm = _as(
                root,
                "cuda_version_mismatch",
                UNDECIDED_CAP,
                f"A module wants the CUDA {want} runtime library, which is not installed: it was built for "
                f"CUDA {want}, and this machine has another CUDA (or CUDA {want}'s libraries are not on the loader's "
                "path).",
                f"Install the build of that package made for your CUDA and torch, or the CUDA {want} runtime it needs "
                f"(the nvidia-*-cu{major} wheels, or that toolkit's lib64 on LD_LIBRARY_PATH).",
                "https://github.com/iSEE-Laboratory/LLMDet/issues/32",
            )
            note = (
                f"libraries of CUDA {want} are missing: either not on the library path, or the module "
                "was built for another CUDA; the log does not show which CUDA this machine has."
            )
            if ctx.torch_imports:
                return [_cap(root, 0.6), cvm, *rest], [note]
            return [cvm, _cap(root, UNDECIDED_CAP), _cap(ext, UNDECIDED_CAP - 0.05), *rest], [note]
        m = _ROCM_SO.search(text)
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
            return out, [
                f"ROCm {want}.x libraries are missing: either not on the library path, or the module was built "
                "for another ROCm; the log does not show which."
            ]

        # torch's own library (libc10.so, libtorch_cpu.so) not found when something loads it: the
        # library directory of torch is not on the loader's path (a module imported before
        # `import torch`: pytorch/extension-cpp, trilinear; a libtorch program without
        # LD_LIBRARY_PATH: hasktorch), or the module was built for a torch that had a library this
        # one lacks (torchlars built for torch >= 1.5 on torch 1.4); one line cannot tell which.
        m = _TORCH_SO.search(root.values.get("lib", ""))
        if m and "_cuda" in m.group("lib") and ctx.torch_cpu_build and not ctx.rocm:
            # a CUDA library of torch missing while the log lists a CPU-only build of torch (conda's
            # cpu_py... build string, pip's +cpu): a module built for a CUDA torch on a CPU torch
            # (openmm/openmm-torch: conda paired the CUDA plugin with a CPU pytorch)
            cpu = _as(
                root,
                "torch_cpu_only",
                0.75,
                f"The module was built against a CUDA torch and needs {m.group('lib')}, and the torch installed "
                "is a CPU-only build (listed in the log), which has no CUDA libraries.",
                "Install a CUDA build of torch (pip install torch --index-url "
                "https://download.pytorch.org/whl/<cuXYZ>, or conda's CUDA build of pytorch), or the module's "
                "CPU build.",
                "https://github.com/openmm/openmm-torch/issues/94",
            )
            return [cpu, _cap(root, UNDECIDED_CAP - 0.05), *rest], [
                "The log lists a CPU-only torch: the CUDA library the module needs is not part of it."
            ]
        older = [v for v in ctx.torch_versions if _before_split(v)]
        if m and m.group("lib").startswith(("libtorch_cpu.", "libtorch_cuda.")) and older:
            # torch 1.5 split libtorch.so into libtorch_cpu.so and libtorch_cuda.so
            # (pytorch/pytorch#30315): a torch before 1.5 has neither, so a module that wants
            # one was built for a newer torch.  kakaobrain/torchlars#15 (built for 1.5, run on 1.4).
            ext = _as(
                root,
                "torch_extension_mismatch",
                0.75,
                f"The module was built for torch 1.5 or newer: it needs {m.group('lib')}, which torch "
                f"{older[0]} does not have (torch 1.5 split libtorch.so into libtorch_cpu.so and libtorch_cuda.so).",
                "Install the build of that package made for this torch (or rebuild it against this torch), "
                "or upgrade torch to the release the package was built for.",
                "https://github.com/pytorch/pytorch/pull/30315",
            )
            return _first_ahead(
                ext, root, rest, f"torch {older[0]} predates torch 1.5's libtorch_cpu/libtorch_cuda libraries."
            )
        line = _root_line(root)
        newer = [v for v in ctx.torch_versions if _release(v) is not None and not _before_split(v)]
        if (
            m
            and m.group("lib").startswith("libtorch_cpu.")
            and not newer  # a torch 1.5 or later in the log has the library: then it is the path
            and _PY_LOAD_ERROR.search(line)
        ):
            # A Python extension links -lc10 before -ltorch_cpu (cpp_extension._prepare_ldflags), and the
            # loader stops at the first library it cannot find: had torch's lib directory been off the
            # path (an import before `import torch`), libc10.so would be the one reported.  So libc10 was
            # found and this torch has no libtorch_cpu.so: a torch before 1.5, the module built for a
            # newer one (YutaroOgawa/pytorch_advanced#111: torchtext 0.7 on an older torch).
            ext = _as(
                root,
                "torch_extension_mismatch",
                0.65,
                f"The module was built for a newer torch: it needs {m.group('lib')}, which the installed torch "
                "does not have (torch 1.5 split libtorch.so into libtorch_cpu.so and libtorch_cuda.so); torch's "
                "other libraries were found, since the loader would have reported libc10.so first otherwise.",
                "Install the release of that package made for this torch (its version table names the torch it "
                "needs), or upgrade torch to the release the package was built for.",
                "https://github.com/YutaroOgawa/pytorch_advanced/issues/111",
            )
            return [ext, _cap(root, UNDECIDED_CAP - 0.05), *rest], [
                f"{m.group('lib')} is the first library missing, not libc10.so: torch's library directory was found, "
                "and the installed torch lacks this library."
            ]
        if m and m.group("lib").startswith("libc10_cuda.") and _PY_LOAD_ERROR.search(line) and not ctx.rocm:
            # The same loader order: code that uses c10_cuda uses c10, linked before it, and libc10.so would
            # be reported first had torch's library directory been off the path; so the directory is there
            # and has no libc10_cuda.so: a CPU-only torch under a module built for CUDA
            # (bharat-b7/RVH_Mesh_Registration#23: pytorch3d's CUDA build, fixed by a CUDA torch).  Not
            # libtorch_cuda.so: a module on torch's stable ABI links it without libc10
            # (pytorch/extension-cpp's stable example, imported before torch).
            cpu = _as(
                root,
                "torch_cpu_only",
                0.65,
                f"The module was built against a CUDA torch and needs {m.group('lib')}, which the installed torch "
                "does not have: torch's other libraries were found (the loader would have reported libc10.so "
                "first otherwise), so this torch is a CPU-only build.",
                "Install a CUDA build of torch (pip install torch --index-url "
                "https://download.pytorch.org/whl/<cuXYZ>, or conda's pytorch-cuda), or the module's CPU build.",
                "https://github.com/bharat-b7/RVH_Mesh_Registration/issues/23",
            )
            return [cpu, _cap(root, UNDECIDED_CAP - 0.05), *rest], [
                f"{m.group('lib')} is the first library missing, not libc10.so: the installed torch has no CUDA "
                "libraries."
            ]
        if m and m.group("lib").startswith("libtorch_cuda.") and _PY_LOAD_ERROR.search(line) and not ctx.rocm:
            # libtorch_cuda.so alone, no torch build in the log: mostly a CUDA module beside a CPU-only torch
            # (openmm/openmm-torch#127, openmm/openmm-ml#67: conda's cpu_* pytorch), which ships no such library
            # (the +cpu wheel's torch/lib); but a module on torch's stable ABI links it without libc10 and, imported
            # before a CUDA torch, says the same (pytorch/extension-cpp#127).  Likely, not stated.
            cpu = _as(
                root,
                "torch_cpu_only",
                0.6,
                f"The module was built against a CUDA torch and needs {m.group('lib')}: most often the installed "
                "torch is a CPU-only build, which has no CUDA libraries.",
                "Check torch.version.cuda: if it is None, install a CUDA build of torch (pip install torch "
                "--index-url https://download.pytorch.org/whl/<cuXYZ>, or conda's CUDA build of pytorch); if it is "
                "a CUDA build, import torch before the module.",
                "https://github.com/openmm/openmm-torch/issues/127",
            )
            return _first_ahead(
                cpu,
                root,
                rest,
                f"{m.group('lib')} is torch's CUDA library: a CPU-only torch has none, and a module imported before a "
                "CUDA torch cannot find it either; the log does not show which torch is installed.",
            )
        if m and root.confidence > 0.6:
            ext = _as(
                root,
                "torch_extension_mismatch",
                UNDECIDED_CAP - 0.05,
                f"The module may also have been built for another torch, one that has {m.group('lib')}.",
                "Install the build of that package made for this torch (or rebuild it against this torch).",
                "https://github.com/kakaobrain/torchlars/issues/15",
            )
            return [_cap(root, 0.6), ext, *rest], [
                f"{m.group('lib')} is torch's own library: either torch's lib directory is not on the loader's path "
                "(import torch before the extension; LD_LIBRARY_PATH for a libtorch program), or the module was "
                "built for another torch; the log does not say which."
            ]

    return None


#: The generic signatures of a library that a build (configure or link) cannot find; their values name it.
_BUILD_LIBRARY_SIGNATURES = frozenset(
    {
        "cmake-find-library-required",
        "ld-cannot-find-lib",
        "ld-library-file-not-recognized",
        "ld-library-file-too-short",
        "lld-unable-to-find-lib",
        "ld64-library-not-found",
        "msvc-cannot-open-input-lib",
        "msvc-lnk1104-input-lib",
        "no-rule-to-make-library",
        "ninja-missing-input-library",
        "pkg-config-package-not-found",
    }
)


@functools.cache
def _library_table() -> tuple[tuple[re.Pattern[str], Mapping[str, Any]], ...]:
    """The rows of knowledge/data/library_causes.toml with their ``names`` compiled, in order."""
    return tuple((re.compile(r["names"]), r) for r in rows("library_causes", "library"))


def library_base_names(values: Mapping[str, str]) -> list[str]:
    """The base names of the libraries a signature's ``values`` name (``lib``, ``names``, ``path``...): the
    file name without folders, a ``lib`` prefix, and a .so/.a/.lib/.dylib/.dll suffix with its version
    (``/usr/lib/x86_64-linux-gnu/libcudnn.so.8`` -> ``cudnn``; ``"cudnn, libcudnn.so"`` -> ``cudnn``, ``cudnn``;
    ``python311.lib`` -> ``python311``), in the order found."""
    out = []
    for key in ("lib", "lib2", "names", "path", "libs"):
        for part in re.split(r"[,\s]+", values.get(key) or ""):
            base = re.split(r"[\\/]", part.strip("'\"`.:;"))[-1]
            base = re.sub(r"\.(?:so|a|lib|dylib|dll)(?:\.[\d.]+)?$", "", base)
            base = re.sub(r"^lib(?=\w)", "", base)
            if base:
                out.append(base)
    return out


def _library_named_at_build(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A library that a build cannot find (ld, lld, ld64, MSVC's linker, CMake's find_library, make/ninja,
    pkg-config), named system_library_missing by the generic signature, whose name says which part of the stack is
    missing: cuDNN, NVTX, the CUDA toolkit, a BLAS, Python (knowledge/data/library_causes.toml, by the library's base
    name).  That cause comes first at the signature's confidence; the generic one stays second
    (NVIDIA/TransformerEngine#954: find_library of "cudnn, libcudnn.so" failing, no cuDNN where CMake looked)."""
    if root.cause_id != "system_library_missing" or root.signature not in _BUILD_LIBRARY_SIGNATURES:
        return None
    for name in library_base_names(root.values):
        for rx, row in _library_table():
            if rx.fullmatch(name):
                named = _as(
                    root,
                    row["cause"],
                    root.confidence,
                    f"The build cannot find {name}, a library of {row['what']}: it is not installed, or not where the "
                    "build looks.",
                    row["fix"],
                    str(row["source"][0]).split(" (")[0],
                )
                return _first_ahead(named, root, rest, f"{name} is a library of {row['what']}.")
    return None


def _glibc_beside_glibcxx(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A binary that wants a newer libstdc++ (GLIBCXX_3.4.x not found) and, in the same log, a newer glibc (GLIBC_2.xx
    not found): it was built on a newer distribution, and a newer libstdc++ alone will not run it; the glibc is the
    root (ggml-org/llama.cpp#9794: prebuilt binaries needing GLIBC_2.38 and GLIBCXX_3.4.32 on Ubuntu 22.04; dotnet's
    TorchSharp on Ubuntu 18.04, the same pair)."""
    if root.cause_id != "glibcxx_too_old":
        return None
    libc = _hit_cause(hits, cause_for, lambda h: h.cause_id == "libc_too_old")
    if libc is None:
        return None
    return _first_ahead(
        libc,
        root,
        rest,
        "The binary needs a newer glibc as well as a newer libstdc++: it was built for a newer distribution.",
    )


def _before_split(version: str) -> bool:
    """Whether torch ``version`` (``1.4``, ``1.4.0+cu101``) predates torch 1.5, the first release with
    libtorch_cpu.so / libtorch_cuda.so (pytorch/pytorch#30315)."""
    release = _release(version)
    return release is not None and release < (1, 5)


def _torch_lib_missing_in_source_tree(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """torch imported from a directory that is not an installed package (no site-packages in its
    path) fails to load a library of its own torch/lib: Python picked up the unbuilt torch/ of a
    source checkout (the current directory), whose libraries were never built there
    (pytorch/pytorch#39995: ``python -c "import torch"`` in a fresh checkout).  A half-finished
    develop build looks the same, so the missing library stays listed second."""
    if root.cause_id not in {"unknown", "shared_library_not_found"} or not ctx.torch_imports:
        return None
    if any(_site(p) for p in ctx.torch_imports):
        return None
    tree = ctx.torch_imports[0].replace("\\", "/").rsplit("/torch/", 1)[0]
    text = _root_line(root).replace("\\", "/")
    if f"{tree}/torch/lib/" not in text:
        return None
    first = _as(
        root,
        "import_from_source_dir",
        0.6,
        f"torch was imported from {tree}, a source tree (not an installed package), and its own library in "
        "torch/lib is not there: Python found the unbuilt torch/ package of the directory it runs in.",
        "Run Python from another directory (cd out of the PyTorch checkout), or finish the build there "
        "(python setup.py develop / pip install -e .).",
        "https://github.com/pytorch/pytorch/pull/39995",
    )
    second = _as(
        root,
        "shared_library_not_found",
        UNDECIDED_CAP - 0.05,
        "Or a develop build of this tree did not finish: the library was never built into torch/lib.",
        "Build the tree again (python setup.py develop) and check that torch/lib holds libtorch*.",
        "https://github.com/pytorch/pytorch/pull/39995",
    )
    return [first, second, *rest], [f"torch came from {tree}, not from site-packages."]
