"""Issue 11, session 50: rows written, before the session's measurement, from the dev logs of its blind batches
(804 on) that the start's code (22da3cd) missed.

* GNU as for AArch64 refusing an architecture extension the compiler asked for ("unknown architectural extension
  `i8mm'"): the toolchain's binutils are older than its compiler (google/XNNPACK#1465); the text is the assembler's
  own, read in Debian's binutils-aarch64-linux-gnu 2.40.
* pyconfig.h not found: Python.h's own include, shipped beside it (Debian's libpython3.11-dev), so the interpreter's
  development headers are incomplete (kliment/Printrun#763); gcc's message is reproduced here.
* A module missing in a line that Python's logging printed at the WARNING level ("WARNING:root:... No module named
  X") is context, as in a Python warning, not the failure.
* nvcc's front end failing inside GCC's own include folder (/usr/lib/gcc/<target>/<version>/include/stddef.h): the host
  GCC's headers, below the bar (torch/torch7#682).
* Round B (batch 836): GNU ld's other two texts for a relocation overflow, "additional relocation overflows omitted
  from the output" and "failed to convert GOTPCREL relocation; relink with --no-relax" (NVIDIA/cutlass#175, every
  kernel built), both read in binutils 2.40 here.
* torchrun's per-worker prefix ("[default0]:" with --tee, "[rank0]: ") is a frame, like a CI time stamp: the line
  behind it is read (modelscope/ms-swift#6931 was "No error line found"); reproduced with the real torchrun.

After round A's measurement (held-out logs of batches 804-833, then read), and round B's (834-837): Nix's
auto-patchelf finding no input for a library; nvcc's "Unsupported GPU architecture" in any case; std::filesystem
undefined (GCC 8's separate libstdc++fs); conda's solver naming __glibc (a rule puts it before the solver's failure);
importlib.metadata's PackageNotFoundError; nvcc not knowing the host's 128-bit float types; CMake's missing Python
include folder (an imported target's, a find module's); nvcc's tools crashing on Windows with any of four NTSTATUS
codes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import assert_named_by, corpus_lines, diagnose_list, diagnose_text


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        ("cmake-xnnpack-aarch64-old-binutils-i8mm-bf16.log", "compiler_too_old", "assembler-unknown-arch-extension"),
        ("setuptools-printrun-gcoder-raspbian-pyconfig-missing.log", "python_headers_missing", "pyconfig-h-missing"),
        (
            "cmake-cutlass-profiler-all-kernels-relocation-overflow.log",
            "cuda_arch_list_too_large",
            "relocation-out-of-range",
        ),
    ],
)
def test_dev_misses_of_session_50(name: str, cause: str, signature: str | None):
    """Dev logs of batches 804 on that the start's code named unknown, or python_dependency_missing (0.65)."""
    assert_named_by(name, "dev", cause, signature)


