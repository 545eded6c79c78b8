"""Issue 11, session 45: rows written from dev logs of the session's blind round (batches 678 and later), before its
measurement.

* The compiler refusing the target of -march (aarch64 GCC's "unknown value 'armv8.2-a+fp16' for -march" and
  "invalid feature modifier in '-march=armv8.2-a+dotprod'", x86 GCC's "bad value '...' for '-march=' switch"): a
  compiler older than the architecture or extension (compiler_too_old); an Arm value refused by an x86 compiler is
  the wrong target and stays unnamed.
* CMake's FindCUDA stopping with "Specify CUDA_TOOLKIT_ROOT_DIR": no CUDA toolkit found (cuda_toolkit_not_found).
* conda's own linker missing a versioned glibc symbol is conda's old sysroot, not the system's glibc: no longer
  named libc_too_old.
* GCC 4.9's libstdc++ refusing to move a string stream (the deleted copy constructor of
  std::basic_istringstream<char>): a compiler older than GCC 5's movable iostreams (compiler_too_old).
* xFormers' "built for PyTorch X (you have Y)" without a CUDA version (torch_extension_mismatch).
* CUDA 9's nvcc with GCC 6's <tuple>: PyTorch's own CMake refusal, and "wrong number of template arguments" inside
  <tuple> (nvcc_host_stdlib_incompatible).
* Hugging Face's kernels package finding no prebuilt variant of a Hub kernel for this torch
  (torch_extension_mismatch).
* A ninja step of a FlashAttention kernel failing with no output of its own: most likely killed for memory (a hint,
  out_of_memory below the sure bar).
* GNU ld refusing cuDNN's own library as "file in wrong format": a cuDNN for another architecture (cudnn_unusable).
* cudnn_frontend.h not found: the cudnn-frontend submodule was not checked out (submodule_missing).

After the round's measurement, from its held-out misses (listed as such in the row's source): clang's driver saying
its compiler process was Killed (out_of_memory); a distribution's nvcc finding no supported gcc/g++
(host_compiler_unsupported); an aarch64 GCC without the NEON vst1q_f32_x2 intrinsics (compiler_too_old); any CUDA
object of a CMake build failing with no output of its own (a weaker out_of_memory hint).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from .conftest import ROWS, assert_dev_log, corpus_lines, diagnose_list, diagnose_text, run_tool


@pytest.mark.parametrize(
    ("name", "march"),
    [
        ("build-xnnpack-aarch64-march-dotprod-invalid-modifier.log", "armv8.2-a+dotprod"),
        ("build-xnnpack-arm64-ubuntu1604-march-armv82-fp16-unknown.log", "armv8.2-a+fp16"),
    ],
)
def test_aarch64_gcc_refusing_an_xnnpack_march_is_a_compiler_too_old(name: str, march: str):
    """google/XNNPACK#1551 and #1463 (batch 681 dev): the maintainer answered that the compiler is too old for the
    NEON dot-product / fp16 kernels; a newer GCC built them.  No aarch64 GCC runs here, so the test reads the lines
    the threads recorded."""
    d = assert_dev_log(name, 681, "compiler_too_old", 0.6)
    assert d.root.signature == "compiler-unknown-march-value"
    assert march in d.root.explanation and "USE_XNNPACK=0" in d.root.fix


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH")
def test_real_x86_gcc_refusing_a_march_it_does_not_know(tmp_path: Path):
    """The real gcc here (x86_64) refuses an architecture name it does not know: a compiler too old for that
    target.  An aarch64 architecture given to the same x86 compiler is the wrong target, not an old compiler, so
    nothing is named."""
    src = tmp_path / "m.c"
    src.write_text("int main(void) { return 0; }\n")
    newer = run_tool(["gcc", "-march=znver99", "-c", str(src), "-o", str(tmp_path / "a.o")])
    assert newer.returncode != 0 and "-march=" in newer.stderr
    root = diagnose_text(newer.stderr).root
    assert (root.cause_id, root.signature) == ("compiler_too_old", "compiler-unknown-march-value")
    assert "znver99" in root.explanation and root.confidence < 0.7
    other = run_tool(["gcc", "-march=armv8.2-a+fp16", "-c", str(src), "-o", str(tmp_path / "b.o")])
    assert other.returncode != 0 and "armv8.2-a+fp16" in other.stderr
    assert diagnose_text(other.stderr).root.cause_id == "unknown"


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("gcc") is None, reason="no cmake or gcc on PATH")
def test_real_findcuda_without_a_toolkit_is_cuda_toolkit_not_found(tmp_path: Path):
    """torch/cutorch#352 (batch 685 dev) and the real CMake here: find_package(CUDA REQUIRED) with no nvcc on PATH
    and CMake's system prefixes (/usr/local/cuda) left out of the search stops with FindCUDA's "Specify
    CUDA_TOOLKIT_ROOT_DIR", which names the toolkit not found."""
    dirs = {str(Path(shutil.which(t) or "").parent) for t in ("cmake", "gcc")}
    if any((Path(d) / "nvcc").exists() for d in dirs):
        pytest.skip("nvcc sits beside cmake or gcc: FindCUDA would find it")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p C)\nfind_package(CUDA REQUIRED)\n"
    )
    cmd = ["cmake", "-S", str(src), "-B", str(tmp_path / "b"), "-DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF"]
    env = {"PATH": ":".join(sorted(dirs)), "HOME": str(tmp_path)}
    p = run_tool(cmd, env=env)
    assert p.returncode != 0 and "Specify CUDA_TOOLKIT_ROOT_DIR" in p.stderr
    root = diagnose_text(p.stdout + p.stderr).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_not_found", "findcuda-specify-toolkit-root-dir")
    assert "CUDA_TOOLKIT_ROOT_DIR" in root.fix
    assert_dev_log("cmake-cutorch-specify-cuda-toolkit-root-dir-macos.log", 685, "cuda_toolkit_not_found", 0.85)


