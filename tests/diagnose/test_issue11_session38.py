"""Issue 11, session 38: rows written from round A's dev logs (batches 444 and later), before its measurement.

* a header of one of ROCm's libraries (hipBLAS, rocBLAS, MIOpen, RCCL...) missing: ROCm is incomplete, as a missing
  cuBLAS header is an incomplete CUDA toolkit (ROCm/TheRock#2452), with the real g++.

After round A's measurement, from its held-out misses (listed as such in the rows' sources):

* Go's lower-case ENOMEM ("cannot allocate memory": BuildKit's ResourceExhausted), but not glibc's static TLS block;
* LLVM's stack trace of a crash inside a pass ("3.Running pass '...' on module"), behind a CI time stamp;
* BuildKit's error summary prefix ("1.181 "), with the real torch's empty arch list;
* auto-gptq's "please install PyTorch first" with its ImportError wrapped onto the next line by uv.

From round B's dev logs (batches 460 and later), before its measurement:

* MSVC without its own omp.h (torch.compile's cpp_prefix.h): the build tools, not OpenMP;
* a path inside third_party that does not exist, in Python's FileNotFoundError of any language: a submodule, with the
  real Python.

From round C's dev logs (batches 468 and later), before its measurement:

* MSVC without the Universal CRT's io.h (which Python's own pyconfig.h includes): the build tools;
* a shell's "third_party/...: No such file or directory": a submodule, with the real bash.

From round D's dev logs (batches 472 and later), before its measurement:

* locate_cuda()'s "The nvcc binary could not be located in your $PATH" (py-faster-rcnn's setup.py and its copies);
* CMake's "Failed to find a working CUDA architecture" / "Failed to detect a default CUDA architecture".
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .conftest import diagnose_text, named_below_sure, run_tool


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


@pytest.mark.parametrize(
    ("line", "oom"),
    [
        (
            'ERROR: failed to solve: ResourceExhausted: process "/bin/sh -c python3 setup.py bdist_wheel" did not '
            "complete successfully: cannot allocate memory",
            True,
        ),
        ("OSError: [Errno 12] Cannot allocate memory", True),
        (
            "OSError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block",
            False,
        ),
    ],
)
def test_go_lower_case_enomem_is_out_of_memory_but_not_the_static_tls_block(line, oom):
    """BuildKit is written in Go, whose ENOMEM text is lower case (golang/sys's errorList; vllm-project/vllm#18040,
    batch 451 held-out, recorded from the thread); glibc's loader's static TLS message is another matter."""
    root = diagnose_text(line).root
    assert (root.cause_id == "out_of_memory") is oom, root


def test_llvm_crash_inside_a_pass_behind_a_ci_time_stamp():
    """hcc's pretty stack trace with its tab lost and Jenkins' time stamp in front (pytorch/pytorch#15121, batch 454
    held-out, recorded from the thread): a compiler crash, named on the first "Running pass" line."""
    log = """
        08:17:19 1.<eof> parser at end of file
        08:17:19 2.Per-module optimization passes
        08:17:19 3.Running pass 'Function Pass Manager' on module '/w/aten/src/ATen/cuda/detail/IndexUtils.cu'.
        08:17:19 4.Running pass 'Combine redundant instructions' on function '@_ZN2at4cuda6detail23maybeOverlapping'
        08:17:19 /opt/rocm/hcc/bin/clang-7.0_original[0x1443404]
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature, root.line) == ("internal_compiler_error", "llvm-crash-running-pass", 3)


def test_the_real_torchs_empty_arch_list_behind_buildkits_error_summary_prefix():
    """This machine's torch (no GPU) raising IndexError in cpp_extension._get_cuda_arch_flags with
    TORCH_CUDA_ARCH_LIST unset, each line put behind BuildKit's seconds ("1.181 ", as docker build's error summary
    shows a RUN step's last lines: mlcommons/training#690, batch 451 held-out): the prefix is read as a CI stamp, so
    the row on torch's own line names it."""
    code = "import torch.utils.cpp_extension as c; c._get_cuda_arch_flags()"
    env = {k: v for k, v in __import__("os").environ.items() if k != "TORCH_CUDA_ARCH_LIST"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False).stderr
    assert "IndexError" in out and "arch_list[-1] += '+PTX'" in out
    boxed = "\n".join(f"1.181 {line}" for line in out.splitlines())
    boxed += '\n------\nERROR: failed to solve: process "/bin/sh -c python setup.py develop" did not complete '
    boxed += "successfully: exit code: 1"
    root = diagnose_text(boxed).root
    assert (root.cause_id, root.signature) == ("arch_unknown_to_torch", "cpp-extension-arch-list-empty")


