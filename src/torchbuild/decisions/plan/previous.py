"""What an earlier build left behind: a ``CMakeCache.txt`` that disagrees with the plan
(:func:`cmake_cache_diff`), and whether a develop-mode rebuild can run CMake's build
directly (:func:`incremental`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...facts.model import Facts
from .model import CacheDiff, Plan, Setting, cmake_truth


def _incremental(plan: Plan, facts: Facts, previous: Mapping[str, Any] | None, *, full: bool) -> Setting:
    """Whether a develop-mode rebuild of a PyTorch tree can run CMake's build directly.

    PyTorch's setup.py (<= 2.13) configures only when ``build/CMakeCache.txt`` is missing and
    then runs ``cmake --build . --target install`` (its ``tools/setup_helpers/cmake.py``); everything
    else it does on a rebuild (metadata, ``version.py``, the editable install) depends only on
    the plan's environment, the interpreter and the git SHA.  When all three equal those of
    the last successful build and nothing needs reconfiguring, the CMake build alone is the
    same rebuild without pip's seconds of overhead.
    """
    if full:
        return Setting(False, "--full")
    if plan.kind != "pytorch" or plan.mode.value != "develop" or plan.backend != "setup.py":
        return Setting(False, "only develop-mode builds of a setup.py PyTorch tree")
    if plan.reconfigure:
        return Setting(False, "the CMake cache disagrees with the plan")
    if not previous:
        return Setting(False, "no earlier successful build of this tree")
    prev_plan = previous.get("plan") or {}
    prev_env = {k: str(v.get("value")) for k, v in (prev_plan.get("env") or {}).items() if isinstance(v, dict)}
    if prev_plan.get("mode", {}).get("value") != "develop" or prev_plan.get("python") != plan.python:
        return Setting(False, "the last build used another mode or interpreter")
    if prev_env != plan.env_values():
        return Setting(False, "the build environment changed since the last build")
    if (previous.get("source") or {}).get("git_sha") != (facts.source.git_sha if facts.source else None):
        return Setting(False, "the git commit changed since the last build (version.py must be regenerated)")
    return Setting(
        True, f"same plan, interpreter and commit as the build of {previous.get('started', 'the last record')}"
    )


def cmake_cache_diff(plan: Plan, cache: Mapping[str, str]) -> list[CacheDiff]:
    """Values the plan passes to CMake that an existing cache holds differently.

    PyTorch configures only when ``build/CMakeCache.txt`` is missing (its
    ``tools/setup_helpers/cmake.py``), so each difference would be
    silently ignored by a plain rebuild.  Booleans compare by CMake truthiness; names the
    cache does not hold are not differences.
    """
    planned: dict[str, str] = {}
    for k, s in plan.env.items():
        if k == "CMAKE_BUILD_PARALLEL_LEVEL":
            continue  # a build setting, not a configure one
        if k.startswith(("USE_", "BUILD_", "CMAKE_")) or k == "TORCH_CUDA_ARCH_LIST":
            planned[k] = str(s.value)
    diffs: list[CacheDiff] = []
    for k, v in planned.items():
        if k not in cache:
            continue
        old = cache[k]
        a, b = cmake_truth(old), cmake_truth(v)
        if k.endswith("_COMPILER_LAUNCHER"):
            same = Path(old.split(";")[0]).name == Path(v).name  # PyTorch caches the launcher's full path
        else:
            same = (a == b) if (a is not None and b is not None) else (old == v)
        if not same:
            diffs.append(CacheDiff(k, old, v))
    return diffs
