"""Reasoning rules for failures at import time, after a build (pure): an undefined torch symbol
(another torch or the other C++ ABI), an extension built without CUDA (its CUDA version 0.0) or
compiled here with another CUDA toolkit than torch's,
``No module named 'torch._C'`` from an installed torch, a torch library missing from a source
checkout, a versioned CUDA/ROCm/torch library not found (or one torch before 1.5 never had).
Each rule takes the root cause and the rest, the log's context and its signature hits, and
returns the new cause list with notes, or None; see
:func:`torchbuild.decisions.diagnose_reasons.reason`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..knowledge.compat import major_minor, torch_for_torchvision, torchvision_for_torch
from .diagnose_context import LogContext
from .diagnose_rules_common import (
    _CUDA_SO,
    _ROCM_SO,
    _TORCH_SO,
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _abi_evidence,
    _as,
    _cap,
    _CauseLike,
    _release,
    _root_line,
    _site,
    _torch_new_abi,
    _unknown,
)

#: The line of a library that Python failed to load (an extension's import, ctypes): the loader's own
#: message follows the exception name.
_PY_LOAD_ERROR = re.compile(r"\b(?:ImportError|OSError)\b")


def _abi_or_version(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A missing torch symbol that takes std::string: another torch, or the other C++ ABI.  An ABI
    difference the log shows decides for the ABI; confidently only when both
    -D_GLIBCXX_USE_CXX11_ABI values are printed, otherwise (torch's ABI inferred from its version
    or distributor: conda-forge, pip wheels from 2.7) at 0.65 with another torch build listed
    second. Sources: rusty1s/pytorch_scatter#186, rusty1s/pytorch_sparse#250 (version),
    CharlesShang/DCNv2#19 (ABI), LMCache/LMCache#1294 (an inferred ABI difference that was another
    torch at build time)."""
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
            return [first, second, *rest], [
                "The missing symbol takes the C++11-ABI std::string (std::__cxx11): an extension built with "
                "_GLIBCXX_USE_CXX11_ABI=1 against a torch built with 0 (pip wheels before torch 2.7) is the usual "
                "cause; check torch._C._GLIBCXX_USE_CXX11_ABI."
            ]
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
            return out, [
                "The missing symbol fits both an extension built for another torch and a C++ ABI mismatch; "
                "the log shows neither torch's ABI nor the extension's, so both are listed."
            ]
        if len(ctx.abi_flags) < 2:
            # The ABIs differ, but torch's ABI is only inferred from its version or its
            # distributor: an extension compiled against this torch takes torch's ABI, so the
            # other ABI also means it was compiled against another torch build (a build
            # isolation's torch, another distributor's).  LMCache/LMCache#1294, pytorch/audio#3335.
            first = _cap(root, 0.65)
            second = _as(
                root,
                "torch_extension_mismatch",
                0.5,
                f"The extension was compiled against another torch build than the one it runs with: {symbol} "
                "has the other C++ ABI, which an extension built against this torch would not have.",
                "Rebuild the extension against the torch you run (pip install --no-build-isolation --no-cache-dir "
                "<pkg>), or install the builds of torch and the extension made together (same version, same index).",
                "https://github.com/LMCache/LMCache/issues/1294",
            )
            return [first, second, *rest], [
                "torch's C++ ABI is inferred from its version or distributor, not printed: an extension built "
                "against this torch takes its ABI, so it was built against another torch build or with the ABI "
                "flag forced."
            ]

    return None


