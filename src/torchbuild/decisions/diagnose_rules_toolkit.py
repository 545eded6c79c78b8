"""Reasoning rules for a CUDA header missing while compiling (pure): which of "no CUDA toolkit at all" and "a toolkit
without that part" the log supports.  Each rule takes the root cause, the other causes, the log's context and its
signature hits and returns the new cause list with notes, or None (the shape of
:mod:`torchbuild.decisions.diagnose_rules_build`; the order of all in
:data:`torchbuild.decisions.diagnose_reasons.RULES`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .diagnose_context import LogContext
from .diagnose_rules_common import (
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _as,
    _CauseLike,
    _first_ahead,
    _root_line,
)

#: The files whose "cuda.h: No such file" the threads judged a toolkit without that part (or no listed cause), not a
#: missing toolkit: Triton's launcher stub, compiled from a main.c in a temporary folder ("/tmp/tmpv1qfkl_e/main.c";
#: triton-lang/triton#4224 and torch.compile's Triton in conda-forge builds), torch's old torch.utils.ffi header
#: THCGeneral.h, and a compiler reading its standard input (pykeops' probe); GCC's "file:line:" and MSVC's
#: "file(line)".
_CUDA_H_NOT_THE_TOOLKIT = re.compile(r"(?:[/\\]tmp\w*[/\\]main\.c|THCGeneral\.h|<stdin>)(?::\d+|\(\d+\))")


def _driver_header_without_toolkit(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A project's own source stopping at "fatal error: cuda.h: No such file or directory" (the CUDA driver API's
    header, which only a CUDA toolkit's include folder has), with no nvcc in the log: the compile found no CUDA
    toolkit at all (CUDA_HOME / CUDA_PATH unset or wrong, a machine or image with only the driver), more often than
    a toolkit without that header.  Issue 11's corpus at session 58: the 6 such logs were all labelled
    cuda_toolkit_not_found (genn-team/genn#411, open-mmlab/OpenPCDet#572, TRAILab/CaDDN#54, inducer/pycuda#201,
    pytorch/pytorch#150442, wilicc/gpu-burn#35); the cuda.h of Triton's launcher, of torch.utils.ffi's THCGeneral.h
    and of a compiler's standard input (:data:`_CUDA_H_NOT_THE_TOOLKIT`) 6 cuda_toolkit_incomplete, 1
    cuda_toolkit_not_found and 3 unknown, so those keep the row's reading.  Both readings are kept, undecided (at
    most :data:`UNDECIDED_CAP`)."""
    if root.signature != "cuda-header-missing" or root.values.get("header") != "cuda.h" or ctx.nvcc_seen:
        return None
    if _CUDA_H_NOT_THE_TOOLKIT.search(_root_line(root)):
        return None
    first = _as(
        root,
        "cuda_toolkit_not_found",
        UNDECIDED_CAP,
        "cuda.h, the CUDA driver API's header, is not on the include path, and the log shows no nvcc: most often the "
        "build found no CUDA toolkit at all (CUDA_HOME or CUDA_PATH unset or pointing elsewhere, or only the driver "
        "installed), less often a toolkit without its headers.",
        "Install the CUDA toolkit (not only the driver or the runtime) and point CUDA_HOME (CUDA_PATH on Windows) at "
        "it, so that $CUDA_HOME/include/cuda.h exists; then build again.",
        "https://github.com/genn-team/genn/issues/411",
    )
    return _first_ahead(
        first,
        root,
        rest,
        "cuda.h is missing and no nvcc appears in the log: no toolkit found is the likelier reading.",
    )
