"""What an incremental rebuild may skip: the tree's installed state against its build
folder and its last record (split from :mod:`torchbuild.actions.build`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["installed_libs_current", "previous_verified"]


def installed_libs_current(tree: Path) -> bool:
    """True when every shared library of ``build/lib`` that the install step copies into
    ``torch/lib`` has its copy there at least as new (so CMake's install step would only print
    "Up-to-date"); libraries the tree never installs (2.6.0's ``libnnapi_backend.so``) are
    left out.  False when either folder is missing or no copy is found.  Guards the skip of
    the install step against an earlier run that was stopped between its build and its
    install."""
    built, installed = tree / "build" / "lib", tree / "torch" / "lib"
    if not built.is_dir() or not installed.is_dir():
        return False
    compared = 0
    for lib in built.iterdir():
        copy = installed / lib.name
        if lib.is_symlink() or ".so" not in lib.name or not copy.exists():
            continue
        if int(copy.stat().st_mtime) < int(lib.stat().st_mtime):  # CMake's install keeps whole seconds
            return False
        compared += 1
    return compared > 0


def previous_verified(tree: Path) -> bool:
    """True when the last successful build of ``tree`` was verified (its record's ``verify.ok``)."""
    from ..facts.records import last_successful_record

    prev = last_successful_record(tree)
    return bool(prev and isinstance(prev.get("verify"), dict) and prev["verify"].get("ok"))
