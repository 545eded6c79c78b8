"""Issue 11, session 43: rows written from round A's dev logs (batches 596 and later), before its measurement.

* a relocation that does not fit, in the wording of the linkers other than GNU ld: LLVM's lld ("relocation
  R_X86_64_PC32 out of range: N is not in [-2147483648, 2147483647]") and GNU gold ("relocation overflow: reference
  to 'sym'"): a GPU binary built for too many architectures, as GNU ld's "relocation truncated to fit" already says;
* the linker's "cannot find -lstdc++": the C++ development package of the GCC in use is not installed, a library the
  link names that is not there (system_library_missing, as causes.md lists "cannot find -lXXX"; it was
  compiler_missing);
* MSVC's C1083 for a header of its own C runtime or of the Windows SDK in another language than English;
* .NET's "Unable to load DLL ... (0x8007007F)": the binding and the libtorch DLLs are from different versions;
* numpy.distutils' 'Command "gcc ..." failed with exit status 127': the compiler is not installed;
* a std::shared_ptr kept from torch::jit::load: code written for libtorch 1.1 and older;
* Windows' "[WinError 182] The operating system cannot run %1" loading a torch DLL: another package of the environment
  overwrote a DLL torch shares (a version conflict);
* onnxruntime-gpu's "CUDA_PATH is set but CUDA wasn't able to be loaded": the CUDA installed is not the one it needs.

After round A's measurement, from its held-out misses (listed as such in the row's source): CMake's "does not contain
a CMakeLists.txt file" retyped with the vendored folder first (a submodule not checked out).
"""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import pytest

from .conftest import (
    ROWS,
    assert_dev_log,
    corpus_lines,
    diagnose_list,
    diagnose_text,
    named_below_sure,
    run_tool,
)

#: A C file whose reference to ``big2`` cannot reach past the 3 GB array before it with a 32-bit PC-relative
#: relocation (the small code model): every linker refuses it, each in its own words, without writing 3 GB.
_TOO_FAR = "char big1[3000000000UL];\nchar big2[16];\nint main(void) { return big1[1] + big2[1]; }\n"


def _link(tmp_path: Path, linker: str) -> str:
    """Link ``tmp_path/big.o`` (:data:`_TOO_FAR`, compiled by the test) with the real gcc and
    ``-fuse-ld=<linker>``; returns what it printed."""
    p = run_tool(["gcc", f"-fuse-ld={linker}", "big.o", "-o", "big"], tmp_path)
    assert p.returncode != 0
    return p.stderr


def test_a_relocation_that_gold_or_lld_cannot_fit_is_too_many_architectures(tmp_path: Path):
    """ROCm/composable_kernel#789 (batch 596 dev): lld's "relocation R_X86_64_PC32 out of range" linking ckProfiler
    for ten GPU targets; the fix was fewer targets.  GNU gold (Debian 12's binutils 2.40, run here) says
    "relocation overflow: reference to 'big2' defined in big.o" for the same overflow, and GNU ld "relocation
    truncated to fit" (the older row).  Without CUDA or ROCm in the log the arch list is only a guess (at most 0.5, as
    for GNU ld's wording); after an nvcc command it is surer."""
    (tmp_path / "big.c").write_text(_TOO_FAR)
    assert run_tool(["gcc", "-O0", "-c", "big.c", "-o", "big.o"], tmp_path).returncode == 0
    gold = shutil.which("ld.gold")
    # the line as this machine's gold printed it; the real gold prints it again where it is installed
    printed = "big.o:big.c:function main: error: relocation overflow: reference to 'big2' defined in big.o"
    if gold is not None:
        printed = _link(tmp_path, "gold")
        assert "relocation overflow: reference to 'big2'" in printed
    bfd = _link(tmp_path, "bfd")
    assert "relocation truncated to fit" in bfd
    nvcc = "/usr/local/cuda/bin/nvcc -gencode arch=compute_80,code=sm_80 -c kernel.cu -o kernel.o\n"
    for text, row in ((printed, "relocation-out-of-range"), (bfd, "relocation-truncated-fatbin")):
        alone = diagnose_text(text).root
        assert (alone.cause_id, alone.signature, alone.confidence <= 0.5) == ("cuda_arch_list_too_large", row, True)
        after_nvcc = diagnose_text(nvcc + text).root
        assert (after_nvcc.cause_id, after_nvcc.signature) == ("cuda_arch_list_too_large", row)
        assert after_nvcc.confidence > alone.confidence
    d = assert_dev_log(
        "link-composable-kernel-ckprofiler-lld-relocation-out-of-range-ten-targets.log",
        596,
        "cuda_arch_list_too_large",
        0.7,
    )
    assert "R_X86_64_PC32" in d.root.explanation


