"""Issue 11, session 38: rows written from round A's dev logs (batches 444 and later), before its measurement.

* a header of one of ROCm's libraries (hipBLAS, rocBLAS, MIOpen, RCCL...) missing: ROCm is incomplete, as a missing
  cuBLAS header is an incomplete CUDA toolkit (ROCm/TheRock#2452), with the real g++.
"""

from __future__ import annotations

import shutil

import pytest

from .conftest import diagnose_text, run_tool


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("header", ["hipblas/hipblas.h", "rocblas.h", "miopen/miopen.h", "rccl/rccl.h"])
def test_the_real_gcc_missing_a_rocm_library_header(tmp_path, header):
    """This machine's g++ (no ROCm here) compiling a file that includes a ROCm library's header, as magma's
    magma_types.h includes <hipblas/hipblas.h> (ROCm/TheRock#2452, batch 454 dev: the ROCm wheels without the SDK's
    devel part): cuda_toolkit_incomplete, named by the ROCm row, the header in the explanation."""
    src = tmp_path / "magma_types.cpp"
    src.write_text(f"#include <{header}>\nint main() {{ return 0; }}\n")
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "m.o")]).stderr
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_incomplete", "rocm-library-header-missing")
    assert header in root.explanation and "ROCM_PATH" in root.fix


def test_hipccs_clang_form_and_the_hip_runtime_keep_their_rows():
    """hipcc is clang: its "'X' file not found" form is read too; the HIP runtime's own header (hip/hip_runtime.h)
    stays ROCm not found, and hipCUB (a CCCL-like header library) stays with the CCCL row."""
    clang = "./include/magma_types.h:164:14: fatal error: 'hipblas/hipblas.h' file not found"
    assert diagnose_text(clang).root.signature == "rocm-library-header-missing"
    hip = "csrc/ops.hiph:15:10: fatal error: hip/hip_runtime_api.h: No such file or directory"
    assert diagnose_text(hip).root.signature == "hip-header-missing"
    cub = "src/k.hip:3:10: fatal error: hipcub/hipcub.hpp: No such file or directory"
    assert diagnose_text(cub).root.signature != "rocm-library-header-missing"
