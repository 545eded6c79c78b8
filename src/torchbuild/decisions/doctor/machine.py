"""Checks of the machine's memory (compile jobs) and free disk."""

from __future__ import annotations

from ...facts.model import Facts
from ..resources import CUDA_JOB_BYTES, CXX_JOB_BYTES, GIB, choose_jobs
from .base import DISK_MIN_BYTES, DISK_NEEDS_BYTES, Finding, _gib, _sudo


def _check_memory(facts: Facts, out: list[Finding], cuda: bool) -> None:
    res = facts.resources
    if not res.memory_total_bytes:
        return
    override = facts.env.get("MAX_JOBS")
    ov = int(override) if override and override.isdigit() else None
    choice = choose_jobs(facts, cuda=cuda, override=ov)
    per_job = CUDA_JOB_BYTES if cuda else CXX_JOB_BYTES
    if ov is not None and ov > choice.memory_allows:
        out.append(
            Finding(
                "memory",
                "warning",
                f"MAX_JOBS={ov} but {_gib(res.memory_available_bytes)} available memory allows "
                f"{choice.memory_allows} {'CUDA ' if cuda else ''}compile jobs at {per_job / 1e9:.0f} GB each: "
                "the compiler may be killed (cc1plus: Killed signal) or the machine may stall.",
                f"export MAX_JOBS={choice.memory_allows}",
            )
        )
        return
    if res.memory_available_bytes < per_job + GIB // 2:
        out.append(
            Finding(
                "memory",
                "warning",
                f"Only {_gib(res.memory_available_bytes)} memory available (of {_gib(res.memory_total_bytes)}); "
                f"one {'CUDA ' if cuda else ''}compile job can take {per_job / 1e9:.0f} GB, "
                "so even 1 job may be killed.",
                "close other programs or add swap ({0}fallocate -l 8G /swapfile && {0}mkswap /swapfile && "
                "{0}swapon /swapfile), and export MAX_JOBS=1".format(_sudo(facts)),
            )
        )
        return
    out.append(
        Finding(
            "memory",
            "note",
            f"Jobs: {choice.reason}.",
            None if choice.limited_by != "memory" else f"export MAX_JOBS={choice.jobs} (torchbuild sets it)",
        )
    )


def _check_disk(facts: Facts, out: list[Finding], kind: str | None, cuda: bool, build: str) -> None:
    res = facts.resources
    if kind is None or res.disk_free_bytes is None:
        return
    need = DISK_NEEDS_BYTES[(kind, bool(cuda))]
    where = res.disk_path or "the build folder"
    if res.disk_free_bytes < DISK_MIN_BYTES:
        out.append(
            Finding(
                "disk",
                "error",
                f"Only {_gib(res.disk_free_bytes)} free at {where}: the build will run out of space.",
                f"free space on that disk (at least {_gib(need)}) or build elsewhere",
            )
        )
    elif res.disk_free_bytes < need:
        out.append(
            Finding(
                "disk",
                "warning",
                f"{_gib(res.disk_free_bytes)} free at {where}; a {'CUDA ' if cuda else ''}{kind} build "
                f"({build}) can take about {_gib(need)} (torchbuild's estimate).",
                "free space on that disk or build on another one",
            )
        )