def test_the_linker_not_finding_libstdcxx_is_a_missing_development_package():
    """cemu-project/Cemu#1061 and rust-lang/simpleinfra#904 (batch 606 dev): clang picked the newest GCC, whose
    libstdc++-N-dev was not installed; installing it was the fix.  The real ld's "cannot find -lstdc++" is run by
    test_issue11_session24.py::test_the_toolchains_own_cxx_library_missing_at_link."""
    for name in (
        "cmake-cemu-clang15-cannot-find-lstdcxx-needs-libstdcxx11.log",
        "link-rust-simpleinfra-clang-gcc14-no-libstdcxx14-dev-cannot-find-lstdcxx.log",
    ):
        d = assert_dev_log(name, 606, "system_library_missing", 0.6)
        assert d.root.signature == "ld-cannot-find-cxx-runtime" and "libstdc++" in d.root.explanation


def test_msvc_not_finding_its_own_c_runtime_header_in_another_language_is_an_incomplete_install():
    """thu-ml/SageAttention#153 (batch 607 dev): Korean Visual Studio's C1083 for io.h (from Python's pyconfig.h); the
    fix was the Windows SDK and a developer prompt.  No MSVC runs here: the lines are as the threads printed them
    (Korean; Chinese from facebookresearch/fairseq#5052, crtdbg.h).  The English line keeps its cause; a source file
    of the project that C1083 cannot open (aio-libs/frozenlist, generated C missing) is not the C runtime."""
    for line in (
        r"C:\AI\python_embeded\include\pyconfig.h(59): fatal error C1083: 포함 파일을 열 수 없습니다. 'io.h': "
        "No such file or directory",
        r"E:\VC\Tools\MSVC\14.35.32215\include\yvals.h(17): fatal error C1083: 无法打开包括文件: “crtdbg.h”: "
        "No such file or directory",
        r"C:\VS\include\cstddef(11): fatal error C1083: Cannot open include file: 'stddef.h': "
        "No such file or directory",
    ):
        root = named_below_sure(line, "compiler_missing", "msvc-own-c-runtime-header-missing")
        assert root.values["header"] in line
    other = diagnose_text(
        "c1: fatal error C1083: Cannot open source file: 'frozenlist/_frozenlist.c': No such file or directory"
    ).root
    assert other.cause_id != "compiler_missing"
    d = assert_dev_log("msvc-sageattention-windows-sdk-io-h-missing.log", 607, "compiler_missing", 0.6)
    assert "io.h" in d.root.explanation


