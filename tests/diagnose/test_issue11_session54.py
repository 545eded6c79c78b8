"""Issue 11, session 54: rows written, before the session's measurement, from the dev logs of its blind batches
(997 on) that the start's code (ccde1a6) missed or named wrongly.

* CMake's ``Unknown CMake command "pybind11_add_module"``: pybind11's CMake files were never loaded; in every seen
  log (Tencent/ncnn#2543, andrewssobral/bgslibrary#140, geoffxy/habitat#9) the project's pybind11 git submodule was
  not checked out.  Below the sure bar: a pybind11 found some other way could fail the same.
* The assembler: Apple's cctools as writes "{standard input}:691:no such instruction: ..." without GNU as's
  "Error: " (ebiggers/libdeflate#363), and GNU as older than the compiler rejects AVX-512 operand forms with
  "operand type mismatch" (binutils 2.40: "operand size mismatch") for a vector instruction (ebiggers/libdeflate#56):
  binutils too old for the compiler, below the sure bar.
* "ptxas received signal 9" (CUDA.jl's wording, CliMA/ClimaCore.jl#2035): the OOM killer.
* nvcc's "Internal Compiler error (codegen)" under MSBuild (pytorch/pytorch#14872): the same nvcc crash as the
  capitalised "Internal Compiler Error".

Written after round A's measurement, from dev logs of round A (batches 1024 and 1027): MAGMA's headers with none
of their GPU back-ends defined (a MAGMA not built for CUDA, torch/cutorch#452); MSBuild's "[Nvcc fatal : A single
input file is required ...]" (pybind/pybind11#3883).  Round B (batch 1033): clang compiling CUDA itself stops in its
__clang_cuda_runtime_wrapper.h on a CUDA it does not support (fireice-uk/xmr-stak-nvidia#27).  Batch 1039: nvcc given
-pthread or a project's -Wl, flag (meson's -Wl,-O2, a Makefile's -Wl,-rpath) is a host flag passed to nvcc; only
libtorch's -Wl,--no-as-needed in CMake's device-link step stays an old CMake's (pytorch/pytorch#12911).

After round A's measurement (held-out logs of batches 997-1028, then read): GNU as's "unsupported instruction" for a
vector instruction whose extension it lacks (AVX-VNNI's vpdpbusd under Ubuntu 20.04's binutils, pigirons/cpufp#11).
After round B's: gcc 4.8.5 refusing -no-pie (exaloop/codon#289); cuBLAS rejecting a plain cublasSgemm call as
CUBLAS_STATUS_INVALID_VALUE, another CUDA's cuBLAS loaded beside torch's (Fictionarry/TalkingGaussian#14,
wutong16/Voxurf#40).  From the whole corpus after the measurements: "cannot import name" of a package's compiled module
(_C, csrc, deform_conv_cuda, cuda_impl, or any name from a Cython or pybind11 module) is that part not built or not
loadable, not two Python packages' versions: 7 seen logs, all labelled unknown.  A bare "Segmentation fault" after a
Python prompt, with no package build in the log, is the Python program's crash (isl-org/Open3D#1426,
pytorch/pytorch#7078): unknown first, not a compiler crash.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from .conftest import (
    assert_named_by,
    cmake_configure_fails,
    corpus_lines,
    diagnose_list,
    diagnose_text,
    gxx_fails,
    named_below_sure,
    real_nvcc,
    run_tool,
)


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        (
            "cmake-habitat-pybind11-add-module-unknown-submodules.log",
            "submodule_missing",
            "pybind11-cmake-function-unknown",
        ),
        ("asm-libdeflate-macos-cctools-as-no-avx-vpdpbusd.log", "compiler_too_old", "assembler-no-such-instruction"),
        (
            "asm-libdeflate-adler32-gcc5-trusty-operand-mismatch-old-binutils.log",
            "compiler_too_old",
            "assembler-vector-operand-type-mismatch",
        ),
        ("julia-climacore-ptxas-signal9-oom.log", "out_of_memory", "ptxas-received-signal-9"),
        ("nvcc-caffe2-windows-cuda10-vs2017-lgenfe-ice.log", "internal_compiler_error", "nvcc-ice"),
        ("nvcc-cutorch-magma-without-cublas.log", "blas_not_found", "magma-headers-without-gpu-backend"),
        ("msvc-pybind11-bigobj-compile-option-reaches-nvcc.log", "nvcc_unknown_host_flag", "nvcc-extra-input-file"),
        (
            "cmake-xmr-stak-nvidia-clang391-as-cuda-compiler-unsupported-cuda8.log",
            "host_compiler_unsupported",
            "clang-cuda-wrapper-unsupported-cuda",
        ),
        ("cmake-arbor-gpu-device-link-pthread-unknown-option.log", "nvcc_unknown_host_flag", "nvcc-unknown-host-flag"),
        ("meson-cuda-project-wl-o2-unknown-option.log", "nvcc_unknown_host_flag", "nvcc-unknown-host-flag"),
        ("make-ascent-app-nvcc-linker-wl-rpath-unknown-option.log", "nvcc_unknown_host_flag", "nvcc-unknown-host-flag"),
    ],
)
def test_dev_misses_of_session_54(name: str, cause: str, signature: str | None):
    """Dev logs of batches 997 on that the start's code named unknown or another cause."""
    assert_named_by(name, "dev", cause, signature)


