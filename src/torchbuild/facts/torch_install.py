"""The torch installed in the build interpreter, read from its files without importing it
(``import torch`` costs seconds).

* ``torch/version.py`` (written by PyTorch's build): ``__version__ = '2.14.1+cu130'``,
  ``cuda: Optional[str] = '13.0'`` (older: ``cuda = '11.7'``), ``git_version = '5c48...'``,
  ``hip``, ``debug``;
* C++ ABI: ``-D_GLIBCXX_USE_CXX11_ABI=N`` in ``share/cmake/Caffe2/Caffe2Config.cmake`` or
  ``TorchConfig.cmake`` (older wheels), else whether ``lib/libc10.so`` mentions the
  ``std::__cxx11`` namespace (``St7__cxx11``): the new ABI's mangled names do, the old
  ABI's do not;
* where it lives: the first ``<dir>/torch/version.py`` on the interpreter's ``sys.path``, or
  an editable install's ``__editable___torch*_finder.py`` ``MAPPING``;
* ``nvidia-*`` wheels: the ``nvidia_*.dist-info`` folders next to it.
"""

from __future__ import annotations

import glob
import mmap
import os
import re

from ._util import first_match, read_text
from .model import InstalledTorch

__all__ = ["find_torch", "parse_version_py", "probe_torch", "read_cxx11_abi"]


def _editable_location(site: str) -> str | None:
    for finder in glob.glob(os.path.join(site, "__editable___torch*_finder.py")):
        loc = first_match(r"['\"]torch['\"]\s*:\s*['\"]([^'\"]+)['\"]", read_text(finder))
        if loc and os.path.isdir(loc):
            return loc
    return None


def find_torch(sys_path: list[str]) -> str | None:
    """The ``torch`` package folder the interpreter would import, or None."""
    for d in sys_path:
        cand = os.path.join(d, "torch")
        if os.path.isfile(os.path.join(cand, "version.py")) or os.path.isfile(os.path.join(cand, "__init__.py")):
            return cand
        loc = _editable_location(d)
        if loc:
            return loc
    return None


def _py_str(name: str, text: str) -> tuple[bool, str | None]:
    """(assigned?, value) for ``name = 'x'`` / ``name: Optional[str] = None``."""
    m = re.search(rf"^{name}\s*(?::[^=\n]*)?=\s*(.+)$", text, re.MULTILINE)
    if not m:
        return False, None
    raw = m.group(1).strip()
    sm = re.match(r"""['"]([^'"]*)['"]""", raw)
    return True, (sm.group(1) if sm else None)


def parse_version_py(text: str) -> InstalledTorch:
    """Fields of ``torch/version.py`` (version, cuda, hip, git_version, debug)."""
    t = InstalledTorch()
    t.version = _py_str("__version__", text)[1]
    t.cuda = _py_str("cuda", text)[1]
    t.hip = _py_str("hip", text)[1]
    t.git_version = _py_str("git_version", text)[1]
    dbg = first_match(r"^debug\s*=\s*(True|False)", text, flags=re.MULTILINE)
    t.debug = None if dbg is None else dbg == "True"
    return t


def read_cxx11_abi(location: str) -> bool | None:
    """True/False for ``_GLIBCXX_USE_CXX11_ABI=1/0``, None when the files don't say."""
    for rel in ("share/cmake/Caffe2/Caffe2Config.cmake", "share/cmake/Torch/TorchConfig.cmake"):
        v = first_match(r"_GLIBCXX_USE_CXX11_ABI=(\d)", read_text(os.path.join(location, rel)))
        if v is not None:
            return v == "1"
    lib = os.path.join(location, "lib", "libc10.so")
    try:
        with open(lib, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(b"St7__cxx11") != -1
    except (OSError, ValueError):
        return None


def _nvidia_wheels(site: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for d in sorted(glob.glob(os.path.join(site, "nvidia_*.dist-info"))):
        m = re.match(r"(nvidia_[A-Za-z0-9_]+?)-(\d[^-]*)\.dist-info$", os.path.basename(d))
        if m:
            out[m.group(1).replace("_", "-")] = m.group(2)
    return out


def probe_torch(sys_path: list[str]) -> InstalledTorch | None:
    """The installed torch as the interpreter with ``sys_path`` would import it, or None."""
    loc = find_torch(sys_path)
    if loc is None:
        return None
    text = read_text(os.path.join(loc, "version.py"))
    t = parse_version_py(text) if text else InstalledTorch()
    t.location = loc
    t.cxx11_abi = read_cxx11_abi(loc)
    t.nvidia_wheels = _nvidia_wheels(os.path.dirname(loc))
    return t
