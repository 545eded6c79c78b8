"""Where the BLAS libraries PyTorch's CMake can use live on this machine.

PyTorch's ``cmake/Modules/FindMKL.cmake`` looks for ``mkl.h`` / ``libmkl_core`` under the
interpreter's prefix (pip/conda ``mkl-include`` + ``mkl-static``/``mkl-devel``), ``/opt/intel``
and ``CMAKE_PREFIX_PATH``; OpenBLAS comes from the system (``libopenblas.so``).  Official
Linux wheels use MKL (``BLAS_INFO=mkl`` in their ``torch.__config__.show()``).
"""

from __future__ import annotations

import glob
import os
import sys

__all__ = ["find_mkl", "find_openblas"]


def _prefixes() -> list[str]:
    out = [
        sys.prefix,
        getattr(sys, "base_prefix", sys.prefix),
        "/opt/intel/oneapi/mkl/latest",
        "/opt/intel/mkl",
        "/usr",
    ]
    for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep):
        if p:
            out.append(p)
    seen: list[str] = []
    for p in out:
        if p not in seen:
            seen.append(p)
    return seen


def find_mkl() -> str | None:
    """The ``include`` directory holding ``mkl.h`` when an MKL library (``libmkl_core``) is
    also there, else None."""
    for prefix in _prefixes():
        for inc in (os.path.join(prefix, "include"), os.path.join(prefix, "include", "mkl")):
            if not os.path.isfile(os.path.join(inc, "mkl.h")):
                continue
            for libdir in ("lib", "lib64", "lib/intel64", "lib/x86_64-linux-gnu"):
                if glob.glob(os.path.join(prefix, libdir, "libmkl_core.*")):
                    return inc
    return None


def find_openblas() -> str | None:
    """Path of a ``libopenblas.so*`` in the usual library folders, else None."""
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"):
        hits = sorted(glob.glob(os.path.join(d, "libopenblas*.so*")))
        if hits:
            return hits[0]
    return None
