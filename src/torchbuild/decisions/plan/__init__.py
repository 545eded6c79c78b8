"""The build plan: facts + knowledge + user intent -> what to run, and why.

Pure functions, no I/O (``docs/architecture.md``, layer 3).  Every value in a :class:`Plan` is a
:class:`Setting` that carries its provenance (flag, profile, detected GPU, default,
source tree), which is what ``torchbuild plan --explain`` prints.

Facts this module encodes, with their sources (PyTorch files at v2.6.0 unless said,
https://github.com/pytorch/pytorch/tree/v2.6.0):

* the build front ends and their commands: ``pip install -e . -v --no-build-isolation`` for
  develop mode (``setup.py develop`` is redirected there,
  https://github.com/pytorch/pytorch/issues/152276), wheels with ``pip wheel
  --no-build-isolation``; 2.14+: scikit-build-core, ``MAX_JOBS`` -> ``CMAKE_BUILD_PARALLEL_LEVEL``
  (https://github.com/pytorch/pytorch/issues/189758; the tree's ``tools/build_backend/``);
* how the environment becomes CMake options (``tools/setup_helpers/env.py``: build type from
  ``DEBUG`` / ``REL_WITH_DEB_INFO`` / ``CMAKE_BUILD_TYPE``, CMake truthiness ON/1/YES/TRUE/Y vs
  OFF/0/NO/FALSE/N; ``tools/setup_helpers/cmake.py``: ``BUILD_``/``USE_``/``CMAKE_`` forwarded
  verbatim);
* that CMake configures only once (``tools/setup_helpers/cmake.py``: only while
  ``build/CMakeCache.txt`` is missing), hence :func:`cmake_cache_diff`;
* ``cmake_dependent_option`` forcing an option OFF when its condition is false (``CMakeLists.txt``);
* ``torch.utils.cpp_extension`` reading ``MAX_JOBS`` and ``TORCH_CUDA_ARCH_LIST``
  (``torch/utils/cpp_extension.py``).
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
