"""Reasoning rules for failures at import time, after a build (pure): an undefined torch symbol
(another torch or the other C++ ABI), an extension built without CUDA (its CUDA version 0.0) or
compiled here with another CUDA toolkit than torch's,
``No module named 'torch._C'`` from an installed torch, a stale JIT build, a torchvision for another torch
(a library that is not found: :mod:`~torchbuild.decisions.diagnose_rules_libraries`).
Each rule takes the root cause and the rest, the log's context and its signature hits, and
returns the new cause list with notes, or None; see
:func:`torchbuild.decisions.diagnose_reasons.reason`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .diagnose_context import LogContext
from .diagnose_rules_common import (
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _abi_evidence,
    _as,
    _cap,
    _CauseLike,
    _first_ahead,
    _root_line,
    _site,
    _torch_new_abi,
    _unknown,
    _unknown_ahead,
)


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
    return _unknown_ahead(
        root,
        rest,
        f"{ext} was built without CUDA (its CUDA version is 0.0), not for another CUDA: where it was "
        "compiled, its setup.py saw no GPU or no nvcc and built the CPU-only variant.",
        f"Rebuild {ext} with CUDA forced on where no GPU is visible (FORCE_CUDA=1, with nvcc on PATH and "
        f"TORCH_CUDA_ARCH_LIST set), or install its prebuilt wheel for this torch and CUDA.",
        f"{ext} reports CUDA 0.0: a CPU-only build of it, not a CUDA mismatch.",
    )


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
    return _first_ahead(
        first,
        root,
        rest,
        f"{ext} was built in this log: the toolkit that compiled it, not a prebuilt binary, differs from torch's CUDA.",
    )


def _torch_python_not_loaded_first(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """An extension missing ``THPVariableClass``: that symbol is defined in torch's libtorch_python (its dynamic
    symbol table, read in the test), which torch loads without making its symbols global, so a module that does not
    link torch_python itself cannot see it, imported first or not; one that links it without an RPATH loads only
    after ``import torch`` (both reproduced with a real module in tests/diagnose/test_issue11_session52.py;
    pytorch/extension-cpp#6: import torch first; hjwdzh/DeepLM#15: TORCH_USE_RTLD_GLOBAL=YES).  No cause id names
    that, and of the seen logs with this symbol missing 8 of 9 were labelled unknown, so the answer is unknown with
    what to do; another torch stays second."""
    if root.signature != "undefined-symbol-torch" or "THPVariableClass" not in _root_line(root):
        return None
    return _unknown_ahead(
        root,
        rest,
        "The module needs THPVariableClass, which lives in torch's libtorch_python: the module does not link "
        "torch_python itself and so cannot see it (torch keeps its symbols local), or it was imported before torch.",
        "Import torch before the module; if that does not help, link the module against torch_python (as "
        "torch.utils.cpp_extension's CppExtension does) or run with TORCH_USE_RTLD_GLOBAL=YES.",
        "THPVariableClass is torch's own Python binding, in libtorch_python: a linking or import-order problem.",
    )


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
    return _first_ahead(
        first,
        root,
        rest,
        f"The module lives in torch's JIT cache: a build by an earlier torch is the likely root ({name}).",
    )


def _torchvision_for_other_torch(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """torchvision that does not fit the installed torch, when the log prints both versions (one each)
    and torchvision's own table knows the pair: the extension mismatch is then confirmed (0.8), and the
    fix names the torchvision release made for this torch (knowledge/data/domain_libraries.toml, from
    https://github.com/pytorch/vision/blob/0a12c0708810ae6a9a64b584fb8e412412c22b9d/README.md and
    https://github.com/pytorch/pytorch/wiki/PyTorch-Versions)."""
    if root.cause_id != "torch_extension_mismatch":
        return None
    text = _root_line(root)
    if "torchvision" not in text and "torchvision" not in " ".join(root.values.values()):
        return None
    # imported here: the compatibility tables (and packaging) are read only for a log that needs them
    from ..knowledge.compat import major_minor, torch_for_torchvision, torchvision_for_torch

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


def _private_module_not_built(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """ "No module named 'X'" for a top-level module named like a compiled one (private ``_X``, or ``X_cuda``,
    ``X_ext``, ``X_cpu``...: the signature ``module-not-found-compiled``, which names them) is a project's own
    compiled module that was not built, not installed, or built for another Python, rather than a distribution
    to pip-install: no cause id names that, so the answer is unknown with what to do, and the missing
    dependency stays second.  Of the corpus's logs with such a module missing (issue 11, up to batch 213), the
    threads judged 8 unknown (k2-fsa/k2's _k2 built for another Python, lmdeploy's _turbomind, GeneFace's
    _raymarching_face, apex's fused_layer_norm_cuda, flashfftconv's monarch_cuda never built, ...) and none a
    missing dependency."""
    if root.signature != "module-not-found-compiled":
        return None
    module = root.values.get("module", "")
    return _unknown_ahead(
        root,
        rest,
        f"'{module}' is named like a compiled module of the project itself (not a package on PyPI): it was not "
        "built, not installed into this Python, or built for another Python version.",
        f"Build the project's extension in this environment (pip install . / python setup.py build_ext --inplace, "
        f"or the project's own build script for {module}) and check that build's log; a prebuilt {module} must "
        "match this Python's version.",
        f"'{module}' is a compiled module of the project, not a missing distribution.",
    )


#: A traceback frame of a package's ``__init__.py`` by a relative path (``File "noise/__init__.py", line 12, in
#: <module>``): the package was found in the current folder, not in site-packages (whose frames are absolute).
_RELATIVE_INIT = re.compile(r'File "(?P<package>[A-Za-z_][\w.-]*)[/\\](?:[\w.-]+[/\\])*__init__\.py", line \d+')
#: The causes an import failure of the package's own code is named with before this rule looks at its frames.
_IMPORT_GUESSES = frozenset({"unknown", "python_dependency_missing", "dependency_version_conflict"})


def _package_from_current_folder(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """An ImportError typed into an interactive Python (or python -c) whose traceback runs a package's
    ``__init__.py`` by a relative path: Python found the package in the current folder, a source checkout in
    which its compiled modules were never built, before the installed one (caseman/noise#13, issue 11 batch 946
    dev: "cannot import name _perlin" run from the folder above the clone; cupy's and torch's source-tree logs of
    the corpus).  The import's own guess (a missing module, another version) stays second."""
    if not ctx.interactive or root.cause_id not in _IMPORT_GUESSES:
        return None
    line = _root_line(root)
    if "ImportError" not in line and "ModuleNotFoundError" not in line:
        return None
    m = next((m for e in getattr(root, "evidence", []) if (m := _RELATIVE_INIT.search(e.text))), None)
    if m is None:
        return None
    package = m.group("package")
    first = _as(
        root,
        "import_from_source_dir",
        UNDECIDED_CAP + 0.05,
        f"The traceback runs {package}/__init__.py by a relative path: the interactive Python imported {package} "
        f"from the current folder (a source checkout, where its compiled modules were not built) instead of the "
        "installed package.",
        f"Run Python from another folder (cd out of the checkout) so that the installed {package} is imported; "
        "or build the checkout in place (pip install -e . / python setup.py build_ext --inplace).",
        "https://github.com/caseman/noise/issues/13",
    )
    return _first_ahead(
        first,
        root,
        rest,
        f"{package} is imported from the current folder (a relative path in the traceback), not from site-packages.",
    )


def _package_without_its_module(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """ "No module named 'pkg.sub'" that no earlier rule explained (signature ``module-not-found-submodule``):
    the package is there without one of its modules, which the log alone does not tell apart: its compiled
    part was never built, an unbuilt source folder shadows it, or the installed release of the package has no
    such module (another version wanted).  A missing distribution to install is the least of these, so it
    goes second and the answer is unknown, with the three checks as the fix.  At first sight (issue 11,
    benchmarks/realworld_firstsight.json, batches 64-213) this signature was named first for 18 logs whose
    threads judged 9 unknown (liger-kernel's triton.language.extra.libdevice, PointPillars' never-compiled
    ops.voxel_op, deepxde.nn.pytorch, ...), 3 a dependency version conflict, 3 a source folder in the way,
    1 a removed torch API and 2 a missing dependency."""
    if root.signature != "module-not-found-submodule":
        return None
    module = root.values.get("module", "")
    package = module.split(".", 1)[0]
    evidence = [e.text for e in getattr(root, "evidence", [])]
    checkout = _checkout_of(package, evidence)
    if ctx.interactive and checkout is not None:
        # typed into an interpreter (or python -c) started in the checkout: its current folder comes first on
        # sys.path, so the unbuilt source folder shadows the installed package (ShichenLiu/SoftRas#19, batch 126
        # dev; NVIDIAGameWorks/kaolin#3, batch 263 dev)
        first = _as(
            root,
            "import_from_source_dir",
            UNDECIDED_CAP + 0.05,
            f"'{package}' was imported from the source checkout {checkout}/{package} by code typed into an "
            f"interactive Python (or python -c), whose current folder comes first on sys.path: the checkout's "
            f"unbuilt folder shadows the installed {package}, and it lacks the compiled '{module}'.",
            f"Run Python from another folder (cd out of {checkout}) so that the installed {package} is imported; "
            "or build the extension in place (pip install -e . / python setup.py build_ext --inplace).",
            "https://docs.python.org/3/library/sys.html#sys.path",
        )
        return _first_ahead(
            first,
            root,
            rest,
            f"The traceback runs in {checkout}/{package}, not in site-packages, from an interactive interpreter.",
        )
    said = next((t for t in evidence if _says_source_dir(t)), None)
    if said is not None:
        # the package's own message says it in words: "Do not import qlib package in the repository directory"
        # (microsoft/qlib#279, batch 494 dev; concept said-import-from-source-dir)
        first = _as(
            root,
            "import_from_source_dir",
            UNDECIDED_CAP + 0.05,
            f"'{package}' lacks its module '{module}', and the package's own message says it is imported from its "
            f"source directory: {said.strip()}",
            f"Run Python from another folder than the {package} checkout (in an IDE: remove the checkout from the "
            f"content roots / sys.path), so that the installed {package} is imported; or build it in place first.",
            "https://docs.python.org/3/library/sys.html#sys.path",
        )
        return _first_ahead(
            first, root, rest, f"The log says in words that {package} is imported from its source directory."
        )
    return _unknown_ahead(
        root,
        rest,
        f"Python found the package '{package}' but not its module '{module}'. The log does not tell which of "
        f"these it is: {package}'s compiled part was never built, an unbuilt source folder named {package} "
        f"shadows the installed package (Python started inside the source tree), or the installed release of "
        f"{package} has no such module (the code wants another version).",
        f"Check where '{package}' is imported from (python -c \"import {package}; print({package}.__file__)\"): "
        f"run Python outside the source folder; build the package in place or install it (pip install .), "
        f"and read that build's log; or install the {package} release that has '{module}' (the version the "
        "code was written for).",
        f"'{module}' is missing from an installed or present package '{package}': not built, shadowed, or "
        "another version; not a distribution to install.",
    )


def _says_source_dir(text: str) -> bool:
    """True when ``text`` says in words that a package is imported from its source directory (the concept
    ``said-import-from-source-dir`` of knowledge/data/concepts.toml reads it)."""
    # imported here: the diagnose package imports these rules (diagnose.matching -> diagnose_reasons)
    from .diagnose.concepts import read_line

    concept = read_line(text)
    return concept is not None and concept.cause == "import_from_source_dir"


def _checkout_of(package: str, lines: Sequence[str]) -> str | None:
    """The folder that holds ``package`` as a source checkout: a traceback line ``File "<dir>/<package>/..."``
    among ``lines`` whose path is not in site-packages or dist-packages; ``<dir>`` or None."""
    pat = re.compile(r'File "(?P<d>[^"]*)[/\\]' + re.escape(package) + r'[/\\][^"]*"')
    for text in lines:
        m = pat.search(text)
        if m and not _site(m.group(0)):
            return m.group("d")
    return None


#: What a frozen application reports when its bundler left torch's files out.
_BUNDLE_SYMPTOMS = ("import_from_source_dir", "shared_library_not_found", "python_dependency_missing")


def _frozen_app_bundle(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A frozen application (PyInstaller, cx_Freeze: :attr:`LogContext.frozen`) that cannot import torch._C,
    load one of torch's DLLs or find a module: its torch is the copy the bundler collected, so the missing
    piece is the bundle's, which no cause id names (unknown, with the symptom second).  Threads of issue 11's
    corpus (batch 203 dev): PyInstaller without torch's hidden imports, cx_Freeze without cuDNN's DLLs."""
    if not ctx.frozen or root.cause_id not in _BUNDLE_SYMPTOMS:
        return None
    return _unknown_ahead(
        root,
        rest,
        "The program is a frozen application (PyInstaller or cx_Freeze): its torch is the copy the bundler "
        "collected, and the bundle lacks one of torch's modules or libraries, which the normal install has.",
        "Make the bundler collect all of torch: PyInstaller --collect-all torch (or collect_all('torch') / "
        "collect_dynamic_libs('torch') and hiddenimports in the .spec file), cx_Freeze packages=['torch'] with "
        "its lib folder included; check that the bundle's torch/lib holds every DLL/.so of site-packages/torch/lib.",
        "The traceback runs inside a frozen application, so the missing piece is the bundle's.",
    )
