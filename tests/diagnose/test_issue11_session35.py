"""Issue 11, session 35: two general readings that replace one-row workarounds.

* ``normalize`` undoes a Python repr's ``\\'`` on every line (session 34 had given the GLIBC row an
  optional backslash of its own, for takuseno/d3rlpy#223).
* MSVC's ``Cannot open include file`` names its header in any case (Windows file names are
  case-insensitive): every ``[[header]]`` row of headers.toml is compared in any case on such a line
  (session 33 had given the Python.h row a lower-case ``python.h`` pattern, for ufrisk/LeechCore#10).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from torchbuild.decisions.diagnose.classify import normalize

from .conftest import diagnose_text


def test_normalize_undoes_a_repr_escaped_quote():
    """The loader's message as ``str(exc)`` of a repr (takuseno/d3rlpy#223) reads as the loader wrote it."""
    line = "ImportError: /lib/x86_64-linux-gnu/libm.so.6: version \\'GLIBC_2.27\\' not found (required by /x.so)"
    assert (
        normalize(line)
        == "ImportError: /lib/x86_64-linux-gnu/libm.so.6: version 'GLIBC_2.27' not found (required by /x.so)"
    )


@pytest.mark.parametrize(
    ("line", "cause", "header"),
    [
        # the GLIBC row, whose own optional backslash is gone
        (
            "ImportError: /lib/x86_64-linux-gnu/libm.so.6: version \\'GLIBC_2.27\\' not found (required by "
            "/home/u/envs/d3rlpy/lib/python3.7/site-packages/d3rlpy/dataset.cpython-37m-x86_64-linux-gnu.so)",
            "libc_too_old",
            None,
        ),
        # a row that never had a repr form: clang's quoted missing header
        (
            "src/k.cu:1:10: fatal error: \\'cuda_runtime.h\\' file not found",
            "cuda_toolkit_incomplete",
            "cuda_runtime.h",
        ),
        # MSVC, any case: ufrisk/LeechCore#10's python.h (no row of its own any more) and a CUDA header
        (
            "C:\\temp\\leechcorepyc.c(12,10): fatal error C1083: Cannot open include file: 'python.h': No such file or "
            "directory",
            "python_headers_missing",
            "python.h",
        ),
        (
            "C:\\k.cu(3): fatal error C1083: Cannot open include file: 'CUDA_Runtime.h': No such file or directory",
            "cuda_toolkit_incomplete",
            "CUDA_Runtime.h",
        ),
    ],
)
def test_general_readings_name_the_cause(line, cause, header):
    d = diagnose_text(line)
    assert d.root.cause_id == cause, (line, d.root.signature)
    if header is not None:
        assert d.root.values["header"] == header


@pytest.mark.parametrize(
    "line",
    [
        # gcc and clang run where file names are case-sensitive: python.h is not Python.h there
        "x.c:1:10: fatal error: python.h: No such file or directory",
        "x.c:1:10: fatal error: 'python.h' file not found",
        # any case, but still the whole path: mypython.h is not Python.h
        "C:\\x\\a.cpp(1): fatal error C1083: Cannot open include file: 'mypython.h': No such file or directory",
    ],
)
def test_header_case_is_ignored_only_on_msvc_lines(line):
    assert diagnose_text(line).root.cause_id != "python_headers_missing"


def test_a_missing_member_of_a_torch_class_in_torch_own_source_is_not_an_api_change():
    """torch-cxx-name-not-in-namespace reads "'struct torch::jit::Function' has no member named 'graph'" in an
    extension's source as a torch API that changed (intel/intel-extension-for-pytorch#199), but the same words in
    torch's own c10/ sources (vcpkg's libtorch 1.12.1 under GCC 13, whose <cstdint> is no longer included for it)
    are not the code using another torch's API."""
    ext = (
        "/d/dev/ipex/torch_ipex/csrc/jit/subgraph_rewrite.cpp:64:27: error: "
        "‘struct torch::jit::Function’ has no member named ‘graph’"
    )
    own = (
        "/opt/vcpkg/buildtrees/libtorch/src/v1.12.1-e1cb316ec6.clean/c10/util/BFloat16-inl.h:102:11: error: "
        "‘struct c10::BFloat16’ has no member named ‘x’"
    )
    assert diagnose_text(ext).root.cause_id == "torch_api_removed"
    assert diagnose_text(own).root.cause_id != "torch_api_removed"


#: PyPI's ninja 1.13.2 (run here, 2026-11-27, with ``build.ninja``: ``rule k`` / ``command = sh -c "kill -9 $$$$"``)
#: on a step that kills itself with SIGKILL, as a subprocess's output (no terminal, no shell's "Killed" line).
#: Debian 12's ninja 1.11.1 prints "FAILED: out.o" there, with nothing that says the step was killed.
NINJA_113_KILLED = (
    '[1/1] sh -c "kill -9 $$"\n'
    "FAILED: [code=137] out.o \n"
    'sh -c "kill -9 $$"\n'
    "ninja: build stopped: subcommand failed.\n"
)


def test_ninja_exit_code_137_is_a_killed_step():
    """Recorded output of ninja 1.13.2 (this machine's own ninja is 1.11.1, which prints no code): the FAILED line's
    code 137 names out_of_memory with the target; as in pytorch/FBGEMM#5005, which kept only the FAILED line and
    the nvcc command."""
    d = diagnose_text(NINJA_113_KILLED)
    assert (d.root.cause_id, d.root.signature, d.root.values["target"]) == (
        "out_of_memory",
        "ninja-step-killed",
        "out.o",
    )
    cut = "FAILED: [code=137] gen_ai.dir/src/quantize/grouped.cu.o \n/usr/local/cuda-12.9/bin/nvcc -c grouped.cu\n"
    assert diagnose_text(cut).root.cause_id == "out_of_memory"


def test_ninja_exit_code_1_leaves_the_step_to_its_compiler_error():
    """A plain compiler failure (code 1) is not read from the FAILED line, whose target path may hold any word:
    the compiler's own message names the cause."""
    log = (
        "FAILED: [code=1] caffe2/CMakeFiles/torch_cuda.dir/cudnn/Conv_v8.cpp.o \n"
        "/usr/bin/c++ -c Conv_v8.cpp -o Conv_v8.cpp.o\n"
        "Conv_v8.cpp:3:10: fatal error: Python.h: No such file or directory\n"
    )
    assert diagnose_text(log).root.cause_id == "python_headers_missing"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_an_intrinsic_the_real_gcc_does_not_declare_is_compiler_too_old(tmp_path):
    """The real g++ on intrinsics its immintrin.h does not declare (names no GCC has, standing for ones newer than
    it), inside a template and outside: both of its wordings name compiler_too_old (pytorch/pytorch#61518: GCC 5.4
    and fbgemm's _mm256_cmpge_epi32_mask)."""
    src = tmp_path / "intr.cc"
    src.write_text(
        "#include <immintrin.h>\n"
        "template <class T> int f(T) { return _mm512_not_in_this_gcc(1); }\n"
        "int g() { return _mm256_not_in_this_gcc(1); }\n"
    )
    out = subprocess.run(["g++", "-c", str(src), "-o", str(tmp_path / "intr.o")], capture_output=True, text=True)
    assert out.returncode != 0
    errors = [line for line in out.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 2, out.stderr
    for line in errors:
        d = diagnose_text(line)
        assert (d.root.cause_id, d.root.signature) == ("compiler_too_old", "x86-intrinsic-undeclared"), line
    assert diagnose_text(out.stderr).root.cause_id == "compiler_too_old"