def test_autogptq_asking_for_pytorch_first_with_the_import_error_wrapped():
    """uv's report of auto-gptq's build (astral-sh/uv#15098, batch 453 held-out, recorded from the thread): the
    ImportError went onto the next line, so the message alone names the isolated build environment."""
    log = """
        uv pip install --upgrade auto_gptq
          × Failed to build `auto-gptq==0.7.1`
          ├─▶ The build backend returned an error
          ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)

              [stdout]
              Building cuda extension requires PyTorch (>=1.13.0) being installed, please install PyTorch first: No
              module named 'torch'
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature) == ("torch_missing_in_build_env", "autogptq-requires-pytorch-first")


def test_msvc_without_its_own_omp_h_is_the_build_tools_not_openmp():
    """cl.exe could not open omp.h, its own header, from torch.compile's cpp_prefix.h (woct0rdho/triton-windows#169,
    batch 460 dev, recorded from the thread): compiler_missing below the sure bar; clang's omp.h stays OpenMP."""
    msvc = (
        "C:/ComfyUI/python_embeded/Lib/site-packages/torch/include\\torch/csrc/inductor/cpp_prefix.h(3): "
        "fatal error C1083: Cannot open include file: 'omp.h': No such file or directory"
    )
    root = named_below_sure(msvc, "compiler_missing", "msvc-own-omp-h-missing")
    assert "vcvars64.bat" in root.fix
    clang = "src/k.cpp:2:10: fatal error: 'omp.h' file not found"
    assert diagnose_text(clang).root.cause_id == "openmp_missing"


def test_the_real_python_missing_a_third_party_folder(tmp_path):
    """This machine's Python copying third_party/flash-attention/flash_attn out of a tree that lacks it, as xformers'
    setup.py does (facebookresearch/xformers#1048, batch 461 dev, where Windows printed error 3 in Spanish):
    submodule_missing below the sure bar; the Spanish line as recorded too; a build folder under third_party is not
    a submodule's."""
    (tmp_path / "third_party" / "flash-attention").mkdir(parents=True)
    code = "import shutil; shutil.copytree('third_party/flash-attention/flash_attn', 'xformers/_flash_attn')"
    out = run_tool([sys.executable, "-c", code], cwd=tmp_path).stderr
    assert "FileNotFoundError: [Errno 2]" in out
    named_below_sure(out, "submodule_missing", "third-party-path-not-found")
    spanish = (
        "FileNotFoundError: [WinError 3] El sistema no puede encontrar la ruta especificada: "
        "'C:\\\\xformers\\\\third_party\\\\flash-attention\\\\flash_attn'"
    )
    named_below_sure(spanish, "submodule_missing", "third-party-path-not-found")
    built = "error: [Errno 2] No such file or directory: '/w/third_party/Mask2Former/build/temp.linux/build.ninja'"
    assert diagnose_text(built).root.signature != "third-party-path-not-found"