def test_pybind11_function_unknown_with_an_empty_submodule_and_the_real_cmake(tmp_path: Path):
    """A project that vendors pybind11 as a submodule: with the folder empty (not checked out) and the
    add_subdirectory guarded, the real CMake stops at pybind11_add_module, a command it does not know.  A project's
    own unknown function is not this row's."""
    (tmp_path / "src" / "pybind11").mkdir(parents=True)
    log = "\n".join(
        cmake_configure_fails(
            tmp_path,
            "src",
            "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n"
            "if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/pybind11/CMakeLists.txt)\n  add_subdirectory(pybind11)\nendif()\n"
            "pybind11_add_module(ext ext.cpp)\n",
        )
    )
    assert 'Unknown CMake command "pybind11_add_module"' in log
    named_below_sure(log, "submodule_missing", "pybind11-cmake-function-unknown")

    own = "\n".join(
        cmake_configure_fails(
            tmp_path, "own", "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nmy_add_module(ext ext.cpp)\n"
        )
    )
    assert 'Unknown CMake command "my_add_module"' in own
    assert diagnose_text(own).causes[0].signature != "pybind11-cmake-function-unknown"


def _as_fails(tmp_path: Path, source: str) -> str:
    """Assemble ``source`` with the real GNU as; returns its messages (the run must fail).  Skipped without as."""
    gas = shutil.which("as")
    if gas is None:
        pytest.skip("needs GNU as (binutils)")
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "k.s").write_text(source)
    run = run_tool([gas, "k.s", "-o", "k.o"], cwd=tmp_path)
    assert run.returncode != 0, run.stdout
    return run.stdout + run.stderr


def test_an_assembler_without_avx512bw_and_the_real_gnu_as(tmp_path: Path):
    """The real GNU as told it has no AVX-512BW (.arch .noavx512bw, as an older binutils is) rejects the zmm form of
    vpmaddubsw that a newer compiler emits: binutils too old for the compiler.  The same message for a scalar
    instruction (mov with mismatched registers: a hand-written assembly bug) is not this row's."""
    log = _as_fails(tmp_path, ".arch .noavx512bw\nvpmaddubsw %zmm0, %zmm1, %zmm2\n")
    assert "mismatch for `vpmaddubsw'" in log
    named_below_sure(log, "compiler_too_old", "assembler-vector-operand-type-mismatch")

    scalar = _as_fails(tmp_path / "scalar", "movw %eax, %bx\n")
    assert "operand type mismatch for `mov'" in scalar
    assert diagnose_text(scalar).causes[0].signature != "assembler-vector-operand-type-mismatch"


