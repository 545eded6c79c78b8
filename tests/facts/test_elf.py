"""facts.elf on real ELF files built here with g++ and objcopy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from torchbuild.facts.elf import elf_info

pytestmark = pytest.mark.skipif(not (shutil.which("g++") and shutil.which("objcopy")), reason="needs g++ and objcopy")


def _lib(tmp_path: Path) -> Path:
    src = tmp_path / "a.cpp"
    src.write_text('#include <string>\nstd::string tb_name(const std::string& s) { return s + "!"; }\n')
    so = tmp_path / "liba.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=1", "-o", str(so), str(src)], check=True)
    return so


def test_symbols_of_a_shared_library(tmp_path):
    info = elf_info(str(_lib(tmp_path)), symbols=True)
    assert "libstdc++.so.6" in info["needed"]
    assert info["undefined_cxx_symbols"] > 0 and info["cxx11_symbols"] > 0


def test_a_split_debug_file_has_no_symbol_table_to_scan(tmp_path):
    """objcopy --only-keep-debug keeps a .dynsym section without contents (SHT_NOBITS): not
    a symbol table, so there are no symbols to count (pyelftools gives a plain Section)."""
    debug = tmp_path / "liba.so.debug"
    subprocess.run(["objcopy", "--only-keep-debug", str(_lib(tmp_path)), str(debug)], check=True)
    info = elf_info(str(debug), symbols=True)
    assert info["undefined_cxx_symbols"] == 0 and info["cxx11_symbols"] == 0