def test_gccs_own_missing_pyconfig_h_is_the_python_headers(tmp_path: Path):
    """gcc 12's real message for a pyconfig.h it cannot find (the include Python.h makes first)."""
    (tmp_path / "m.c").write_text('#include "pyconfig.h"\nint main(void){return 0;}\n')
    run = subprocess.run(["gcc", "-c", "m.c"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "pyconfig.h: No such file or directory" in run.stderr
    root = diagnose_text(run.stderr).root
    assert (root.cause_id, root.signature) == ("python_headers_missing", "pyconfig-h-missing")
    assert root.confidence >= 0.7


def test_a_module_missing_in_a_logged_warning_is_not_the_failure():
    """The Printrun log without its compile error: the warning alone names no failure; with a real error after it,
    the error is the root."""
    lines = corpus_lines("setuptools-printrun-gcoder-raspbian-pyconfig-missing.log")
    assert lines[1].startswith("WARNING:root:") and "No module named" in lines[1]
    root = diagnose_list(lines).root
    assert root.line == 6 and root.cause_id == "python_headers_missing"
    alone = diagnose_text(lines[1] + "\n").root
    assert alone.cause_id != "python_dependency_missing"
    # a module missing in an error line keeps its cause
    error = diagnose_text("ModuleNotFoundError: No module named 'gcoder_line'\n").root
    assert error.cause_id == "python_dependency_missing"


def test_torchruns_worker_prefix_is_read_through(tmp_path: Path):
    """The real torchrun (torch 2.13, installed by scripts/setup-tests) with --tee 3 puts "[default0]:" before each
    line of the worker; the worker's failure behind it is read as without it."""
    pytest.importorskip("torch")
    script = tmp_path / "worker.py"
    script.write_text('import ctypes\nctypes.CDLL("libtorchbuild_absent.so.3")\n')
    run = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "1", "--tee", "3", str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode != 0
    framed = [x for x in out.splitlines() if x.startswith("[default0]:OSError: libtorchbuild_absent.so.3")]
    assert framed, out
    d = diagnose_text(out)
    assert d.root.cause_id == "shared_library_not_found" and "libtorchbuild_absent.so.3" in d.root.explanation
    # the error line is read (and shown) without the prefix
    assert d.first_error is not None and d.first_error.text.startswith("OSError: libtorchbuild_absent.so.3")


def test_a_rank_prefixed_error_line_is_an_error_line():
    """modelscope/ms-swift#6931's lines behind "[rank0]: " were "No error line found"; the RuntimeError line is now
    the first error (its cuDNN status has no row: it stays unknown)."""
    d = diagnose_list(corpus_lines("runtime-ms-swift-conv3d-cudnn-sublibrary-loading-failed.log"))
    assert d.first_error is not None and d.first_error.line == 4
    assert d.first_error.text.startswith("RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR")


def test_nvccs_error_inside_gccs_own_headers_is_the_host_headers_below_the_bar():
    """An EDG error in GCC's own include folder (stddef.h, avx512fintrin.h) names the host GCC's headers, below the
    bar: the seen labels split between those headers and the GCC as a whole being too new (torch/torch7#682, dev:
    host_compiler_unsupported; NVIDIA/apex#529: nvcc_host_stdlib_incompatible)."""
    for name in (
        "cuda-torch7-cutorch-gcc6-nullptr-undefined.log",
        "build-apex-nvcc-gcc55-avx512fintrin-void-pointer.log",
    ):
        root = diagnose_list(corpus_lines(name)).root
        assert (root.cause_id, root.signature) == ("nvcc_host_stdlib_incompatible", "nvcc-error-in-gcc-own-header")
        assert root.confidence < 0.7
    # gcc's own C++ headers (include/c++/<version>/) are another row's; a project's include folder is no GCC's
    other = diagnose_text('/home/u/proj/include/foo.h(12): error: identifier "x" is undefined\n').root
    assert other.signature != "nvcc-error-in-gcc-own-header"


# ---------------------------------------------------------------- after round A's and round B's measurements
@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        (
            "nix-torchaudio-autopatchelf-libavutil-missing.log",
            "system_library_missing",
            "nix-auto-patchelf-dependency-missing",
        ),
        ("nvcc-darknet-compute30-unsupported-rtx3090.log", "cuda_arch_unsupported", "nvcc-unsupported-gpu-arch"),
        (
            "import-triton-libtriton-undefined-filesystem-symbol-gcc8.log",
            "compiler_too_old",
            "std-filesystem-in-libstdcxx-fs",
        ),
        (
            "link-rocm-triton-std-filesystem-undefined-reference-gcc8.log",
            "compiler_too_old",
            "std-filesystem-in-libstdcxx-fs",
        ),
        (
            "conda-evo2-transformer-engine-torch-113-glibc-228-unsatisfiable.log",
            "libc_too_old",
            "conda-nothing-provides-glibc",
        ),
        (
            "import-transformer-engine-pytorch-flash-attn-package-not-found-v100.log",
            "python_dependency_missing",
            "importlib-metadata-package-not-found",
        ),
        (
            "ext-pytorch-scatter-ppc64le-nvcc-ieee128-floatn.log",
            "nvcc_host_stdlib_incompatible",
            "nvcc-host-float128-type-unknown",
        ),
        (
            "cmake-bls-signatures-pybind11-nonexistent-python38-include.log",
            "python_headers_missing",
            "cmake-imported-target-python-include-missing",
        ),
        (
            "cmake-nrn-findpythonlibsnew-python36m-no-python-h.log",
            "python_headers_missing",
            "cmake-could-not-find-python-h",
        ),
        (
            "msvc-cutlass-cudafe-crash-0xc0000409-vs2022-cuda121.log",
            "internal_compiler_error",
            "nvcc-tool-access-violation",
        ),
    ],
)
def test_held_out_misses_of_session_50(name: str, cause: str, signature: str):
    """Held-out logs of batches 804-837 that both codes missed, read after the round's measurement."""
    assert_named_by(name, "holdout", cause, signature)