def test_an_instruction_the_assembler_does_not_know_in_both_wordings(tmp_path: Path):
    """The real GNU as on an instruction it does not know ("{standard input}:1: Error: no such instruction: ...",
    read from standard input as gcc's pipe gives it), and the same line as Apple's cctools as words it (no "Error: ",
    ebiggers/libdeflate#363): both are the assembler older than the code."""
    gas = shutil.which("as")
    if gas is None:
        pytest.skip("needs GNU as (binutils)")
    run = run_tool([gas, "-o", str(tmp_path / "k.o"), "-"], stdin="vpdpbusd_new %ymm0, %ymm1, %ymm2\n")
    assert run.returncode != 0
    log = run.stdout + run.stderr
    assert "{standard input}:1: Error: no such instruction: `vpdpbusd_new" in log
    cctools = log.replace("Error: ", "").replace("{standard input}:1: ", "{standard input}:1:")
    for text in (log, cctools):
        named_below_sure(text, "compiler_too_old", "assembler-no-such-instruction")


def test_a_vector_instruction_whose_extension_the_real_gnu_as_lacks(tmp_path: Path):
    """The real GNU as with AVX-512BW switched off (as an older binutils lacks it) on an EVEX-only form of vpsadbw:
    "unsupported instruction", the binutils older than the code.  The held-out log of round A (AVX-VNNI) is named
    the same."""
    log = _as_fails(tmp_path, ".arch .noavx512bw\nvpsadbw %xmm16, %xmm1, %xmm2\n")
    assert "Error: unsupported instruction `vpsadbw'" in log
    named_below_sure(log, "compiler_too_old", "assembler-unsupported-vector-instruction")
    assert_named_by(
        "asm-cpufp-avx-vnni-unsupported-instruction-vpdpbusd.log",
        "holdout",
        "compiler_too_old",
        "assembler-unsupported-vector-instruction",
    )


def test_magma_headers_without_a_gpu_backend_with_the_real_gcc(tmp_path: Path):
    """A magma_types.h with MAGMA's back-end check (its #error when none of HAVE_CUBLAS, HAVE_clAmdBlas, HAVE_MIC is
    defined, as a MAGMA not built for CUDA leaves it): the real g++ stops there, the GPU LAPACK is unusable."""
    check = (
        "#if !defined(HAVE_CUBLAS) && !defined(HAVE_clAmdBlas) && !defined(HAVE_MIC)\n"
        '#error "One of HAVE_CUBLAS, HAVE_clAmdBlas, or HAVE_MIC must be defined. This typically happens in '
        'Makefile.internal."\n#endif\n'
    )
    errors = gxx_fails(tmp_path, '#include "magma_types.h"\n', {"magma_types.h": check})
    assert "One of HAVE_CUBLAS" in errors
    named_below_sure(errors, "blas_not_found", "magma-headers-without-gpu-backend")


def test_a_projects_own_unsupported_cuda_check_is_not_clangs():
    """The same words from a project's own header are not clang's CUDA wrapper refusing the toolkit."""
    line = 'src/cuda_compat.h:12:2: error: "Unsupported CUDA version!"'
    assert diagnose_text(line).causes[0].signature != "clang-cuda-wrapper-unsupported-cuda"


