"""Read ELF shared objects (pyelftools) and resolve their ``DT_NEEDED`` entries.

What is read from a file (``man 8 ld.so``, ``man 5 elf``; the dynamic section and the
``.gnu.version_r`` section, via pyelftools):

* ``DT_SONAME``, ``DT_NEEDED``, ``DT_RPATH`` and ``DT_RUNPATH``;
* the symbol versions the file requires from each library (``.gnu.version_r``, e.g.
  ``libc.so.6: GLIBC_2.17``, ``libstdc++.so.6: GLIBCXX_3.4.21, CXXABI_1.3.9``): the
  newest of each family decides which glibc/libstdc++ (and so which manylinux policy)
  the file needs;
* whether it carries CUDA device code (section ``.nv_fatbin``), and its size.

Resolution of ``NEEDED`` follows ld.so's search order for one object: ``DT_RPATH``
(only when there is no ``DT_RUNPATH``), ``LD_LIBRARY_PATH`` (only if the caller passes
it), ``DT_RUNPATH``, the ``ldconfig`` cache, then the default directories; ``$ORIGIN``
expands to the file's directory.  Libraries of the same package found through its
RPATHs resolve; a driver library such as ``libcuda.so.1`` resolves only on a machine
with the NVIDIA driver.

CUDA architectures come from ``cuobjdump --list-elf`` / ``--list-ptx`` (the CUDA
toolkit's tool; also on PyPI as ``nvidia-cuda-cuobjdump``); without it the report says
why instead of guessing from the undocumented fatbin layout.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "CudaArchs",
    "ElfInfo",
    "cuda_archs",
    "expand_origin",
    "find_cuobjdump",
    "is_elf",
    "ldconfig_cache",
    "read_elf",
    "resolve_needed",
]

ELF_MAGIC = b"\x7fELF"
#: ld.so's default directories after the cache (x86_64 Debian/Ubuntu and RHEL layouts).
DEFAULT_DIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]
#: seconds for one cuobjdump call (libtorch_cuda.so of 2.14.1 is 500 MB)
CUOBJDUMP_TIMEOUT_S = 1800


@dataclass
class ElfInfo:
    """What one ELF file says about its linking.

    :ivar path: the file read.
    :ivar soname: ``DT_SONAME`` or None.
    :ivar needed: ``DT_NEEDED`` entries, in order.
    :ivar rpath: ``DT_RPATH`` split on ``:`` (empty list when absent).
    :ivar runpath: ``DT_RUNPATH`` split on ``:`` (empty list when absent).
    :ivar version_needs: ``{library: [version names]}`` from ``.gnu.version_r``.
    :ivar machine: ``e_machine`` (``"EM_X86_64"``).
    :ivar fatbin_bytes: size of ``.nv_fatbin`` in bytes (0: no CUDA device code).
    :ivar size: file size in bytes.
    """

    path: str
    soname: str | None = None
    needed: list[str] = field(default_factory=list)
    rpath: list[str] = field(default_factory=list)
    runpath: list[str] = field(default_factory=list)
    version_needs: dict[str, list[str]] = field(default_factory=dict)
    machine: str | None = None
    fatbin_bytes: int = 0
    size: int = 0

    def newest(self, family: str) -> str | None:
        """The newest required version of ``family`` (``"GLIBC"``, ``"GLIBCXX"``,
        ``"CXXABI"``, ``"GCC"``) as a dotted string (``"2.17"``), or None."""
        best: tuple[int, ...] | None = None
        for versions in self.version_needs.values():
            for v in versions:
                m = re.fullmatch(rf"{family}_(\d+(?:\.\d+)*)", v)
                if m:
                    key = tuple(int(x) for x in m.group(1).split("."))
                    if best is None or key > best:
                        best = key
        return None if best is None else ".".join(str(x) for x in best)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def is_elf(path: str) -> bool:
    """True when ``path`` is a regular file starting with the ELF magic."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def read_elf(path: str) -> ElfInfo:
    """Read the linking facts of one ELF file.

    :raises ValueError: ``path`` is not an ELF file (or is unreadable/corrupt), with the reason.
    """
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.gnuversions import GNUVerNeedSection

    info = ElfInfo(path=path)
    try:
        info.size = os.path.getsize(path)
        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            info.machine = elf["e_machine"]
            for section in elf.iter_sections():
                if isinstance(section, DynamicSection):
                    for tag in section.iter_tags():
                        # pyelftools sets .needed/.soname/.rpath/.runpath with setattr; its annotations lack them
                        t = tag.entry.d_tag
                        if t == "DT_NEEDED":
                            info.needed.append(tag.needed)  # type: ignore[attr-defined]
                        elif t == "DT_SONAME":
                            info.soname = tag.soname  # type: ignore[attr-defined]
                        elif t == "DT_RPATH":
                            info.rpath = [p for p in tag.rpath.split(":") if p]  # type: ignore[attr-defined]
                        elif t == "DT_RUNPATH":
                            info.runpath = [p for p in tag.runpath.split(":") if p]  # type: ignore[attr-defined]
                elif isinstance(section, GNUVerNeedSection):
                    for verneed, auxes in section.iter_versions():
                        # GNUVerNeedSection.iter_versions always sets the name (declared str | None)
                        info.version_needs.setdefault(verneed.name, []).extend(a.name for a in auxes)  # type: ignore[arg-type]
                elif section.name == ".nv_fatbin":
                    info.fatbin_bytes = int(section["sh_size"])
    except (OSError, ELFError, ValueError, KeyError) as exc:
        raise ValueError(f"{path}: not a readable ELF file ({exc})") from exc
    return info


