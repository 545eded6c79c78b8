"""Issue 11, session 40: rows written from round A's dev logs (batches 514 and later), before its measurement.

* Triton's "out of resource: shared memory" (a kernel's launch configuration too large for the GPU's on-chip shared
  memory) is no longer read as the machine running out of memory: the concept said-memory-exhausted leaves "shared
  memory" and /dev/shm alone;
* a driver "not compatible with any supported CUDA toolkit" (CUDA.jl): the NVIDIA driver too old (the concept
  said-driver-too-old).

After round A's measurement, from its held-out misses (listed as such in the rows' sources):

* CUDAnative's "CUDA 10.0 is not supported by" / "your driver (which supports up to 9.0)", a line cut after " by"
  joined with the next: the driver too old;
* nvcc's host_config.h text copied without its "#error --": the host compiler refused;
* torch's "ninja --version" check failing (a real subprocess run of a ninja that exits 1): Ninja missing;
* a command the reporter typed ("git submodule update --init ...") is no message a concept reads.

From round C's dev logs (batches 541 and later), before its measurement:

* GCC 6's <tuple> errors (constexpr bodies, argument packs) under nvcc: the host C++ library nvcc cannot use;
* a NEON vector given an implicitly declared intrinsic's int (clang's wording, and the real gcc's): a compiler too old.

After round C's measurement, from its held-out misses:

* rustc's "could not find native static library" and rust-lld's "unable to find library" (the real rustc): a library
  missing at link.

Today's tools run here on small failing inputs, after the rounds: nvcc's own front end's wording of a C++17 library
name missing under -std=c++11 (CUDA 13.0's nvcc).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild.decisions.diagnose.concepts import read_line

from .conftest import diagnose_text, named_below_sure, run_tool


def test_triton_shared_memory_out_of_resource_is_not_the_machine_out_of_memory():
    """Two threads of batch 528 (dev), both judged no listed cause by their maintainers (a GPU the project's kernels
    do not support; a kernel's num_stages too high for sm_86): Triton's message, copied from the reporters' logs,
    says "out of resource" and "memory", which the concept for a machine out of RAM read as out_of_memory."""
    for line in (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: "
        "65536. Reducing block sizes or `num_stages` may help.",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware "
        "limitation: 101376. reducing the block size or `num_stages` may help.",
    ):
        root = diagnose_text(line).root
        assert root.cause_id == "unknown", (line, root)


def test_a_machine_out_of_ram_is_still_read_as_out_of_memory():
    """The concept's own example (mit-han-lab/torchsparse#306), and /dev/shm's wording left out by the same change:
    the RAM sentence is still out_of_memory below the sure bar."""
    named_below_sure("freeze because it reached maximum RAM(16GB)", "out_of_memory", "said-memory-exhausted")
    root = diagnose_text("ERROR: the shm (shared memory) of the container ran out of memory").root
    assert root.cause_id != "out_of_memory"


def test_a_driver_not_compatible_with_any_toolkit_is_too_old():
    """JuliaGPU/CUDA.jl#2231 (batch 532 dev): a Quadro 600 whose driver supports CUDA 8.0 at most; the maintainer
    answered that CUDA.jl supports only what NVIDIA supports (CUDA 11.4 and newer), so the driver is too old for any
    toolkit it can use. The line is the reporter's own."""
    root = named_below_sure(
        "Error: CUDA driver 8.0.0 is not compatible with any supported CUDA toolkit (11.4.4, 11.5.2, 11.6.2, 11.7.1, "
        "11.8.0, 12.0.1, 12.1.1, 12.2.2 or 12.3.1)",
        "cuda_driver_too_old",
        "said-driver-too-old",
    )
    assert "driver" in root.explanation


# -- after round A's measurement, from its held-out misses (listed as such in the rows' sources) --------------------


def test_a_cuda_version_not_supported_by_the_driver_over_two_lines():
    """JuliaGPU/julia-ngc#7 (batch 532 held-out): CUDAnative printed its check over two lines; the line cut after
    " by" is joined with the next one, and the driver is too old for CUDA 10.0 (it supports up to 9.0)."""
    d = diagnose_text(
        """
        Precompiling CUDAnative
        ERROR: LoadError: CUDA 10.0 is not supported by
        your driver (which supports up to 9.0)
        """
    )
    assert (d.root.cause_id, d.root.signature) == ("cuda_driver_too_old", "cuda-not-supported-by-driver-up-to")
    assert "up to 9.0" in d.root.explanation and "CUDA 10.0" in d.root.explanation


def test_nvcc_host_config_text_without_its_directive():
    """qulacs/qulacs#116 (batch 522 held-out): the reporter copied host_config.h's text without "#error --"; the
    whole sentence is still nvcc refusing the host compiler. A line that only starts alike is not taken."""
    d = diagnose_text("unsupported GNU version! gcc versions later than 6 are not supported!")
    assert (d.root.cause_id, d.root.signature) == ("host_compiler_unsupported", "nvcc-host-config-unsupported")
    assert "up to (or from) version 6" in d.root.explanation
    assert diagnose_text("unsupported GNU version of the assembler").root.cause_id != "host_compiler_unsupported"


def test_ninja_version_check_that_fails(tmp_path: Path):
    """facebookresearch/fairscale#249 (batch 525 held-out): torch's is_ninja_available() ran "ninja --version" in
    pip's isolated build environment and it failed. The traceback here is the real one: Python's subprocess runs a
    ninja on PATH that exits 1 (the check torch 1.x made with subprocess.check_call)."""
    ninja = tmp_path / "bin" / "ninja"
    ninja.parent.mkdir()
    ninja.write_text("#!/bin/sh\nexit 1\n")
    ninja.chmod(0o755)
    env = {**os.environ, "PATH": f"{ninja.parent}{os.pathsep}{os.environ['PATH']}"}
    code = "import subprocess; subprocess.check_call('ninja --version'.split())"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert run.returncode != 0 and "CalledProcessError" in run.stderr
    d = diagnose_text(run.stderr)
    assert (d.root.cause_id, d.root.signature) == ("ninja_missing", "ninja-required-cpp-extension")


def test_a_typed_git_submodule_command_is_not_a_message():
    """pytorch/pytorch#76094 (batch 520 held-out, judged no listed cause): Xcode 13.3's ld rejected NNPACK's object,
    and the reporter's build steps followed, with "git submodule update --init --recursive --jobs 0": a command
    someone ran, not a tool saying a submodule is missing. A message with the same words
    still is."""
    d = diagnose_text(
        """
        ld: in lib/libnnpack.a(conv1x1.py.o), section __TEXT/__const address out of range for architecture x86_64
        clang: error: linker command failed with exit code 1 (use -v to see invocation)
        ninja: build stopped: subcommand failed.

        git clone --recursive https://github.com/pytorch/pytorch
        git submodule sync
        git submodule update --init --recursive --jobs 0
        """
    )
    assert d.root.cause_id != "submodule_missing"
    assert read_line("git submodule update --init --recursive --jobs 0") is None
    assert read_line("$ pip install -e . --no-build-isolation") is None
    said = read_line("Did you run 'git submodule update --init --recursive --jobs 0'?")
    assert said is not None and said.id == "said-submodule-missing"


# -- round C's dev logs (batches 541 and later), before its measurement ----------------------------------------------


def test_gcc6_tuple_errors_under_nvcc():
    """facebookresearch/maskrcnn-benchmark#29 (batch 546 dev), with pyg-team/pytorch_geometric#400 and
    CharlesShang/DCNv2#70 (seen, labelled the same): GCC 6's <tuple> fails while CUDA 9.0's nvcc compiles; the
    maintainers answered that this nvcc cannot use that GCC's headers."""
    for line in (
        "/usr/include/c++/6/tuple:483:67: error: mismatched argument pack lengths while expanding "
        "‘std::is_constructible<_Elements, _UElements&&>’",
        "/usr/include/c++/6/tuple:502:1: error: body of constexpr function ‘static constexpr bool "
        "std::_TC<<anonymous>, _Elements>::_NonNestedTuple() [with _SrcTuple = std::tuple<at::Tensor&, at::Tensor&>]’ "
        "not a return-statement",
    ):
        root = diagnose_text(line).root
        assert (root.cause_id, root.signature) == ("nvcc_host_stdlib_incompatible", "nvcc-gcc6-tuple-constexpr")
    # GCC 11's <tuple> is not this row's (other GCCs have rows of their own)
    assert (
        diagnose_text(
            "/usr/include/c++/11/tuple:483:67: error: mismatched argument pack lengths while expanding "
            "‘std::is_constructible’"
        ).root.signature
        != "nvcc-gcc6-tuple-constexpr"
    )


def test_a_neon_intrinsic_unknown_to_the_compiler(tmp_path: Path):
    """google/XNNPACK#3407 (batch 543 dev): Android NDK r18b's clang does not know vdot_u32, so C declares it as
    returning int, which cannot become a uint32x2_t. The clang line is the reporter's; gcc's wording comes from the
    real gcc here, on a vector typedef of the same name (no Arm compiler on this machine)."""
    named_below_sure(
        "external/XNNPACK/src/qu8-igemm/gen/1x8c4-minmax-rndnu-neondot.c:77:16: error:  assigning to 'uint32x2_t' "
        "(vector of 2 'uint32_t' values) from incompatible type 'int'",
        "compiler_too_old",
        "neon-intrinsic-implicit-int",
    )
    gcc = shutil.which("gcc")
    assert gcc is not None
    src = tmp_path / "neondot.c"
    src.write_text(
        "typedef unsigned int uint32x2_t __attribute__((vector_size(8)));\n"
        "uint32x2_t f(uint32x2_t a) { uint32x2_t r; r = vdot_u32(a, a, a); return r; }\n"
        "uint32x2_t g(uint32x2_t a) { uint32x2_t r = vdot_u32(a, a, a); return r; }\n"
    )
    out = run_tool([gcc, "-c", str(src), "-o", str(tmp_path / "neondot.o")])
    errors = [ln for ln in out.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 2, out.stderr
    for line in errors:
        named_below_sure(line, "compiler_too_old", "neon-intrinsic-implicit-int")


# -- after round C's measurement, from its held-out misses ------------------------------------------------------------


def test_rust_static_library_not_found(tmp_path: Path):
    """LaurentMazare/tch-rs#789 (batch 543 held-out): torch-sys built with LIBTORCH_STATIC=1 asked for static
    archives the libtorch install does not have. The real rustc of this machine (its image has Rust) prints both
    wordings: its own for an rlib bundling "-l static=asmjit", and rust-lld's when an executable links it."""
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("rustc is not installed (this machine's image has it)")
    lib = tmp_path / "l.rs"
    lib.write_text("pub fn f() {}\n")
    out = run_tool([rustc, "--crate-type", "rlib", str(lib), "-l", "static=asmjit", "--out-dir", str(tmp_path)])
    line = next(ln for ln in out.stderr.splitlines() if "asmjit" in ln)
    d = diagnose_text(line)
    assert (d.root.cause_id, d.root.signature) == ("system_library_missing", "rustc-native-static-library-not-found")
    assert "asmjit" in d.root.explanation
    exe = tmp_path / "m.rs"
    exe.write_text("fn main() {}\n")
    out = run_tool([rustc, str(exe), "-l", "static=asmjit", "-o", str(tmp_path / "m")])
    lld = [ln for ln in out.stderr.splitlines() if "unable to find library" in ln]
    if lld:  # rustc 1.95 here links with its own rust-lld; with GNU ld the line is "cannot find -lasmjit"
        d = diagnose_text(lld[0])
        assert (d.root.cause_id, d.root.signature) == ("system_library_missing", "lld-unable-to-find-lib")
    else:
        assert diagnose_text(out.stderr).root.cause_id == "system_library_missing", out.stderr


# -- the wordings of today's tools, run here (after the session's rounds) ---------------------------------------------


def test_nvcc_front_end_wording_of_a_std_name_missing(tmp_path: Path):
    """The row for a C++17 library name missing under an older -std read gcc's, clang's and MSVC's wordings but not
    nvcc's own front end (EDG): CUDA 13.0's nvcc here, on a .cu file that uses std::optional compiled with
    -std=c++11, prints 'namespace "std" has no member "optional"'."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed (this machine's image has CUDA 13.0's)")
    src = tmp_path / "std.cu"
    src.write_text("#include <optional>\nint main() { std::optional<int> a; return 0; }\n")
    out = run_tool([nvcc, "-std=c++11", "-c", str(src), "-o", str(tmp_path / "std.o")])
    assert out.returncode != 0
    d = diagnose_text(out.stdout + out.stderr)
    assert (d.root.cause_id, d.root.signature) == ("cxx_standard_mismatch", "std-library-name-needs-newer-std")
    assert "std::optional" in d.root.explanation
