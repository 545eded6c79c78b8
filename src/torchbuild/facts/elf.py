"""Shared libraries on disk: what ``ldd`` resolves each dependency to, and the ELF
dynamic section read with pyelftools (``DT_NEEDED``, ``DT_RUNPATH``/``DT_RPATH``,
undefined symbols that use the ``std::__cxx11`` ABI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

#: Seconds allowed for each ``ldd``.
LDD_TIMEOUT_S = 60

_LDD_LINE = re.compile(r"^\s*(\S+)\s+=>\s+(not found|\S+)")


def ldd(path: str, lib_dirs: list[str] | None = None) -> dict[str, str | None]:
    """``ldd path`` -> soname -> resolved path (None = not found).

    :param lib_dirs: prepended to ``LD_LIBRARY_PATH`` for this call.
    """
    env = dict(os.environ)
    if lib_dirs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            lib_dirs + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else [])
        )
    ldd = shutil.which("ldd")
    if ldd is None:
        return {}
    try:
        proc = subprocess.run([ldd, path], capture_output=True, text=True, timeout=LDD_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return {}
    out: dict[str, str | None] = {}
    for line in proc.stdout.splitlines():
        m = _LDD_LINE.match(line)
        if m:
            out[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    return out


def elf_info(path: str, *, symbols: bool = False) -> dict[str, Any]:
    """``needed``, ``runpath``, ``rpath`` and ``cxx11_symbols`` (undefined symbols that use
    ``std::__cxx11``: evidence of ``_GLIBCXX_USE_CXX11_ABI=1``) via pyelftools; ``{}`` when
    the file is not ELF.  ``symbols`` scans ``.dynsym`` (slow in pure Python for libtorch's
    ~10^5 symbols, so only done for extensions)."""
    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.dynamic import DynamicSection
        from elftools.elf.elffile import ELFFile
        from elftools.elf.sections import SymbolTableSection
    except ImportError:  # pragma: no cover - a declared dependency
        return {}
    info: dict[str, Any] = {
        "needed": [],
        "runpath": None,
        "rpath": None,
        "cxx11_symbols": 0,
        "undefined_cxx_symbols": 0,
    }
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            for section in elf.iter_sections():
                if isinstance(section, DynamicSection):
                    for tag in section.iter_tags():
                        # pyelftools sets .needed/.soname/.rpath/.runpath with setattr; its annotations lack them
                        if tag.entry.d_tag == "DT_NEEDED":
                            info["needed"].append(tag.needed)  # type: ignore[attr-defined]
                        elif tag.entry.d_tag == "DT_RUNPATH":
                            info["runpath"] = tag.runpath  # type: ignore[attr-defined]
                        elif tag.entry.d_tag == "DT_RPATH":
                            info["rpath"] = tag.rpath  # type: ignore[attr-defined]
            dynsym = elf.get_section_by_name(".dynsym") if symbols else None
            # a split debug file's .dynsym has no contents (SHT_NOBITS): not a symbol table
            if isinstance(dynsym, SymbolTableSection):
                for sym in dynsym.iter_symbols():
                    if sym["st_shndx"] == "SHN_UNDEF" and sym.name.startswith("_Z"):
                        info["undefined_cxx_symbols"] += 1
                        if "St7__cxx11" in sym.name or "NSt7__cxx11" in sym.name:
                            info["cxx11_symbols"] += 1
    except (OSError, ELFError, ValueError):
        return {}
    return info


def inspect_files(files: list[str], lib_dirs: list[str] | None, *, symbols: bool = False) -> dict[str, dict[str, Any]]:
    """``{path: {"ldd": {soname: resolved or None}, "needed": [...], "runpath": ..., ...}}`` for each file
    (:func:`ldd` with ``lib_dirs`` first on ``LD_LIBRARY_PATH``, then :func:`elf_info`)."""
    return {f: {"ldd": ldd(f, lib_dirs), **elf_info(f, symbols=symbols)} for f in files}