def _torch_c_installed(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A "No module named 'torch._C'" from an installed torch is not the source tree. Source:
    tsurumeso/vocal-remover#109 (site-packages) vs pytorch/pytorch#788."""
    if root.cause_id == "import_from_source_dir" and ctx.torch_imports and all(_site(p) for p in ctx.torch_imports):
        first = _unknown(
            root,
            f"torch was imported from an installed package ({ctx.torch_imports[0]}), not from a source tree, "
            "and its compiled module torch._C is missing: a broken or partial install.",
            "Reinstall torch (pip install --force-reinstall torch, with the index URL of your CUDA build).",
        )
        return [first, *rest], ["torch came from site-packages, so the source-tree explanation does not fit."]

    return None


def _extension_built_without_cuda(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """An extension whose CUDA version is 0.0 in the check "PyTorch and X were compiled with different
    CUDA versions" (torch_scatter, torch_sparse, torchvision) was built without CUDA at all, not for
    another CUDA: its setup.py found no GPU or no nvcc and built the CPU variant. None of the cause
    ids says that, so the answer is unknown with what to do. Source: rusty1s/pytorch_sparse's
    setup.py (WITH_CUDA needs torch.cuda.is_available() and CUDA_HOME, or FORCE_CUDA=1), as the
    maintainer answered in a thread of issue 11's corpus (batch 18, read after its measurement)."""
    if root.signature != "extension-different-cuda":
        return None
    text = " ".join(e.text for e in getattr(root, "evidence", []))
    ext = root.values.get("ext", "the extension")
    if not re.search(rf"{re.escape(ext)} has CUDA [Vv]ersion[= ]*0\.0\b", text):
        return None
    first = _unknown(
        root,
        f"{ext} was built without CUDA (its CUDA version is 0.0), not for another CUDA: where it was "
        "compiled, its setup.py saw no GPU or no nvcc and built the CPU-only variant.",
        f"Rebuild {ext} with CUDA forced on where no GPU is visible (FORCE_CUDA=1, with nvcc on PATH and "
        f"TORCH_CUDA_ARCH_LIST set), or install its prebuilt wheel for this torch and CUDA.",
    )
    return [first, _cap(root, UNDECIDED_CAP), *rest], [
        f"{ext} reports CUDA 0.0: a CPU-only build of it, not a CUDA mismatch."
    ]


def _extension_compiled_for_other_cuda(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """ "PyTorch and X were compiled with different CUDA versions" is a prebuilt X made for another CUDA
    build of torch (the signature's cause, below 0.7: install the matching X; the toolkit that built X is
    listed second, as two of six such threads judged it, e.g. malllabiisc/CompGCN#23), unless the log
    shows X compiled here (pip's "Building wheel for X", setuptools' "building 'X._C' extension", or
    torch's cpp_extension comparing nvcc's CUDA with torch's): then the toolkit that compiled it is the root. Sources:
    mathmanu/edgeai-torchvision#18 (torchvision built from source with the system's CUDA 11.7 against
    torch for 11.3), rusty1s/pytorch_sparse#49 (a prebuilt torch_sparse for CUDA 10.0; the +cu101
    wheels fixed it)."""
    if root.signature != "extension-different-cuda":
        return None
    ext = root.values.get("ext", "")
    if not (ctx.cuda_compared or ext.lower() in ctx.built):
        second = _as(
            root,
            "cuda_version_mismatch",
            0.5,
            f"{ext} may also have been built here earlier with a CUDA toolkit other than torch's (CUDA_HOME or the "
            "first nvcc on PATH), not installed as a prebuilt binary.",
            f"Rebuild {ext} with the toolkit of torch's CUDA (CUDA_HOME=/usr/local/cuda-<torch.version.cuda>).",
            "https://github.com/malllabiisc/CompGCN/issues/23",
        )
        return [root, second, *rest], [
            f"The log does not show how {ext} was installed: a prebuilt binary for another CUDA build of torch "
            "(the usual case) or a build with another CUDA toolkit; both are listed."
        ]
    first = _as(
        root,
        "cuda_version_mismatch",
        0.8,
        f"{ext} was compiled in this log with a CUDA toolkit other than the one torch was built with: the nvcc "
        f"that built it (CUDA_HOME, or the first nvcc on PATH) does not match torch.version.cuda.",
        f"Rebuild {ext} with the toolkit of torch's CUDA (CUDA_HOME=/usr/local/cuda-<torch.version.cuda>), or "
        f"install the prebuilt {ext} made for this torch.",
        "https://github.com/mathmanu/edgeai-torchvision/issues/18",
    )
    return [first, _cap(root, UNDECIDED_CAP), *rest], [
        f"{ext} was built in this log: the toolkit that compiled it, not a prebuilt binary, differs from torch's CUDA."
    ]


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
    if root.cause_id == "shared_library_not_found":
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
                return [ext, _cap(root, UNDECIDED_CAP), *rest], [
                    f"The library wanted (CUDA {want}) differs from the CUDA the log shows ({other[0]})."
                ]
            return [_cap(root, 0.6), ext, *rest], [
                f"libraries of CUDA {want} are missing: either not on the library path, or the module "
                "was built for another CUDA; the log does not show which CUDA this machine has."
            ]
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
            return [ext, _cap(root, UNDECIDED_CAP), *rest], [
                f"torch {older[0]} predates torch 1.5's libtorch_cpu/libtorch_cuda libraries."
            ]
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


#: A module in torch's JIT build cache: ``<TORCH_EXTENSIONS_DIR or ~/.cache/torch_extensions>/py<XY>_cu<ZZZ>/<name>/``.
_JIT_CACHE = re.compile(r"[/\\]torch_extensions[/\\](?:py\d+\w*_(?:cu\d+|cpu|rocm[\d.]+)[/\\])?(?P<name>[\w.-]+)[/\\]")

#: The signatures that name a torch symbol (or torch type) a module needs and the torch loaded lacks.
_TORCH_SYMBOL_SIGNATURES = frozenset(
    {
        "undefined-symbol-torch",
        "undefined-symbol-torch-demangled",
        "macos-symbol-not-found-torch",
        "undefined-symbol-abi",
    }
)


def _stale_jit_cache(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A torch symbol missing from a module that torch's JIT built into its cache (``torch_extensions/
    py38_cu113/fused_adam/``): the cache folder is named after the Python and CUDA versions only
    (torch/utils/cpp_extension.py ``_get_build_directory``), and the versioner hashes the sources and
    build flags, not torch's version (``_cpp_extension_versioner.py``), so a module built by the torch
    installed before is loaded again after torch changed (huggingface/transformers#18868: DeepSpeed's
    fused_adam in a CI runner's cache; deleting the cache fixed it).  The extension built for another
    torch stays listed second."""
    if root.signature not in _TORCH_SYMBOL_SIGNATURES:
        return None
    text = _root_line(root)
    m = _JIT_CACHE.search(text)
    if m is None:
        return None
    name = m.group("name")
    first = _as(
        root,
        "stale_build_dir",
        0.7,
        f"{name} was loaded from torch's JIT build cache (torch_extensions), built there by an earlier torch: "
        "the cache is keyed by the Python and CUDA versions and the sources, not by torch's version, so it "
        "survives an upgrade of torch and no longer fits it.",
        f"Delete the cached build (rm -rf ~/.cache/torch_extensions/*/{name}, or the folder TORCH_EXTENSIONS_DIR "
        "points at) and run again, so that torch compiles it anew.",
        "https://github.com/huggingface/transformers/pull/18868",
    )
    return [first, _cap(root, UNDECIDED_CAP), *rest], [
        f"The module lives in torch's JIT cache: a build by an earlier torch is the likely root ({name})."
    ]


def _torchvision_for_other_torch(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """torchvision that does not fit the installed torch, when the log prints both versions (one each)
    and torchvision's own table knows the pair: the extension mismatch is then confirmed (0.8), and the
    fix names the torchvision release made for this torch (knowledge/data/domain_libraries.toml, from
    https://github.com/pytorch/vision/blob/0a12c0708810ae6a9a64b584fb8e412412c22b9d/README.md)."""
    if root.cause_id != "torch_extension_mismatch":
        return None
    text = _root_line(root)
    if "torchvision" not in text and "torchvision" not in " ".join(root.values.values()):
        return None
    torches = {mm for v in ctx.torch_versions if (mm := major_minor(v))}
    visions = {mm for v in ctx.torchvision_versions if (mm := major_minor(v))}
    if len(torches) != 1 or len(visions) != 1:
        return None
    torch_mm, vision = next(iter(torches)), ctx.torchvision_versions[0]
    made_for = torch_for_torchvision(vision)
    if made_for is None or made_for.torch == torch_mm:
        return None
    fitting = torchvision_for_torch(torch_mm)
    install = (
        f"torchvision {fitting.torchvision[-1]}, the release made for torch {torch_mm} "
        f"(pip install 'torchvision=={fitting.torchvision[-1]}.*')"
        if fitting
        else f"the torchvision release made for torch {torch_mm} (torchvision's compatibility table)"
    )
    first = _as(
        root,
        "torch_extension_mismatch",
        max(root.confidence, 0.8),
        f"torchvision {vision} is made for torch {made_for.torch} (torchvision's compatibility table), and the "
        f"log shows torch {torch_mm}: its compiled ops do not fit this torch.",
        f"Install {install}, from the same index as torch (same CUDA or CPU build), or the torch {made_for.torch} "
        f"that this torchvision was made for.",
        made_for.source,
    )
    return [first, *rest], [f"torchvision {vision} goes with torch {made_for.torch}; the log shows torch {torch_mm}."]
