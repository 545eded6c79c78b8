"""What a PyTorch tree says it needs, read from its own files: vendored third-party folders, the
``third_party/`` folders its CMake files name, setup.py's Python minimum, CMakeLists.txt's GCC
check, the FlatBuffers version its generated headers assert, and ``CMAKE_INSTALL_RPATH``.
Part of :func:`torchbuild.facts.source.probe_source` (facts layer: reads files only)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ._util import read_text
from .model import SourceTree

__all__ = [
    "non_empty_dirs",
    "cmake_third_party_refs",
    "parse_flatbuffers_assert",
    "parse_python_minimum",
    "parse_gcc_minimum",
    "tree_requirements",
]


def _has_content(folder: Path) -> bool:
    from .source import _has_content as has

    return has(folder)


def non_empty_dirs(root: Path, tops: tuple[str, ...] = ("third_party", "debian"), depth: int = 2) -> list[str]:
    """Relative paths of non-empty folders under ``root/<top>`` up to ``depth`` levels
    (``["third_party/pybind11", "third_party/nccl/nccl", "debian/pocketfft"]``), sorted."""
    out: list[str] = []

    def walk(folder: Path, rel: str, level: int) -> None:
        try:
            entries = [e for e in os.scandir(folder) if e.is_dir()]
        except OSError:
            return
        for e in entries:
            p = Path(e.path)
            if _has_content(p):
                out.append(f"{rel}/{e.name}")
                if level < depth and not e.is_symlink():
                    walk(p, f"{rel}/{e.name}", level + 1)

    for top in tops:
        if (root / top).is_dir():
            walk(root / top, top, 1)
    return sorted(out)


_FB_ASSERT = re.compile(
    r"FLATBUFFERS_VERSION_MAJOR\s*==\s*(\d+)\s*&&\s*FLATBUFFERS_VERSION_MINOR\s*==\s*(\d+)"
    r"\s*&&\s*FLATBUFFERS_VERSION_REVISION\s*==\s*(\d+)"
)


def parse_flatbuffers_assert(text: str) -> str | None:
    """``"23.3.3"`` from a FlatBuffers generated header's ``static_assert(FLATBUFFERS_VERSION_MAJOR == 23 && ...)``."""
    m = _FB_ASSERT.search(text)
    return ".".join(m.groups()) if m else None


def parse_python_minimum(setup_py: str) -> str | None:
    """``"3.9.0"`` from setup.py's ``python_min_version = (3, 9, 0)`` (PyTorch <= 2.13)."""
    m = re.search(r"^python_min_version\s*=\s*\(([\d,\s]+)\)", setup_py, re.M)
    return ".".join(x.strip() for x in m.group(1).split(",") if x.strip()) if m else None


def parse_gcc_minimum(cmake_text: str) -> str | None:
    """``"9.3"`` from CMakeLists.txt's ``if(CMAKE_COMPILER_IS_GNUCXX AND CMAKE_CXX_COMPILER_VERSION
    VERSION_LESS 9.3)`` check (pytorch/pytorch CMakeLists.txt, v2.6.0 line 58)."""
    m = re.search(
        r"CMAKE_COMPILER_IS_GNUCXX\s+AND\s+CMAKE_CXX_COMPILER_VERSION\s+VERSION_LESS\s+(\d+(?:\.\d+)*)", cmake_text
    )
    return m.group(1) if m else None


#: The CMake files of a PyTorch tree that add third-party code (relative paths; globs).
_CMAKE_FILES = (
    "CMakeLists.txt",
    "cmake/*.cmake",
    "cmake/public/*.cmake",
    "cmake/Modules/*.cmake",
    "cmake/External/*.cmake",
    "caffe2/CMakeLists.txt",
    "c10/CMakeLists.txt",
    "torch/CMakeLists.txt",
    "aten/src/ATen/CMakeLists.txt",
    "aten/CMakeLists.txt",
)
_THIRD_PARTY_REF = re.compile(r"(?:third_party|THIRD_PARTY_ROOT\})/([A-Za-z0-9_.+-]+?)(?=[/\s\"')}]|$)")


def cmake_third_party_refs(root: Path) -> list[str]:
    """``third_party/<name>`` folders that the tree's main CMake files mention, sorted."""
    refs: set[str] = set()
    for pattern in _CMAKE_FILES:
        for f in sorted(root.glob(pattern)):
            text = read_text(f, limit=4 << 20) or ""
            refs.update(f"third_party/{m.rstrip('.')}" for m in _THIRD_PARTY_REF.findall(text))
    return sorted(refs)


def tree_requirements(root: Path, tree: SourceTree, setup_py: str | None, cmake_text: str | None) -> None:
    tree.vendored = non_empty_dirs(root)
    tree.cmake_refs = cmake_third_party_refs(root)
    deps = read_text(root / "cmake" / "Dependencies.cmake") or ""
    m = re.search(r"^\s*set\(CMAKE_INSTALL_RPATH\s+(\S+?)\)", deps, re.M)
    tree.install_rpath = m.group(1) if m else None
    tree.debian_packaging = (root / "debian" / "patches" / "series").is_file()
    applied = read_text(root / ".pc" / "applied-patches")
    tree.debian_patches_applied = [ln.strip() for ln in (applied or "").splitlines() if ln.strip()]
    tree.python_minimum = parse_python_minimum(setup_py or "")
    tree.gcc_minimum = parse_gcc_minimum(cmake_text or "")
    ser = root / "torch" / "csrc" / "jit" / "serialization"
    if ser.is_dir():
        for h in sorted(ser.glob("*_generated.h")):
            v = parse_flatbuffers_assert(read_text(h, limit=1 << 20) or "")
            if v:
                tree.flatbuffers_headers[str(h.relative_to(root))] = v
