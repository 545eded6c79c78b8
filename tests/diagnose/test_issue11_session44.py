"""Issue 11, session 44: rows written from dev logs of the session's blind round (batches 637 and later), before its
measurement.

* CUDA 12's nvcc refusing GCC 14's libstdc++ variable templates ("__is_nothrow_new_constructible" is not a function
  or static data member): the CUDA code is compiled with -std=c++11, and GCC 14's headers use a C++14 feature in
  C++11 mode (cxx_standard_mismatch); the same nvcc error inside older GCC headers stays nvcc's own incompatibility.
"""

from __future__ import annotations

import pytest

from .conftest import assert_dev_log, diagnose_text


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
    GCC's own prefix, .../gcc/x86_64-pc-linux-gnu/14.3.1/include/c++)."""
    d = assert_dev_log(name, 652, "cxx_standard_mismatch", 0.7)
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
