"""Read an existing ``CMakeCache.txt`` (facts: what a previous configure left behind).

CMake only configures when ``build/CMakeCache.txt`` is missing (PyTorch's
``tools/setup_helpers/cmake.py``), so the plan compares itself with this cache to catch settings that a second
build would silently ignore.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["read_cmake_cache", "CACHE_LINE"]

#: ``NAME:TYPE=VALUE`` (the lines CMake writes into its cache); names may contain ``-``, ``.``, ``+``.
CACHE_LINE = re.compile(r"^([A-Za-z0-9_.+\-/]+):([A-Z]+)=(.*)$")


def read_cmake_cache(path: Path) -> dict[str, str] | None:
    """Parse ``CMakeCache.txt`` into ``{NAME: VALUE}``, skipping INTERNAL and STATIC
    entries as PyTorch's own parser does.

    :param path: the cache file (``<tree>/build/CMakeCache.txt``).
    :returns: the entries, or None when the file does not exist.
    :raises OSError: the file exists but cannot be read.
    """
    if not path.is_file():
        return None
    out: dict[str, str] = {}
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if not line or line.startswith(("#", "//")):
                continue
            m = CACHE_LINE.match(line)
            if m and m.group(2) not in ("INTERNAL", "STATIC"):
                out[m.group(1)] = m.group(3)
    return out
