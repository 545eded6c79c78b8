"""Issue 11, session 42: rows written from round A's dev logs (batches 583 and later), before its measurement.

* torch's "#error C++17 or later compatible compiler is required" pasted without its "to use PyTorch": the C++
  standard the extension compiles with is older than torch's headers need;
"""

from __future__ import annotations

from pathlib import Path

from .conftest import assert_dev_log, diagnose_text, run_tool


def test_torch_cxx17_error_cut_before_its_end_is_a_standard_mismatch(tmp_path: Path):
    """csukuangfj/kaldifeat#80 (batch 585 dev): only "Error: C++17 or later compatible compiler is required" was
    pasted; the fix was the project's CMake switching to C++17.  The real g++ here, compiling torch's ATen.h (torch
    2.13) with -std=c++14, prints the whole message, which the older row reads; the cut line is read by the new one,
    no surer than the whole message."""
    import torch.utils.cpp_extension as cpp

    src = tmp_path / "x.cpp"
    src.write_text("#include <ATen/ATen.h>\n")
    p = run_tool(["g++", "-std=c++14", *[f"-I{d}" for d in cpp.include_paths()], "-c", str(src), "-o", "x.o"], tmp_path)
    assert p.returncode != 0 and "or later compatible compiler is required to use ATen" in p.stderr
    full = diagnose_text(p.stderr).root
    assert (full.cause_id, full.signature) == ("cxx_standard_mismatch", "cxx17-required")
    cut = diagnose_text("Error: C++17 or later compatible compiler is required").root
    assert (cut.cause_id, cut.signature) == ("cxx_standard_mismatch", "cxx17-required-cut")
    assert "C++17" in cut.explanation and cut.confidence <= full.confidence
    assert_dev_log("linux-kaldifeat-cmake-cxx17-required-torch21.log", 585, "cxx_standard_mismatch", 0.6)
