"""Issue 11, session 44: rows written from dev logs of the session's blind round (batches 637 and later), before its
measurement.

* CUDA 12's nvcc refusing GCC 14's libstdc++ variable templates ("__is_nothrow_new_constructible" is not a function
  or static data member): the CUDA code is compiled with -std=c++11, and GCC 14's headers use a C++14 feature in
  C++11 mode (cxx_standard_mismatch); the same nvcc error inside older GCC headers stays nvcc's own incompatibility.

After the round's measurement, from its held-out misses (listed as such in the row's source): nvcc refusing
'compute_native', CMake's own flag form for CMAKE_CUDA_ARCHITECTURES=native written by a CMake older than 3.24;
torch 1.x refusing an aten operator schema that differs from its own (an extension built for another torch).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import assert_dev_log, corpus_lines, diagnose_list, diagnose_text, run_tool, stated


@pytest.mark.parametrize(
    "name",
    [
        "gcc14-nccl-cxx11-default-type-traits-nothrow-new-constructible.log",
        "gcc14-pypo-nvcc-type-traits-old-cxx-standard-arch.log",
    ],
)
def test_nvcc_refusing_gcc14_variable_templates_is_the_cxx11_standard(name: str):
    """NVIDIA/nccl#1751 and PyPO-dev/PyPO#207 (batch 652 dev): both raised the CUDA compile's standard from C++11 to
    C++14.  CUDA 12's nvcc prints the error; nvcc 13.0 (the one here) only warns "variable templates are a C++14
    feature", so the test reads the lines the threads recorded, in both layouts (Debian's /usr/include/c++/14 and
    GCC's own prefix, .../gcc/x86_64-pc-linux-gnu/14.3.1/include/c++).  Stated, or at the calibrated cap since
    session 53: rapidsai/rapids-cmake#892 (batch 982 dev), the same error fixed the same way, was judged
    nvcc_host_stdlib_incompatible, which the calibration then puts second."""
    d = assert_dev_log(name, 652, "cxx_standard_mismatch", 0.6)
    assert stated(d.root)
    assert d.root.signature == "nvcc-gcc14-libstdcxx-variable-template-cxx11"
    assert "GCC 14" in d.root.explanation and "-std=c++14" in d.root.fix


@pytest.mark.parametrize(
    "line",
    [
        'c++/7.3.0/type_traits(177): error: "conjunction_v" is not a function or static data member',
        '/usr/include/c++/13/type_traits(1610): error: "__is_nothrow_new_constructible" is not a function or static'
        " data member",
    ],
)
def test_the_same_nvcc_error_in_older_gcc_headers_stays_nvccs_own(line: str):
    """Before GCC 14 the headers have no such variable template in C++11 mode: nvcc failing on them is nvcc not
    supporting that GCC (HawkAaron/warp-transducer#91, fixed with gcc-8), as before this row."""
    assert diagnose_text(line).root.cause_id == "nvcc_host_stdlib_incompatible"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_cmake_before_3_24_passing_native_to_nvcc_is_cmake_too_old(tmp_path: Path):
    """colmap/colmap#2232 (batch 655 held-out, read after the measurement): CMake 3.22 wrote
    CMAKE_CUDA_ARCHITECTURES=native into its --generate-code form.  The real nvcc here refuses that flag, and
    what it prints, with the command line a build shows above it, names CMake; nvcc's own -arch=native refused by an
    older nvcc stays a toolkit too old."""
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")
    flag = "--generate-code=arch=compute_native,code=[compute_native,sm_native]"
    cmd = ["nvcc", flag, "-c", str(cu), "-o", str(tmp_path / "k.o")]
    p = run_tool(cmd)
    assert p.returncode != 0 and "compute_native" in p.stderr
    for text in (p.stderr, " ".join(cmd) + "\n" + p.stderr):
        root = diagnose_text(text).root
        assert (root.cause_id, root.signature) == ("cmake_too_old", "cmake-cuda-architectures-native-before-3-24")
        assert "3.24" in root.fix
    assert diagnose_list(corpus_lines("cmake-colmap-compute-native-cmake322.log")).root.cause_id == "cmake_too_old"
    older = diagnose_text("nvcc fatal   : Unsupported gpu architecture 'native'").root
    assert older.cause_id == "cuda_toolkit_too_old"


def test_an_extension_registering_an_aten_schema_of_another_torch_is_the_extension_mismatch():
    """pytorch/pytorch#38973 (batch 672 held-out, read after the measurement): an extension built against torch 1.4
    loaded into 1.5, whose aten::_embedding_bag had gained an argument.  torch 2.13 (here) words a duplicate
    registration otherwise, so the test reads the line the thread recorded."""
    d = diagnose_list(corpus_lines("import-extension-built-torch14-schema-mismatch-embedding-bag.log"))
    assert (d.root.cause_id, d.root.signature) == (
        "torch_extension_mismatch",
        "extension-redefines-aten-op-with-another-schema",
    )
    assert "aten::_embedding_bag" in d.root.explanation
