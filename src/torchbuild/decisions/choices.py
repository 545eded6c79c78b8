"""The vocabularies of the plan options (``--mode``, ``--build-type``, ``--cache``,
``--distribute``): plain data, importable without the planning code, so that building the
command-line parser stays cheap."""

from __future__ import annotations

__all__ = ["MODES", "BUILD_TYPES", "CACHES", "DISTRIBUTORS"]

#: Build modes: editable install, wheel, install, C++-only libtorch.
MODES = ("develop", "wheel", "install", "libtorch")
#: CMake build types, as PyTorch's ``DEBUG=1`` / ``REL_WITH_DEB_INFO=1`` select them.
BUILD_TYPES = ("Release", "Debug", "RelWithDebInfo")
#: Compiler caches; ``auto`` = sccache if present, else ccache, else none.
CACHES = ("auto", "ccache", "sccache", "none")
#: Distributed compilation engines (never our own).
DISTRIBUTORS = ("distcc", "sccache-dist")