def expand_origin(entry: str, path: str) -> str:
    """``$ORIGIN``/``${ORIGIN}`` in an RPATH entry -> the directory of ``path`` (normalised)."""
    origin = os.path.dirname(os.path.abspath(path))
    return os.path.normpath(entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))


@functools.lru_cache(maxsize=1)
def ldconfig_cache() -> dict[str, str]:
    """``{soname: path}`` from ``ldconfig -p`` (x86-64 entries; first wins), ``{}`` when
    ldconfig is absent."""
    exe = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
    if exe is None:
        return {}
    try:
        out = subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    cache: dict[str, str] = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)", line)
        if m and (platform.machine() != "x86_64" or "x86-64" in m.group(2)):
            cache.setdefault(m.group(1), m.group(3))
    return cache


def resolve_needed(
    info: ElfInfo, *, ld_library_path: list[str] | None = None, extra_dirs: list[str] | None = None
) -> dict[str, str | None]:
    """``{needed soname: resolved path or None}`` for one file, in ld.so's order.

    :param ld_library_path: directories to treat as ``LD_LIBRARY_PATH`` (default none:
        the result then says what the file finds by itself).
    :param extra_dirs: searched last (e.g. the other folders of the package being inspected
        when it is not installed); None for none.
    """
    dirs: list[str] = []
    if not info.runpath:
        dirs += [expand_origin(p, info.path) for p in info.rpath]
    dirs += list(ld_library_path or [])
    dirs += [expand_origin(p, info.path) for p in info.runpath]
    cache = ldconfig_cache()
    out: dict[str, str | None] = {}
    for name in info.needed:
        found: str | None = None
        if "/" in name:
            found = name if os.path.exists(name) else None
        else:
            for d in dirs:
                cand = os.path.join(d, name)
                if os.path.exists(cand):
                    found = cand
                    break
            if found is None and name in cache:
                found = cache[name]
            if found is None:
                for d in DEFAULT_DIRS + list(extra_dirs or []):
                    cand = os.path.join(d, name)
                    if os.path.exists(cand):
                        found = cand
                        break
        out[name] = found
    return out


# --------------------------------------------------------------------------- CUDA arches


@dataclass
class CudaArchs:
    """CUDA code embedded in one file.

    :ivar sass: ``["sm_75", "sm_80"]`` from ``cuobjdump --list-elf`` (sorted, unique).
    :ivar ptx: ``["sm_120"]`` from ``cuobjdump --list-ptx`` (the virtual arch it targets).
    :ivar tool: the cuobjdump used, or None.
    :ivar reason: why the lists are empty (no device code, no cuobjdump, cuobjdump failed).
    """

    sass: list[str] = field(default_factory=list)
    ptx: list[str] = field(default_factory=list)
    tool: str | None = None
    reason: str | None = None


def find_cuobjdump() -> str | None:
    """``cuobjdump`` on PATH, in ``$CUDA_HOME/bin``, ``/usr/local/cuda*/bin``, or in an
    ``nvidia-cuda-cuobjdump`` wheel on this interpreter's ``sys.path``; None when absent."""
    exe = shutil.which("cuobjdump")
    if exe:
        return exe
    cands: list[str] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(os.path.join(os.environ[var], "bin", "cuobjdump"))
    cands += sorted(glob.glob("/usr/local/cuda*/bin/cuobjdump"), reverse=True)
    for d in sys.path:
        cands += sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", "cuobjdump")))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


_CUOBJ_ARCH = re.compile(r"\.(sm_\d+[af]?)\.(?:cubin|ptx)\b")


def cuda_archs(info: ElfInfo, cuobjdump: str | None) -> CudaArchs:
    """The CUDA arches of one file (see :class:`CudaArchs`).

    ``cuobjdump --list-elf FILE`` prints lines like ``ELF file    1: libtorch_cuda.1.sm_80.cubin``
    and ``--list-ptx`` ``PTX file    1: libtorch_cuda.1.sm_120.ptx``; the arch is taken
    from those names.
    """
    if not info.fatbin_bytes:
        return CudaArchs(reason="no CUDA device code (no .nv_fatbin section)")
    if cuobjdump is None:
        return CudaArchs(
            reason=f"{info.fatbin_bytes} bytes of CUDA device code (.nv_fatbin), but cuobjdump was not found "
            "(not on PATH, in $CUDA_HOME/bin or /usr/local/cuda*/bin): install the CUDA toolkit's "
            "cuobjdump or `pip install nvidia-cuda-cuobjdump` to list its arches"
        )
    res = CudaArchs(tool=cuobjdump)
    for flag, target in (("--list-elf", res.sass), ("--list-ptx", res.ptx)):
        argv = [cuobjdump, flag, info.path]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=CUOBJDUMP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            res.reason = f"{' '.join(argv)} failed: {exc}"
            continue
        if proc.returncode != 0 and not proc.stdout:
            res.reason = f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[:300]}"
            continue
        found = {m.group(1) for m in _CUOBJ_ARCH.finditer(proc.stdout)}
        target.extend(sorted(found, key=lambda a: (int(re.search(r"\d+", a).group()), a)))  # type: ignore[union-attr]
    return res
