"""How many compile jobs a build can run, from cores *and* memory (pure: no I/O).

Memory per job, bytes:

* CUDA translation units: :data:`CUDA_JOB_BYTES` = 5 GB, the top of "nvcc/cicc can use 3-5
  GB per job" (https://github.com/Dao-AILab/flash-attention/pull/832,
  https://github.com/Dao-AILab/flash-attention/issues/2493,
  https://github.com/pytorch/pytorch/pull/130443).  PyTorch's own binary builds cap ``MAX_JOBS`` at
  ``min(nproc-2, 12)`` "to avoid OOMs when compiling FlashAttentionV2"
  (https://github.com/pytorch/pytorch/blob/04cdf084e700/.ci/pytorch/binary_populate_env.sh) and
  conda-forge found 16 jobs OOM on 16 vCPU / 64 GB (``MAX_JOBS=8`` on GitHub Actions,
  https://github.com/conda-forge/pytorch-cpu-feedstock/blob/74dd3d46ff0c/recipe/build.sh), i.e.
  more than 4 GB per CUDA job in practice, consistent with 5 GB.
* C++-only translation units: :data:`CXX_JOB_BYTES` = 2 GB.  The reference gives no
  per-job figure for host C++; this is torchbuild's own conservative default (PyTorch's
  largest host TUs compile well inside it), kept here as one named constant.

One :data:`RESERVE_BYTES` (1 GiB) of the available memory is left for the system and the
build driver (ninja, pip, the linker's parent).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..facts.model import Facts

__all__ = ["JobChoice", "choose_jobs", "CUDA_JOB_BYTES", "CXX_JOB_BYTES", "RESERVE_BYTES", "GIB"]

GIB = 1 << 30
#: Peak memory of one nvcc/cicc job, bytes ("3-5 GB per job": see the module docstring).
CUDA_JOB_BYTES = 5 * 10**9
#: Peak memory of one host C++ compile job, bytes (torchbuild default; see module docstring).
CXX_JOB_BYTES = 2 * 10**9
#: Memory left for everything else, bytes.
RESERVE_BYTES = GIB


@dataclass
class JobChoice:
    """``jobs`` the build will run in parallel and the ``reason`` in words (numbers
    included); ``limited_by`` is ``"cores"``, ``"memory"`` or ``"override"``;
    ``memory_allows`` / ``cores`` are the two limits."""

    jobs: int
    reason: str
    limited_by: str = "cores"
    memory_allows: int = 1
    cores: int = 1


def _gib(n: int | float) -> str:
    return f"{n / GIB:.1f} GiB"


def choose_jobs(facts: Facts, *, cuda: bool, override: int | None = None) -> JobChoice:
    """Parallel compile jobs for this machine.

    :param cuda: the build compiles CUDA sources (5 GB per job instead of 2 GB).
    :param override: the user's ``MAX_JOBS`` / ``--jobs``; it is used as given (the user
        decides) and the reason says when it exceeds what memory or cores allow.
    :returns: :class:`JobChoice`; ``jobs >= 1``; without an override never more than the
        cores or than available memory / per-job memory.
    """
    res = facts.resources
    cores = max(1, int(res.cpu_count or 1))
    per_job = CUDA_JOB_BYTES if cuda else CXX_JOB_BYTES
    kind = "CUDA" if cuda else "C++"
    usable = max(0, int(res.memory_available_bytes or 0) - RESERVE_BYTES)
    mem_jobs = max(1, usable // per_job)
    mem_text = (
        f"{_gib(res.memory_available_bytes)} available - {_gib(RESERVE_BYTES)} reserve "
        f"at {per_job / 1e9:.0f} GB per {kind} compile job allows {mem_jobs}"
    )
    if override is not None and override >= 1:
        over = []
        if override > cores:
            over.append(f"more than the {cores} cores")
        if override > mem_jobs:
            over.append(f"more than memory allows ({mem_text})")
        note = f"; that is {' and '.join(over)}" if over else ""
        return JobChoice(override, f"{override} jobs as requested{note}", "override", mem_jobs, cores)
    if mem_jobs < cores:
        return JobChoice(
            mem_jobs, f"{mem_jobs} jobs: {mem_text}, fewer than the {cores} cores", "memory", mem_jobs, cores
        )
    return JobChoice(cores, f"{cores} jobs: one per core ({cores} cores; {mem_text})", "cores", mem_jobs, cores)
