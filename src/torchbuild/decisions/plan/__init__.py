"""The build plan: facts + knowledge + user intent -> what to run, and why.

Pure functions, no I/O (DESIGN.md, layer 3).  Every value in a :class:`Plan` is a
:class:`Setting` that carries its provenance (flag, profile, detected GPU, default,
source tree), which is what ``torchbuild plan --explain`` prints.

Facts this module encodes, with their sources:

* the build front ends and their commands — ``shared/reference/pytorch-build-facts.md``
  §2 (``pip install -e . -v --no-build-isolation`` for develop mode; wheels with
  ``pip wheel --no-build-isolation``) and §1e (2.14+: scikit-build-core, ``MAX_JOBS`` ->
  ``CMAKE_BUILD_PARALLEL_LEVEL``);
* how the environment becomes CMake options (§1a build type from ``DEBUG`` /
  ``REL_WITH_DEB_INFO`` / ``CMAKE_BUILD_TYPE``; §1b ``BUILD_``/``USE_``/``CMAKE_`` forwarded
  verbatim; CMake truthiness ON/1/YES/TRUE/Y vs OFF/0/NO/FALSE/N);
* that CMake configures only once (§1c), hence :func:`cmake_cache_diff`;
* ``cmake_dependent_option`` forcing an option OFF when its condition is false (§6);
* ``torch.utils.cpp_extension`` reading ``MAX_JOBS`` and ``TORCH_CUDA_ARCH_LIST`` (§5).
"""

from __future__ import annotations

from ..choices import BUILD_TYPES, CACHES, MODES
from .arches import parse_arch_list
from .make import make_plan
from .model import CacheDiff, Command, Intent, Plan, Setting, cmake_truth, did_you_mean
from .previous import cmake_cache_diff
from .profiles import PROFILE_KEYS, builtin_profiles

__all__ = [
    "MODES",
    "BUILD_TYPES",
    "CACHES",
    "Intent",
    "Setting",
    "Command",
    "CacheDiff",
    "Plan",
    "make_plan",
    "parse_arch_list",
    "cmake_truth",
    "cmake_cache_diff",
    "builtin_profiles",
    "did_you_mean",
    "PROFILE_KEYS",
]