def test_conda_linker_missing_a_glibc_symbol_is_not_the_systems_glibc():
    """genn-team/genn#360 (batch 686 dev): conda's own linker (x86_64-conda_cos6-linux-gnu/bin/ld) links against
    the old glibc of conda's sysroot; the fix was the system compiler, which no listed cause names.  The same
    undefined versioned symbol from the system's ld stays an older glibc than the prebuilt library needs."""
    d = assert_dev_log("link-genn-conda-compiler-memcpy-glibc214.log", 686, "unknown", 0.0)
    assert all(c.cause_id != "libc_too_old" for c in d.causes)
    system = diagnose_text("/usr/bin/ld: libtorch/lib/libtorch_cpu.so: undefined reference to `powf@GLIBC_2.27'").root
    assert (system.cause_id, system.signature) == ("libc_too_old", "ld-undefined-glibc-versioned-symbol")


def test_gcc49_refusing_to_move_a_string_stream_is_a_compiler_too_old():
    """scgmlz/BornAgain#875 (batch 689 dev): GCC 4.9's libstdc++ had no movable iostreams, so returning a
    std::istringstream by value picked the deleted copy constructor; the maintainer asked for GCC 5 or newer.  No
    GCC 4.9 runs here; the test reads the thread's line."""
    d = assert_dev_log("centos6-bornagain-gcc49-deleted-istringstream-copy.log", 689, "compiler_too_old", 0.6)
    assert d.root.signature == "libstdcxx-stream-not-movable"
    assert "istringstream" in d.root.explanation and "GCC 5" in d.root.fix


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on PATH")
@pytest.mark.parametrize("abi", ["0", "1"])
def test_real_gcc_refusing_a_stream_copy_is_not_named_an_old_compiler(tmp_path: Path, abi: str):
    """The real g++ here (GCC 12, with movable streams) refusing a genuine copy of a stream words the constructor
    with its template parameters (std::__cxx11::basic_istringstream<_CharT, _Traits, _Alloc> in the new ABI,
    std::basic_istringstream<_CharT, ...> in the old one): the code's own error, not an old compiler."""
    src = tmp_path / "s.cpp"
    src.write_text("#include <sstream>\nstd::istringstream f(std::istringstream& s) { return s; }\n")
    p = run_tool(["g++", f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-c", str(src), "-o", str(tmp_path / "s.o")])
    assert p.returncode != 0 and "use of deleted function" in p.stderr
    assert diagnose_text(p.stderr).root.cause_id != "compiler_too_old"


def test_xformers_built_for_another_torch_without_a_cuda_version_is_the_extension_mismatch():
    """facebookresearch/xformers#874 (batch 692 dev): an xFormers build that recorded no CUDA version prints
    "PyTorch 2.0.1 (you have 2.1.0+cu121)"; the fix was the xFormers release for that torch."""
    d = assert_dev_log(
        "import-xformers-wheel-built-for-torch-201-with-torch-210.log", 692, "torch_extension_mismatch", 0.8
    )
    assert d.root.signature == "xformers-built-for-other-torch"
    assert "2.0.1" in d.root.explanation and "2.1.0+cu121" in d.root.explanation
    # the CUDA build of xFormers beside a CPU-only torch stays its own cause
    cpu = diagnose_text("    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)").root
    assert cpu.cause_id == "torch_cpu_only"


@pytest.mark.parametrize(
    ("name", "signature", "least"),
    [
        ("build-pytorch-cuda91-gcc6-std-tuple-cmake-refuses.log", "pytorch-cmake-cuda-refuses-gcc6-tuple", 0.85),
        ("ext-maskrcnn-benchmark-cuda90-gcc64-tuple-template-args.log", "nvcc-gcc6-tuple-constexpr", 0.75),
    ],
)
def test_cuda9_with_gcc6_tuple_is_nvccs_host_stdlib_incompatibility(name: str, signature: str, least: float):
    """pytorch/pytorch#11886 and facebookresearch/maskrcnn-benchmark#25 (batch 693 dev): CUDA 9.0/9.1's nvcc with
    GCC 6's <tuple>, refused by PyTorch's CMake before compiling, or failing inside <tuple> with "wrong number of
    template arguments (5, should be 2)"; both threads' fix was another host GCC or a newer CUDA."""
    d = assert_dev_log(name, 693, "nvcc_host_stdlib_incompatible", least)
    assert d.root.signature == signature


def test_hf_kernels_with_no_variant_for_this_torch_is_the_extension_mismatch():
    """huggingface/kernels-community#1082 (batch 700 dev): the kernels package found no prebuilt variant of the Hub
    kernel for torch 2.13, only for 2.12.  The Hub and the kernels package are not reachable here, so the test reads
    the thread's lines and the wording of kernels' own variants.py."""
    d = assert_dev_log("load-hf-kernels-flash-attn2-no-variant-torch213.log", 700, "torch_extension_mismatch", 0.7)
    assert d.root.signature == "hf-kernels-variant-for-other-torch"
    assert "torch 2.12" in d.root.explanation and "torch 2.13" in d.root.explanation
    other = diagnose_text(
        "torch25-cxx11-cu118-x86_64-linux: Torch version (torch2.5) does not match"
        " environment Torch version (torch2.13)"
    ).root
    assert (other.cause_id, other.signature) == ("torch_extension_mismatch", "hf-kernels-variant-for-other-torch")


def _ninja_failing_silently(tmp_path: Path, target: str, command: str = "false") -> str:
    """The output of a real ninja build in ``tmp_path`` (created) whose only step, ``target``, runs ``command`` (by
    default one that fails without printing anything, as an nvcc killed for memory inside a parallel build does)."""
    tmp_path.mkdir()
    (tmp_path / "build.ninja").write_text(f"rule cc\n  command = {command}\nbuild {target}: cc\n")
    p = run_tool(["ninja"], cwd=tmp_path)
    assert p.returncode != 0 and f"FAILED: {target}" in p.stdout
    return p.stdout + p.stderr


FLASH_KERNEL = (
    "caffe2/CMakeFiles/torch_cuda.dir/__/aten/src/ATen/native/transformers/cuda/flash_attn/kernels/"
    "flash_bwd_hdim256_bf16_sm80.cu.o"
)


@pytest.mark.parametrize(
    "name", ["build-pytorch-aarch64-flash-bwd-hdim192-oom.log", "build-pytorch-flash-bwd-hdim256-bf16-32gb-oom.log"]
)
def test_a_flash_attention_kernel_failing_without_output_is_likely_out_of_memory(name: str):
    """pytorch/builder#1812 and pytorch/pytorch#111526 (batch 704 dev): PyTorch's build stopped on a FlashAttention
    kernel with nothing but its FAILED block; both were out of memory, fixed with fewer jobs.  Only a hint: below
    the sure bar."""
    d = assert_dev_log(name, 704, "out_of_memory", 0.5)
    assert d.root.signature == "flash-attention-kernel-failed-silently" and d.root.confidence < 0.7
    assert "MAX_JOBS" in d.root.fix and "USE_FLASH_ATTENTION=0" in d.root.fix


@pytest.mark.skipif(shutil.which("ninja") is None, reason="no ninja on PATH")
def test_real_ninja_step_failing_silently(tmp_path: Path):
    """A real ninja build: a FlashAttention kernel's step failing with no output is the memory hint; the same
    silent failure of another target names nothing; and a step that prints a compiler error is diagnosed by that
    error, not by the hint."""
    root = diagnose_text(_ninja_failing_silently(tmp_path / "a", FLASH_KERNEL)).root
    assert (root.cause_id, root.signature) == ("out_of_memory", "flash-attention-kernel-failed-silently")
    other = diagnose_text(_ninja_failing_silently(tmp_path / "b", "caffe2/CMakeFiles/torch_cpu.dir/x.cpp.o")).root
    assert other.cause_id == "unknown"
    # another CUDA object of a CMake build: the weaker hint (written after the measurement, pytorch/pytorch#102594)
    cu = "caffe2/CMakeFiles/torch_cuda.dir/__/aten/src/ATen/native/cuda/TensorModeKernel.cu.o"
    weaker = diagnose_text(_ninja_failing_silently(tmp_path / "d", cu)).root
    assert (weaker.cause_id, weaker.signature) == ("out_of_memory", "cuda-object-failed-silently")
    assert weaker.confidence < root.confidence
    # a JIT extension's CUDA object (torch.utils.cpp_extension names them X.cuda.o): nothing named
    jit = diagnose_text(_ninja_failing_silently(tmp_path / "e", "fused_bias_act_kernel.cuda.o")).root
    assert jit.cause_id == "unknown"
    said = "echo 'nvcc fatal   : Unsupported gpu architecture compute_35' && false"
    loud = diagnose_text(_ninja_failing_silently(tmp_path / "c", FLASH_KERNEL, f"sh -c {said!r}")).root
    assert loud.cause_id == "cuda_arch_unsupported"


def _aarch64_elf(path: Path) -> Path:
    """A minimal ELF64 shared-object header for AArch64 (e_machine 183) at ``path``: what an x86_64 linker sees in a
    library built for an ARM board."""
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    path.write_bytes(ident + struct.pack("<HHIQQQIHHHHHH", 3, 183, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0))
    return path


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH")
def test_real_ld_refusing_a_cudnn_of_another_architecture(tmp_path: Path):
    """pytorch/pytorch#9699 (batch 706 dev): linking against a libcudnn.so that is not for this architecture stops
    with GNU ld's "error adding symbols: file in wrong format"; the fix was the right cuDNN.  The real gcc and ld here
    link against an AArch64 libcudnn.so; the same refusal of another library (an x86 libtorch on an ARM board, judged
    no listed cause in the corpus) names nothing."""
    src = tmp_path / "m.c"
    src.write_text("int main(void) { return 0; }\n")
    for name, cause in (("libcudnn.so", "cudnn_unusable"), ("libtorch.so", "unknown")):
        lib = _aarch64_elf(tmp_path / name)
        p = run_tool(["gcc", str(src), str(lib), "-o", str(tmp_path / "m")])
        assert p.returncode != 0 and "file in wrong format" in p.stderr
        root = diagnose_text(p.stderr).root
        assert root.cause_id == cause, p.stderr
    assert assert_dev_log(
        "build-caffe2-pytorch-jetson-tx1-libcudnn-file-in-wrong-format.log", 706, cause="cudnn_unusable", least=0.65
    )


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on PATH")
def test_real_gcc_missing_the_cudnn_frontend_header_is_an_unchecked_out_submodule(tmp_path: Path):
    """NVIDIA/TransformerEngine#171 (batch 703 dev): cudnn_frontend.h not found while building Transformer Engine
    from a checkout without its cudnn-frontend submodule; `git submodule update` fixed it.  The real g++ here
    compiles a file that includes it, with no such header on the include path."""
    src = tmp_path / "utils.cpp"
    src.write_text('#include "cudnn_frontend.h"\nint main() { return 0; }\n')
    p = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "utils.o")])
    assert p.returncode != 0 and "cudnn_frontend.h" in p.stderr
    root = diagnose_text(p.stderr).root
    assert (root.cause_id, root.signature) == ("submodule_missing", "cudnn-frontend-header-missing")
    assert "git submodule update" in root.fix and root.confidence < 0.7
    d = assert_dev_log(
        "te-transformerengine-source-build-cudnn-frontend-header-missing.log", 703, "submodule_missing", 0.6
    )
    assert d.root.signature == "cudnn-frontend-header-missing"