def test_a_dotnet_binding_whose_libtorch_lacks_a_procedure_is_a_version_mismatch():
    """dotnet/TorchSharp#364 (batch 608 dev): LibTorchSharp.dll with the libtorch-cuda-10.2 package under a TorchSharp
    that needed libtorch-cuda-11.1; HRESULT 0x8007007F is ERROR_PROC_NOT_FOUND.  No .NET runs here: the lines are
    the thread's (zh-CN) and its English wording.  A DLL that is not there at all stays a missing library."""
    for line in (
        "System.DllNotFoundException:“Unable to load DLL \\xx\\LibTorchSharp.dll' or one of its dependencies: "
        "找不到指定的程序。 (0x8007007F)”",
        "System.DllNotFoundException: Unable to load DLL 'LibTorchSharp' or one of its dependencies: "
        "The specified procedure could not be found. (0x8007007F)",
    ):
        root = named_below_sure(line, "torch_extension_mismatch", "dotnet-dll-procedure-not-found")
        assert "LibTorchSharp" in root.explanation
    missing = diagnose_text(
        "System.DllNotFoundException: Unable to load shared library 'LibTorchSharp' or one of its dependencies."
    ).root
    assert missing.cause_id == "shared_library_not_found"
    assert_dev_log(
        "dotnet-torchsharp-libtorchsharp-dll-0x8007007f-libtorch-cuda-10.2-package.log",
        608,
        "torch_extension_mismatch",
        0.6,
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # numpy.distutils warns on import
def test_numpy_distutils_unable_to_start_the_compiler_is_a_missing_compiler(tmp_path: Path):
    """hmmlearn/hmmlearn#312 (batch 613 dev): pip building hmmlearn's C extension in an image without gcc; its
    numpy.distutils command ended "... -o build/.../_hmmc.o -O3\" failed with exit status 127", the start of the
    command wrapped onto the line before.  The real numpy.distutils (CCompiler_spawn, numpy 2.x on Python 3.11)
    raises the whole message for a compiler that is not installed."""
    try:
        from numpy.distutils import ccompiler
    except ImportError:  # numpy.distutils is gone from Python 3.12 on
        pytest.skip("numpy.distutils is not importable here")
    with pytest.raises(Exception, match="failed with exit status 127") as raised:
        ccompiler.CCompiler_spawn(types.SimpleNamespace(verbose=False), ["no-such-gcc", "-c", "x.c", "-o", "x.o"])
    root = diagnose_text(f"error: {raised.value}").root
    assert (root.cause_id, root.signature) == ("compiler_missing", "numpy-distutils-compiler-exit-127")
    assert "no-such-gcc" in root.explanation
    assert diagnose_text('error: Command "gcc -c x.c -o x.o" failed with exit status 1').root.cause_id != (
        "compiler_missing"
    )
    assert_dev_log("pip-hmmlearn-docker-no-gcc-exit-status-127.log", 613, "compiler_missing", 0.7)


def test_a_torchscript_module_kept_in_a_shared_ptr_is_code_for_libtorch_1_1(tmp_path: Path):
    """pytorch/pytorch#23450 and pytorch/tutorials#910 (batch 611 dev): the C++ export tutorial of the time kept
    torch::jit::load's result in a std::shared_ptr; since libtorch 1.2 it is the Module itself.  The real g++ here,
    compiling that line against torch 2.13's headers, prints the conversion error; clang's wording is the thread's.
    (This project's test of the warning row: that compile also prints g++'s C++20 pedwarns.)"""
    import torch.utils.cpp_extension as cpp

    src = tmp_path / "app.cpp"
    src.write_text(
        "#include <torch/script.h>\n#include <memory>\n"
        'int main() { std::shared_ptr<torch::jit::script::Module> module = torch::jit::load("m.pt");'
        " return module == nullptr; }\n"
    )
    p = run_tool(
        ["g++", "-std=c++17", *[f"-I{d}" for d in cpp.include_paths()], "-c", str(src), "-o", "app.o"], tmp_path
    )
    assert p.returncode != 0 and "shared_ptr<torch::jit::Module>" in p.stderr
    root = diagnose_text(p.stderr).root
    assert (root.cause_id, root.signature) == ("torch_api_removed", "torchscript-module-shared-ptr")
    # torch 2.13's headers under -std=c++17 draw g++'s pedwarns ("warning: ... only available with '-std=c++20'"):
    # context that compiles on, not the root; alone (a log cut before the error) they are a likely C++ standard
    # mismatch, named by the hint row and no surer than a hint alone
    warnings = [x for x in p.stderr.splitlines() if "warning:" in x and "only available with" in x]
    assert warnings
    alone = diagnose_text("\n".join(warnings)).root
    assert (alone.cause_id, alone.signature) == ("cxx_standard_mismatch", "gcc-feature-needs-newer-std-warning")
    assert alone.confidence <= 0.5
    for name in (
        "cmake-tutorials-custom-op-example-app-shared-ptr-module-api-change.log",
        "clang-cpp-export-tutorial-no-viable-conversion-script-module-shared-ptr.log",
    ):
        assert_dev_log(name, 611, "torch_api_removed", 0.7)


def test_a_torch_dll_windows_cannot_run_after_another_package_replaced_its_dependency():
    """pytorch/pytorch#111365 (batch 636 dev): cyipopt's conda-forge OpenMP overwrote intel-openmp's libiomp5md.dll
    and torch's fbgemm.dll could not be run (ERROR_INVALID_ORDINAL); the same error after a conda-forge Pillow update
    (pytorch/pytorch#72293, batch 469 dev).  No Windows here: the lines are the threads'.  Windows' other loader
    errors keep their rows."""
    line = (
        "OSError: [WinError 182] The operating system cannot run %1. Error loading "
        '"C:\\envs\\test4\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.'
    )
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == (
        "dependency_version_conflict",
        "windows-dll-invalid-ordinal-conda-overwrite",
    )
    assert "fbgemm.dll" in root.explanation
    other = diagnose_text(
        "OSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\envs\\x\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.'
    ).root
    assert other.signature != "windows-dll-invalid-ordinal-conda-overwrite"
    assert_dev_log(
        "import-windows-conda-fbgemm-dll-libiomp5md-overwritten-by-cyipopt.log", 636, "dependency_version_conflict", 0.6
    )


def test_onnxruntime_gpu_unable_to_load_cuda_is_another_cuda_version():
    """cubiq/ComfyUI_InstantID#27 (batch 635 dev): onnxruntime-gpu beside torch could not load CUDA although
    CUDA_PATH was set; CUDA 11.8 with its cuDNN, the versions that build needed, fixed it (ototadana/sd-face-editor#170,
    batch 246 dev, spells it "wasn't").  onnxruntime-gpu needs a GPU and its CUDA: the lines are the threads'."""
    for line in (
        "onnxruntime_pybind_state.cc:857 onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but "
        "CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN",
        "EP Error onnxruntime_pybind_state.cc:739 onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is "
        "set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN",
    ):
        named_below_sure(line, "cuda_version_mismatch", "onnxruntime-cuda-provider-not-loaded")
    assert_dev_log(
        "runtime-comfyui-instantid-onnxruntime-gpu-cuda-path-set-not-loaded-windows.log",
        635,
        "cuda_version_mismatch",
        0.6,
    )


def test_a_vendored_folder_without_its_cmakelists_retyped_path_first_is_a_missing_submodule(tmp_path: Path):
    """V2AI/Det3D#175 (batch 628 held-out, read after the measurement): "spconv/third_party/pybind11 does not
    contain a CMakeLists.txt file", CMake's message retyped; the fix was the submodule.  The real cmake here, adding
    an empty third_party/pybind11, prints the message the older pattern reads; both name the folder."""
    cmake = shutil.which("cmake")
    assert cmake is not None
    (tmp_path / "third_party" / "pybind11").mkdir(parents=True)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nadd_subdirectory(third_party/pybind11)\n"
    )
    p = run_tool([cmake, "-S", str(tmp_path), "-B", str(tmp_path / "build")], tmp_path)
    assert p.returncode != 0 and "does not contain a CMakeLists.txt file" in p.stderr
    real = diagnose_text(p.stderr).root
    retyped = diagnose_text("spconv/third_party/pybind11 does not contain a CMakeLists.txt file").root
    for root in (real, retyped):
        assert (root.cause_id, root.signature) == ("submodule_missing", "vendored-cmakelists-missing")
        assert "third_party/pybind11" in root.explanation
    name = "build-det3d-spconv-bdist-wheel-pybind11-submodule-missing.log"
    assert ROWS[name]["split"] == "holdout" and ROWS[name]["batch"] == 628
    assert diagnose_list(corpus_lines(name)).root.cause_id == "submodule_missing"
