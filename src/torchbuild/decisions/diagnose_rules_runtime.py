"""Reasoning rules for a program that failed at run time (pure): a crash printed by the shell alone ("Segmentation
fault (core dumped)") names no program, and the signatures read it as a compiler's crash, which it is in a build.
When the log shows a Python session instead (an interactive prompt, ``python -c``) and no package build, the crash
is the program's: no cause id names it from that line. A package that warned it runs without its own ``_C`` op and
then fails on ``NameError: name '_C' is not defined`` lacks its own extension, not torch's; nor is a module that was
never built because torch's extension builder found no compiler a missing dependency, and torch's own ``torch._C``
failing on "numpy.core.multiarray failed to import" with no NumPy version message is NumPy not installed.  A torch
name the installed torch lacks but a recent torch has (knowledge/data/torch_names.toml) is code that needs a newer
torch, not an API torch removed.  Each
rule takes the root cause, the other causes, the log's context and its signature hits and returns the new cause list
with notes, or None (the shape of :mod:`torchbuild.decisions.diagnose_rules_build`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ..knowledge import rows
from .diagnose_context import LogContext
from .diagnose_rules_common import (
    CauseFor,
    SignatureHit,
    Verdict,
    _as,
    _CauseLike,
    _first_ahead,
    _hit_first,
    _root_line,
    _unknown_ahead,
)

#: The signature of a crash the shell printed without naming the program (knowledge/data/signatures/resources.toml).
_SHELL_CRASH = "segfault-alone"


def _crash_in_a_python_session(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A bare "Segmentation fault" after a Python prompt or ``python -c`` (:attr:`LogContext.interactive`) in a log
    that shows no package build (:attr:`LogContext.building`): the Python program crashed, not a compiler, and the
    line alone cannot tell why.  Threads of issue 11's corpus where it was so: Open3D imported after SciPy, two C++
    ABIs in one process (isl-org/Open3D#1426, batch 980 held-out); Caffe2's ONNX backend beside another protobuf
    (pytorch/pytorch#7078, batch 493 held-out).  Returns ``unknown`` first with the compiler reading second."""
    if root.signature != _SHELL_CRASH or not ctx.interactive or ctx.building:
        return None
    return _unknown_ahead(
        root,
        rest,
        "A Python program crashed with a segmentation fault (the prompt or python -c above shows it was Python, not "
        "a compiler): a compiled module it loaded crashed, and the log does not say which one or why (often two "
        "libraries built against different C++ ABIs, protobuf or torch versions in one process).",
        "Rerun with python -X faulthandler (or under gdb: gdb -ex run --args python ...) to see the crashing "
        "module, then reinstall or rebuild that module for the torch and libraries in this environment; changing "
        "the order of the imports is a hint, not a fix.",
        "The crash follows a Python prompt, not a build step: it is the program's, not the compiler's.",
    )