# ---- rows written after the round's measurement, from its held-out misses (listed as such in each row's source)


@pytest.mark.parametrize(
    ("name", "cause", "signature", "least"),
    [
        # ROCm/TheRock#997: composable_kernel's parallel compile used all 32 GB; clang's driver says its child was
        # killed, and the "frontend command failed due to signal" line after it is not the cause
        ("rocm-therock-composable-kernel-clang-killed.log", "out_of_memory", "clang-child-killed", 0.8),
        # cupy/cupy#197: the distribution's nvcc found no gcc/g++ it supports (only a clang)
        (
            "cuda-cupy-no-supported-host-compiler-ubuntu1704.log",
            "host_compiler_unsupported",
            "nvcc-no-supported-host-compiler-found",
            0.8,
        ),
        # pytorch/pytorch#44198: CentOS 8's aarch64 GCC without vst1q_f32_x2
        (
            "neon-pytorch-centos8-aarch64-vst1q-f32-x2-missing.log",
            "compiler_too_old",
            "neon-intrinsic-x2-undeclared",
            0.6,
        ),
        # pytorch/pytorch#102594: a DEBUG=1 build with CUDA 12 stopped on a CUDA object with nothing from nvcc
        ("build-pytorch-debug-cuda12-nvcc-oom.log", "out_of_memory", "cuda-object-failed-silently", 0.4),
    ],
)
def test_held_out_misses_of_the_round_read_after_its_measurement(name: str, cause: str, signature: str, least: float):
    """Held-out logs of batches 683, 704, 710 and 713 that the measured code missed, named by rows written after the
    measurement.  No clang, distribution nvcc or aarch64 GCC runs here, so the tests read the threads' lines."""
    assert ROWS[name]["split"] == "holdout"
    d = diagnose_list(corpus_lines(name))
    assert (d.root.cause_id, d.root.signature) == (cause, signature) and d.root.confidence >= least
