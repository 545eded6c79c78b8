"""Rows written in session 34 from the dev logs of its blind round (issue 11), before the measurement.

The CMake and GCC messages are printed by the real tools here; the others are the threads' own lines (no
GPU, no NVRTC and no Docker daemon on this machine), each named by its thread.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

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
    assert diagnose_text(
        "gcc: fatal error: cannot execute 'cc1plus': execvp: No such file or directory"
    ).root.cause_id == ("compiler_missing")


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
    ],
)
def test_thread_lines(log: str, cause: str):
    """Each thread's own line names the cause the thread judged."""
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