def _package_ops_missing_then_name_error(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """GroundingDINO catches the failed import of its own ``_C`` op, warns "Failed to load custom C++ ops. Running on
    CPU mode Only!" and later fails with "NameError: name '_C' is not defined", which the signatures read as torch's
    own ``_C`` (an unbuilt torch source tree).  With that warning in the log, the ``_C`` is the package's: the
    warning's cause (installed without the CUDA toolkit, IDEA-Research/Grounded-Segment-Anything#53) goes first."""
    return _hit_first(
        root,
        rest,
        hits,
        cause_for,
        roots=frozenset({"torch-c-missing-old-spelling"}),
        hit="groundingdino-custom-ops-cpu-only",
        note="Line {line} warns that the package's own C++ ops did not load: the missing _C is the package's.",
    )


def _module_missing_compiler_missing(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A missing module ("No module named 'custom_conv'") read as a missing Python dependency, in a log that also shows
    torch's extension builder failing on ``which g++`` (knowledge: cpp-extension-which-compiler-failed): the module is
    the package's own extension, never built because no compiler was found (teboli/CPCR#3, issue 11 batch 1141
    held-out, read after session 56's round-B measurement).  The compiler goes first, the missing module second."""
    return _hit_first(
        root,
        rest,
        hits,
        cause_for,
        roots=frozenset({"module-not-found-other"}),
        hit="cpp-extension-which-compiler-failed",
        note="Line {line} shows that no C++ compiler was found: the missing module is an extension never built.",
    )


#: NumPy's C-API import failure, the line the NumPy-ABI row also reads (knowledge: numpy-dtype-size).
_NUMPY_ABI_ROW = "numpy-dtype-size"
#: The rows that read NumPy's own version messages ("module compiled against API version 0xe but this version of
#: numpy is 0xd", NumPy 2's "compiled using NumPy 1.x"): a NumPy is installed, of another ABI.
_NUMPY_VERSION_ROWS = frozenset({"numpy-2-abi"})


def _torch_c_without_numpy(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """torch's own ``from torch._C import *`` (a frame of torch/__init__.py in the traceback) failing with a bare
    "numpy.core.multiarray failed to import", with no NumPy version message anywhere in the log: NumPy is not
    installed, and this torch needs it at import without declaring it (torch 0.1.12's wheel, pytorch/pytorch#1755,
    issue 11 batch 1116 held-out, read after session 56's round-A measurement; torch 1.4.0, pytorch/pytorch#32291,
    batch 1116 dev).  A NumPy of another ABI prints its version message first, which the NumPy rows read.  The
    missing NumPy goes first, the ABI reading second."""
    if root.signature != _NUMPY_ABI_ROW or "multiarray failed to import" not in _root_line(root):
        return None
    if not any(p.replace("\\", "/").endswith("torch/__init__.py") for p in ctx.torch_imports):
        return None
    if any(h.signature in _NUMPY_VERSION_ROWS for h in hits):
        return None
    missing = _as(
        root,
        "python_dependency_missing",
        0.6,
        "torch's compiled module torch._C could not load NumPy's C API, and the log shows no NumPy version message: "
        "NumPy is not installed in this Python, and this torch needs it at import without declaring it.",
        "pip install numpy (in the same Python: python -m pip install numpy), then import torch again.",
        "https://github.com/pytorch/pytorch/issues/32291",
    )
    return _first_ahead(
        missing,
        root,
        rest,
        "torch's own import of torch._C failed on NumPy with no NumPy version message: NumPy is missing.",
    )


#: The row that reads a torch name the installed torch lacks (knowledge: torch-api-missing).
_TORCH_API_ROW = "torch-api-missing"


@functools.lru_cache(maxsize=1)
def _recent_torch_names() -> tuple[str, dict[str, frozenset[str]]]:
    """The torch release knowledge/data/torch_names.toml was recorded from (str, e.g. "2.13.0") and, for each module it
    lists, the names that release defines (``{"torch.library": frozenset({"custom_op", ...})}``); read on first use.

    :raises KnowledgeError: the table is missing or a row has no source (:func:`torchbuild.knowledge.load`)."""
    table = rows("torch_names", "module")
    release = str(table[0]["torch"]) if table else ""
    return release, {str(r["name"]): frozenset(r["names"]) for r in table}


def _torch_name_of_a_newer_torch(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A torch name the installed torch lacks ("cannot import name 'wrap_triton' from 'torch.library'", "module
    'torch.utils._pytree' has no attribute 'register_pytree_node'"), read by the torch-api-missing row as an API torch
    removed, when a recent torch (knowledge/data/torch_names.toml: dir() of its modules) has that name: the name is
    newer than the installed torch, so the code (a package released for a newer torch) needs a newer torch.  Threads
    of issue 11's corpus where it was so: norse needing torch 2.2's register_pytree_node (batch 146 dev), opacus and
    torch.nn.RMSNorm (batch 150 held-out), scattermoe and torch.library.custom_op (batch 672 held-out), boltz and
    wrap_triton (batch 1197 dev), and two held-out logs of batch 1197 read after session 57's round-B measurement
    (a transformers dev release and register_pytree_node, llama-moe-v2's scattermoe and custom_op).
    A name the recent torch lacks stays an API torch removed; a module the table does not list decides nothing.
    Returns the version conflict first (a likely cause, 0.6), the removed-API reading second."""
    if root.signature != _TORCH_API_ROW:
        return None
    module = root.values.get("module") or root.values.get("module2") or ""
    name = root.values.get("name") or root.values.get("name2") or ""
    release, names = _recent_torch_names()
    if not name or name not in names.get(module, frozenset()):
        return None
    newer = _as(
        root,
        "dependency_version_conflict",
        0.6,
        f"The code needs {module}.{name}, which torch {release} has and the installed torch does not: the package "
        "that imports it was released for a newer torch than the one installed (a name torch added, not one it "
        "removed).",
        f"Upgrade torch to a release that has {module}.{name} (the package's requirements or changelog name the "
        "minimum torch), or install an older release of the package that supports the installed torch.",
        f"torch {release}'s modules (knowledge/data/torch_names.toml, recorded by scripts/gen-torch-names)",
    )
    return _first_ahead(
        newer, root, rest, f"torch {release} has {module}.{name}: the installed torch is older than the code needs."
    )
