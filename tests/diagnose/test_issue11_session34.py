"""Rows written in session 34 from the dev logs of its blind round (issue 11), before the measurement.

The CMake and GCC messages are printed by the real tools here; the others are the threads' own lines (no
GPU, no NVRTC and no Docker daemon on this machine), each named by its thread.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.git import git

from .conftest import diagnose_text


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_a_policy_newer_than_cmake_is_cmake_too_old(tmp_path: Path):
    """A project that sets a policy this CMake does not know (XNNPACK's CMP0156, CMake 3.29:
    pytorch/executorch#12556): the real cmake's error names cmake_too_old."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\ncmake_policy(SET CMP9999 NEW)\n"
    )
    out = subprocess.run(
        ["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")], capture_output=True, text=True, check=False
    )
    assert out.returncode != 0
    d = diagnose_text(out.stdout + out.stderr)
    assert d.root.cause_id == "cmake_too_old"
    assert "CMP9999" in d.root.explanation


def test_gcc_without_the_front_end_of_the_language_is_compiler_missing(tmp_path: Path):
    """gcc asked for a language whose compiler is not installed beside it: the real driver's "cannot execute
    'cc1obj'" here (Objective-C, not installed on this machine), as "cannot execute 'cc1plus'" for C++ in a
    conda environment with gcc but no gxx (pytorch/vision#8540)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    src = tmp_path / "t.m"
    src.write_text("int main(void) { return 0; }\n")
    out = subprocess.run(
        ["gcc", "-x", "objective-c", "-c", str(src), "-o", str(tmp_path / "t.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    if "cannot execute" not in out.stderr:
        pytest.skip("this gcc has its Objective-C compiler (cc1obj) installed")
    assert diagnose_text(out.stderr).root.cause_id == "compiler_missing"
    cc1plus = "gcc: fatal error: cannot execute 'cc1plus': execvp: No such file or directory"
    assert diagnose_text(cc1plus).root.cause_id == "compiler_missing"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # ggml-org/whisper.cpp#876: an nvcc older than -arch=native
        (
            "nvcc fatal   : Value 'native' is not defined for option 'gpu-architecture'\n"
            "make: *** [Makefile:1] Error 1",
            "cuda_arch_unsupported",
        ),
        # takuseno/d3rlpy#223: the loader's message pasted as a Python repr
        (
            "ImportError: /lib/x86_64-linux-gnu/libm.so.6: version \\'GLIBC_2.27\\' not found (required by "
            "/home/u/envs/d3rlpy/lib/python3.7/site-packages/d3rlpy/dataset.cpython-37m-x86_64-linux-gnu.so)",
            "libc_too_old",
        ),
        # pytorch/pytorch#58101: NVRTC cannot load its builtins library
        (
            "RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.\n"
            "  Make sure that libnvrtc-builtins.so.11.1 is installed correctly.",
            "shared_library_not_found",
        ),
        # AKSHAYUBHAT/DeepVideoAnalytics#9: a Docker build step killed (137 = 128 + SIGKILL)
        (
            "ERROR: Service 'dva' failed to build: The command '/bin/sh -c pip install https://s3.amazonaws.com/pytorch/"
            "whl/cu75/torch-0.1.9.post2-cp27-none-linux_x86_64.whl' returned a non-zero code: 137",
            "out_of_memory",
        ),
        # ggml-org/llama.cpp#17615: EDG's message wrapped after "error: exception", about rsqrtf
        (
            "/usr/include/x86_64-linux-gnu/bits/mathcalls.h(206): error: exception\n"
            'specification is incompatible with that of previous function "rsqrtf"\n'
            "(declared at line 653 of\n"
            "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/math_functions.h)",
            "nvcc_host_stdlib_incompatible",
        ),
        # rows written from round A's held-out misses, after its measurement
        # pytorch/pytorch#82831: protoc's generated code against another protobuf's headers
        (
            "/Users/u/pytorch/build/third_party/onnx/onnx/onnx_onnx_torch-ml.pb.h:5836:19: error: no member named "
            "'ReleaseNonDefault' in 'google::protobuf::internal::ArenaStringPtr'",
            "protobuf_conflict",
        ),
        # CoinCheung/BiSeNet#11: CUDA_HOME set like PATH
        (
            "RuntimeError: Error building extension 'inplace_abn': [1/5] "
            ":/usr/local/cuda-9.0:/usr/local/cuda-9.0/bin/nvcc -DTORCH_EXTENSION_NAME=inplace_abn "
            "-c inplace_abn_cuda.cu -o inplace_abn_cuda.cuda.o\n"
            "FAILED: inplace_abn_cuda.cuda.o",
            "cuda_toolkit_not_found",
        ),
        # pyg-team/pytorch_geometric#636: g++'s std::string (Ss) in a macOS extension
        (
            "ImportError: dlopen(x.so, 2): Symbol not found: __ZN3c105ErrorC1ENS_14SourceLocationERKSs",
            "cxx_abi_mismatch",
        ),
        # KoljaB/RealtimeTTS#138: ctypes' message cut after the folder
        (
            "    self._handle = _dlopen(self._name, mode)\n"
            "FileNotFoundError: Could not find module 'C:\\Users\\u\\.venv\\Lib\\site-packages\\torio\\lib\\",
            "shared_library_not_found",
        ),
        # rows written from round B's held-out misses, after its measurement
        # tianzhi0549/FCOS#21: the strerror text in lower case (a retyped or Go-style message); "no such file" gates it
        ("/usr/local/cuda/bin/nvcc: no such file or directory", "cuda_toolkit_not_found"),
        # Unity-Technologies/ml-agents#5826: numpy 1.21.2 pinned on Python 3.10, built from its sdist
        (
            "  × Building wheel for numpy (pyproject.toml) did not run successfully.\n"
            "      setup.py:63: RuntimeWarning: NumPy 1.21.2 may not yet support Python 3.10.\n"
            "      TypeError: CCompiler_spawn() got an unexpected keyword argument 'env'\n"
            "  ERROR: Failed building wheel for numpy",
            "dependency_version_conflict",
        ),
    ],
)
def test_thread_lines(log: str, cause: str):
    """Each thread's own line names the cause the thread judged: the dev logs' rows (before the measurement), then
    the rows written from rounds A's and B's held-out misses (after theirs)."""
    assert diagnose_text(log).root.cause_id == cause


TRITON = (
    "CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmphyxmvyh2/cuda_utils.c', '-O3', '-shared', '-fPIC', "
    "'-Wno-psabi', '-o', '/tmp/tmphyxmvyh2/cuda_utils.cpython-312-x86_64-linux-gnu.so', '-lcuda', "
    "'-L/usr/lib/x86_64-linux-gnu', '-I/usr/include/python3.12']' returned non-zero exit status 1."
)


def test_triton_helper_build_names_the_compiler_message_when_the_log_has_it():
    """Triton's cuda_utils.c build failing, with the compiler's message printed after the exception (a notebook's
    order, unslothai/unsloth#542): the missing Python.h is named.  Without that message, the exception alone
    still suggests the -lcuda link, below the "sure" bar."""
    with_message = TRITON + "\n/tmp/tmphyxmvyh2/cuda_utils.c:5:10: fatal error: Python.h: No such file or directory\n"
    assert diagnose_text(with_message).root.cause_id == "python_headers_missing"
    alone = diagnose_text(TRITON)
    assert alone.root.cause_id == "system_library_missing"
    assert alone.root.confidence <= 0.6


# Rows written from round A's held-out misses, after the measurement (listed as such, not as carry-over).


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_submodule_whose_repository_is_gone_is_source_fetch_failed(tmp_path: Path):
    """A recursive clone whose submodule's repository no longer exists (Caffe2's eigen: facebookarchive/caffe2#2543,
    facebookresearch/video-nonlocal-net#39), made with real git: the whole output, and git submodule's summary
    line alone (all one thread kept), name source_fetch_failed."""
    git("init", "-q", "sub", cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "s", cwd=tmp_path / "sub")
    git("init", "-q", "top", cwd=tmp_path)
    top = tmp_path / "top"
    git("submodule", "add", "-q", str(tmp_path / "sub"), "third_party/eigen", cwd=top)
    git("config", "-f", ".gitmodules", "submodule.third_party/eigen.url", str(tmp_path / "gone"), cwd=top)
    git("commit", "-q", "-am", "t", cwd=top)
    out = git("clone", "-q", "--recursive", top, tmp_path / "clone", cwd=tmp_path, check=False)
    assert out.returncode != 0 and "Failed to clone 'third_party/eigen'" in out.stderr, out.stderr
    assert diagnose_text(out.stderr).root.cause_id == "source_fetch_failed"
    summary = [line for line in out.stderr.splitlines() if line.startswith("Failed to clone")]
    assert diagnose_text(summary[0]).root.cause_id == "source_fetch_failed"
    first = out.stderr.splitlines()[0]  # "fatal: repository '/tmp/.../gone' does not exist"
    assert diagnose_text(first).root.cause_id == "source_fetch_failed"


def test_a_windows_nvcc_path_is_not_a_path_list():
    """A Windows toolkit path ("C:/CUDA/v11.8/bin/nvcc", a drive letter's colon) is not CUDA_HOME holding a list."""
    d = diagnose_text("[1/3] C:/CUDA/v11.8/bin/nvcc --use-local-env -c a.cu -o a.o\nFAILED: a.o")
    assert d.root.cause_id != "cuda_toolkit_not_found"


def test_a_libcxx_string_symbol_on_macos_stays_an_extension_of_another_torch():
    """libc++'s std::string (NSt3__112basic_string) in a missing macOS symbol is not g++'s: the extension of
    another torch release, as before."""
    libcxx = "__ZN3c105ErrorC1ENS_14SourceLocationERKNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEE"
    d = diagnose_text(f"ImportError: dlopen(x.so, 2): Symbol not found: {libcxx}")
    assert d.root.cause_id == "torch_extension_mismatch"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_a_cuda_imported_target_that_cmake_did_not_define_is_an_incomplete_toolkit(tmp_path: Path):
    """A target linking CUDA::nvrtc that FindCUDAToolkit did not create (conda's cuda-nvcc alone:
    PASSIONLab/OpenEquivariance#208, session 33's round B miss), with the real cmake's message: the
    toolkit lacks the library.  The thread's one-line paste names the same."""
    (tmp_path / "a.c").write_text("int f(void) { return 0; }\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(x C)\n"
        "add_library(x SHARED a.c)\ntarget_link_libraries(x PRIVATE CUDA::nvrtc)\n"
    )
    out = subprocess.run(
        ["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")], capture_output=True, text=True, check=False
    )
    assert out.returncode != 0 and "but the target was not found" in out.stderr, out.stderr
    d = diagnose_text(out.stdout + out.stderr)
    assert d.root.cause_id == "cuda_toolkit_incomplete"
    assert "CUDA::nvrtc" in d.root.explanation
    one_line = "target_link_libraries ... CUDA::nvrtc but the target was not found"
    assert diagnose_text(one_line).root.cause_id == "cuda_toolkit_incomplete"


def test_nvlink_on_glibcs_empty_libpthread_stub_is_a_cuda_too_old():
    """CUDA 11.3's nvlink on a glibc whose libpthread.a is an empty stub (chrismile/CloudRendering#8)."""
    line = "nvlink fatal   : Could not open input file '/usr/lib/x86_64-linux-gnu/libpthread.a'"
    assert diagnose_text(line).root.cause_id == "cuda_toolkit_too_old"


@pytest.mark.parametrize("tool", ["nvlink", "fatbinary"])
def test_the_cuda_toolchains_fatal_lines_are_errors(tool: str):
    """nvlink's and fatbinary's "fatal :" lines are error lines as nvcc's are: a message no row knows is reported
    as the first error, not as a log with no error line."""
    d = diagnose_text(f"{tool} fatal   : Some message no row knows about 'x.o'")
    assert d.root.cause_id == "unknown"
    assert d.root.line == 1
    assert "No error line" not in d.root.explanation


def test_an_older_setuptools_rust_wording_is_compiler_missing():
    """setuptools-rust's "Can not find Rust compiler" of its earlier releases (huggingface/tokenizers#97, a
    dev log of round C), beside the "can't find" of later ones."""
    log = "running build_ext\nrunning build_rust\nerror: Can not find Rust compiler"
    assert diagnose_text(log).root.cause_id == "compiler_missing"