def test_a_missing_distributions_version_is_a_missing_dependency():
    """The real importlib.metadata of this Python, asked for a distribution that is not installed."""
    import importlib.metadata

    with pytest.raises(importlib.metadata.PackageNotFoundError) as err:
        importlib.metadata.version("torchbuild-absent-distribution")
    line = f"importlib.metadata.PackageNotFoundError: {err.value}"
    root = diagnose_text(line + "\n").root
    assert (root.cause_id, root.signature) == ("python_dependency_missing", "importlib-metadata-package-not-found")
    assert "torchbuild-absent-distribution" in root.explanation


def test_the_solvers_glibc_problem_comes_before_its_failure_and_only_then():
    """A conda solver failure whose problems name __glibc: the machine's glibc first, the solver second; without that
    line the solver's failure stays the root."""
    lines = corpus_lines("conda-evo2-transformer-engine-torch-113-glibc-228-unsatisfiable.log")
    d = diagnose_list(lines)
    assert [c.cause_id for c in d.causes[:2]] == ["libc_too_old", "dependency_version_conflict"]
    assert d.causes[1].confidence <= 0.6 and ">=2.28" in d.root.explanation
    without = diagnose_list([x for x in lines if "__glibc" not in x]).root
    assert without.cause_id == "dependency_version_conflict"


def test_filesystem_symbols_are_gccs_age_and_other_libstdcxx_symbols_are_not():
    """std::filesystem's symbols (GCC 8's libstdc++fs) name the compiler; another libstdc++ symbol keeps its row."""
    fs = diagnose_text("ImportError: /x/libtriton.so: undefined symbol: _ZNSt10filesystem4pathC1ERKS0_\n").root
    assert fs.cause_id == "compiler_too_old"
    other = diagnose_text(
        "ImportError: /x/lib.so: undefined symbol: _ZNSt15__exception_ptr13exception_ptr9_M_addrefEv\n"
    )
    assert other.root.signature != "std-filesystem-in-libstdcxx-fs"


@pytest.mark.parametrize("code", ["0xC0000005 (ACCESS_VIOLATION)", "0xC0000409", "0xc00000fd", "0xC0000374"])
def test_an_nvcc_tool_that_crashed_on_windows_is_a_compiler_crash(code: str):
    """nvcc's report of a crashed tool, for the four NTSTATUS crash codes (mingw-w64's ntstatus.h); another status is
    not read as a crash."""
    root = diagnose_text(f"nvcc error   : 'cudafe++' died with status {code}\n").root
    assert (root.cause_id, root.signature) == ("internal_compiler_error", "nvcc-tool-access-violation")
    other = diagnose_text("nvcc error   : 'cudafe++' died with status 0x00000001\n").root
    assert other.signature != "nvcc-tool-access-violation"


def test_pkg_configs_missing_openblas_is_the_blas_also_when_the_log_shows_no_error_of_its_own():
    """Round C (batch 841 dev): scipy's meson build on macOS probing pkg-config for openblas, in a log whose only
    error lines are pip's summaries: the reasoning now reads a hint standing alone, and pkg-config's package names
    the library as the linkers' and CMake's messages do (knowledge/data/library_causes.toml), below the bar."""
    root = diagnose_list(corpus_lines("build-scipy-pip-compile-macos-meson-openblas-pc-missing.log")).root
    assert (root.cause_id, root.signature) == ("blas_not_found", "reason:blas_not_found")
    assert root.confidence <= 0.5
    other = diagnose_text("Package libavformat was not found in the pkg-config search path.\n").root
    assert other.cause_id == "system_library_missing"