@pytest.mark.parametrize(
    ("flag", "signature"),
    [
        ("-pthread", "nvcc-unknown-host-flag"),
        ("-Wl,-O2", "nvcc-unknown-host-flag"),
        ("-Wl,--no-as-needed", "nvcc-device-link-gets-linker-flag"),
    ],
)
def test_host_and_linker_flags_given_to_the_real_nvcc(tmp_path: Path, flag: str, signature: str):
    """The real nvcc refuses -pthread and -Wl, options ("nvcc fatal : Unknown option '-pthread'"): a host flag
    passed to nvcc, except libtorch's -Wl,--no-as-needed, which an old CMake hands to the device-link step."""
    nvcc = real_nvcc()
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    run = run_tool([nvcc, flag, "-c", "k.cu", "-o", "k.o"], cwd=tmp_path)
    assert run.returncode != 0
    log = run.stdout + run.stderr
    assert f"Unknown option '{flag}'" in log
    assert diagnose_text(log).causes[0].signature == signature


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        ("build-codon-no-pie-unrecognized-gcc485-centos7.log", "compiler_too_old", "compiler-lacks-newer-flag"),
        (
            "runtime-talkinggaussian-cublas-sgemm-invalid-value-cuda-mismatch.log",
            "cuda_version_mismatch",
            "cublas-sgemm-invalid-value",
        ),
        (
            "runtime-voxurf-cublas-sgemm-invalid-value-cuda113-vs-111.log",
            "cuda_version_mismatch",
            "cublas-sgemm-invalid-value",
        ),
    ],
)
def test_held_out_misses_of_round_b_read_after_its_measurement(name: str, cause: str, signature: str):
    """Held-out logs of batches 1029-1040 that the measured code missed, named once read (after the measurement)."""
    assert_named_by(name, "holdout", cause, signature)


def test_another_cublas_call_rejected_is_not_the_sgemm_row():
    """The same status from a call with the program's own arguments (cublasGemmEx with a bad leading dimension) is
    not read as a CUDA version mix."""
    line = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmEx( handle, opa, opb, m, n, k)`"
    )
    assert diagnose_text(line).causes[0].signature != "cublas-sgemm-invalid-value"


@pytest.mark.parametrize(
    ("name", "conflict"),
    [("Missing", True), ("csrc", False), ("deform_conv_cuda", False), ("_C", False), ("cuda_impl", False)],
)
def test_cannot_import_a_compiled_module_with_the_real_python(tmp_path: Path, name: str, conflict: bool):
    """The real Python's "cannot import name 'X' from 'dep' (...)" for a package without X: a Python name is the
    two packages' versions (dependency_version_conflict, below the sure bar); a compiled module's name (csrc,
    deform_conv_cuda, _C, cuda_impl) is the package's compiled part not built, which no version pair explains."""
    (tmp_path / "dep").mkdir()
    (tmp_path / "dep" / "__init__.py").write_text("")
    run = run_tool([sys.executable, "-c", f"from dep import {name}"], cwd=tmp_path)
    assert f"cannot import name '{name}' from 'dep'" in run.stderr
    first = diagnose_text(run.stderr).causes[0]
    if conflict:
        assert (first.cause_id, first.signature) == (
            "dependency_version_conflict",
            "python-name-missing-from-installed-package",
        )
        assert first.confidence < 0.7
    else:
        assert first.signature != "python-name-missing-from-installed-package"


def test_a_python_session_that_crashes_is_not_a_compiler_crash(tmp_path: Path):
    """A real Python REPL that crashes (ctypes reading address 0) under a real terminal (script) and sh: the prompt
    lines, then sh's bare "Segmentation fault".  Diagnose puts unknown first (the program crashed; the fix names
    python -X faulthandler) and the compiler reading second.  The same bare line in a build log (a make recipe,
    held-out batch 2, seen) stays a compiler crash."""
    script = shutil.which("script")
    if script is None:
        pytest.skip("needs script (util-linux)")
    run = run_tool(
        [script, "-q", "-c", f"sh -c '{sys.executable} -i; true'", "/dev/null"],
        cwd=tmp_path,
        stdin="import ctypes\nctypes.string_at(0)\n",
    )
    log = run.stdout.replace("\r", "")
    assert ">>> ctypes.string_at(0)" in log and "\nSegmentation fault" in log, log
    causes = diagnose_text(log).causes
    assert causes[0].cause_id == "unknown"
    assert "faulthandler" in causes[0].fix
    assert (causes[1].cause_id, causes[1].signature) == ("internal_compiler_error", "segfault-alone")

    build = diagnose_list(corpus_lines("ice-segv-nccl-make-139.log")).causes[0]
    assert (build.cause_id, build.signature) == ("internal_compiler_error", "segfault-alone")