@pytest.mark.parametrize("header", ["io.h", "errno.h"])
def test_msvc_without_the_universal_crts_headers_is_the_build_tools(header):
    """cl.exe could not open io.h from Python's own pyconfig.h (Mozer/talk-llama-fast#21, batch 471 dev, recorded
    from the thread): the Windows SDK's Universal CRT is missing, compiler_missing below the sure bar."""
    line = (
        "  C:\\Users\\u\\miniconda3\\envs\\xtts\\include\\pyconfig.h(59): fatal error C1083: Cannot open include "
        f"file: '{header}': No such file or directory"
    )
    root = named_below_sure(line, "compiler_missing", "msvc-own-c-runtime-header-missing")
    assert header in root.explanation


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("command", ["cd third_party/protobuf/cmake", "third_party/protobuf/cmake -DBUILD_TESTS=OFF"])
def test_the_real_bash_running_a_tool_out_of_a_missing_third_party_folder(tmp_path, command):
    """This machine's bash cd-ing into (or running) third_party/protobuf/cmake of a tree without its submodules, as
    caffe2's build_host_protoc.sh did (facebookarchive/caffe2#465, batch 470 dev): submodule_missing below the sure
    bar; a build folder under third_party is not read as a submodule's."""
    (tmp_path / "third_party").mkdir()
    script = tmp_path / "build_host_protoc.sh"
    script.write_text(command + "\n")
    out = run_tool(["bash", str(script)], cwd=tmp_path).stderr
    assert "third_party/protobuf/cmake: No such file or directory" in out
    named_below_sure(out, "submodule_missing", "third-party-path-not-found")
    built = "third_party/protobuf/cmake/build/protoc: No such file or directory"
    assert diagnose_text(built).root.signature != "third-party-path-not-found"


def test_locate_cuda_without_nvcc_is_the_toolkit_not_found_but_not_its_lib64_message():
    """The traceback of a setup.py's locate_cuda() (leoxiaobin/deep-high-resolution-net.pytorch#143, batch 472 dev,
    recorded from the thread); its lib64 message is left alone (Guanghan/lighttrack#1: the function's own layout)."""
    log = """
        Traceback (most recent call last):
          File "setup_linux.py", line 56, in <module>
            CUDA = locate_cuda()
          File "setup_linux.py", line 44, in locate_cuda
            raise EnvironmentError('The nvcc binary could not be '
        OSError: The nvcc binary could not be located in your $PATH. Either add it to your path, or set $CUDAHOME
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature, root.line) == (
        "cuda_toolkit_not_found",
        "setup-locate-cuda-nvcc-not-located",
        6,
    )
    lib64 = "EnvironmentError: The CUDA lib64 path could not be located in /usr/lib64"
    assert diagnose_text(lib64).root.signature != "setup-locate-cuda-nvcc-not-located"


@pytest.mark.parametrize(
    "message", ["Failed to find a working CUDA architecture.", "Failed to detect a default CUDA architecture."]
)
def test_cmake_finding_no_cuda_architecture_is_likely_the_host_compiler(message):
    """CMake 3.18-3.22's message and 3.24's (read in the CMake wheels from PyPI; the first as NVlabs/instant-ngp#186
    printed it with CMake 3.19, batch 475 dev, recorded from the thread): host_compiler_unsupported below the sure
    bar."""
    log = f"""
        -- The CUDA compiler identification is NVIDIA 11.6.55
        CMake Error at C:/Program Files/CMake/share/cmake-3.19/Modules/CMakeDetermineCUDACompiler.cmake:559 (message):
          {message}
        Call Stack (most recent call first):
          CMakeLists.txt:11 (PROJECT)
    """
    root = named_below_sure(log, "host_compiler_unsupported", "cmake-cuda-no-working-architecture")
    assert "CMakeError.log" in root.fix


def test_no_cuda_architecture_after_cmake_could_not_identify_nvcc_is_the_toolkit_not_found():
    """CMake 3.25.1's own output here for a CMAKE_CUDA_COMPILER that does not exist: the identification hint before
    the error says nvcc never ran, so the reasoning (which sees hints too) puts the toolkit first and the host
    compiler below it (session 20's real-CMake test runs the real cmake)."""
    log = """
        -- The CUDA compiler identification is unknown
        CMake Error at /usr/share/cmake-3.25/Modules/CMakeDetermineCUDACompiler.cmake:603 (message):
          Failed to detect a default CUDA architecture.

          Compiler output:

        Call Stack (most recent call first):
          CMakeLists.txt:2 (project)
    """
    d = diagnose_text(log)
    assert [c.cause_id for c in d.causes[:2]] == ["cuda_toolkit_not_found", "host_compiler_unsupported"]
    assert d.causes[1].confidence <= 0.55
    assert any("could not identify the CUDA compiler on line 1" in n for n in d.notes)
