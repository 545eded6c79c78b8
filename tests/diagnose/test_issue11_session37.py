"""Issue 11, session 37: rows written from round A's dev logs (batches 415 and later), before its measurement.

* macOS's dyld missing a symbol of libc++ (std::__1) from the system's /usr/lib/libc++.1.dylib: the binary was built
  for a newer macOS (mlverse/torch#1002);
* parallel-hashmap's header missing (acxz/pkgbuilds#227), with the real g++.
"""

from __future__ import annotations

import shutil

import pytest

from .conftest import diagnose_text, run_tool


def test_macos_libcxx_symbol_not_found_is_the_system_cxx_library_too_old():
    """dyld's three lines as the R torch printed them on macOS (mlverse/torch#1002, issue 11 batch 415 dev; recorded
    from the reporter's real Mac: dyld does not run here).  The missing symbol is in libc++'s inline namespace
    std::__1, so the libc++ loaded is older than the binary's: glibcxx_too_old, below the sure bar (one thread)."""
    log = """
        Error in cpp_lantern_init(file.path(install_path(), "lib")) :
          /Library/Frameworks/R.framework/Versions/4.1/Resources/library/torch/lib/liblantern.dylib - dlopen(/Library/Frameworks/R.framework/Versions/4.1/Resources/library/torch/lib/liblantern.dylib, 10): Symbol not found: __ZNSt3__113basic_filebufIcNS_11char_traitsIcEEE4openEPKcj
          Referenced from: /Library/Frameworks/R.framework/Versions/4.1/Resources/library/torch/lib/liblantern.dylib (which was built for Mac OS X 12.6)
          Expected in: /usr/lib/libc++.1.dylib
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature, root.line) == ("glibcxx_too_old", "libcxx-symbol-not-found-macos", 2)
    assert root.confidence < 0.7
    assert "_ZNSt3__113basic_filebuf" in root.explanation


def test_a_torch_symbol_not_found_on_macos_is_not_the_cxx_library():
    """A symbol of torch itself (namespace c10, not std::__1) keeps its own row: the extension and torch differ."""
    log = """
        OSError: dlopen(/Users/u/miniforge3/lib/python3.9/site-packages/torchaudio/lib/libtorchaudio.so, 0x0006): Symbol not found: __ZN3c1017RegisterOperatorsD1Ev
    """
    assert diagnose_text(log).root.cause_id != "glibcxx_too_old"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_missing_parallel_hashmap(tmp_path):
    """This machine's g++ compiling a file that includes parallel_hashmap/phmap.h, as torch-sparse's csrc/cpu/utils.h
    does (acxz/pkgbuilds#227, issue 11 batch 417 dev): system_library_missing, below the sure bar, since a git
    checkout without the third_party/parallel-hashmap submodule fails the same way (the fix says both)."""
    (tmp_path / "utils.h").write_text('#pragma once\n#include "parallel_hashmap/phmap.h"\n')
    src = tmp_path / "diag_cpu.cpp"
    src.write_text('#include "utils.h"\nint main() { return 0; }\n')
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "diag_cpu.o")]).stderr
    assert "parallel_hashmap/phmap.h: No such file or directory" in out
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "parallel-hashmap-header-missing")
    assert root.confidence < 0.7
    assert "submodule" in root.fix
