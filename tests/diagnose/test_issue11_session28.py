"""Issue 11, session 28: a library a build cannot find is named by what it belongs to
(knowledge/data/library_causes.toml), checked with the real tools' own messages: GNU ld, CMake's
find_library(... REQUIRED), GNU make; and the dev log it was read from."""

from __future__ import annotations

import shutil
import sys

import pytest

from torchbuild.decisions.diagnose_rules_libraries import library_base_names

from .conftest import ROWS, assert_dev_log, causes_of
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag
from .conftest import run_tool as _run

GCC = shutil.which("gcc") or "gcc"
CMAKE = shutil.which("cmake") or "cmake"
MAKE = shutil.which("make") or "make"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize(
    ("lib", "cause"),
    [
        ("cudnn", "cudnn_unusable"),
        ("cudnn_ops_infer", "cudnn_unusable"),
        ("nvToolsExt", "nvtx_missing"),
        ("cudart", "cuda_toolkit_incomplete"),  # its own signature, cuda-lib-missing-at-link
        ("flexiblas", "blas_not_found"),
        ("uv", "system_library_missing"),  # no cause is about libuv: the generic one stays
    ],
)
def test_a_library_ld_cannot_find_is_named_by_its_owner(tmp_path, lib, cause):
    """The real GNU ld asked for -l<lib> that is not installed ("cannot find -lcudnn: No such file or
    directory"): cuDNN's, NVTX's, the CUDA toolkit's and a BLAS's libraries name their cause; another library
    stays system_library_missing.  Where the rule renames, the generic cause is listed second."""
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    proc = _run([GCC, "m.c", "-o", "m", f"-l{lib}"], cwd=tmp_path)
    assert proc.returncode != 0 and f"cannot find -l{lib}" in proc.stderr, proc.stderr
    d = _diag(proc.stderr.strip().splitlines())
    assert d.root.cause_id == cause, causes_of(d)
    if d.root.signature == f"reason:{cause}":
        assert d.causes[1].cause_id == "system_library_missing"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_cmake_find_library_of_cudnn_names_cudnn(tmp_path):
    """CMake's find_library(cudnn_LIBRARY NAMES cudnn libcudnn.so REQUIRED), as TransformerEngine's
    FindCUDNN.cmake calls it, run by the real cmake where no cuDNN is installed: "Could not find
    cudnn_LIBRARY using the following names: cudnn, libcudnn.so" is cudnn_unusable, not a generic library."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(x NONE)\n"
        "find_library(cudnn_LIBRARY NAMES cudnn libcudnn.so PATHS /nonexistent NO_DEFAULT_PATH REQUIRED)\n"
    )
    proc = _run([CMAKE, "-S", ".", "-B", "b"], cwd=tmp_path)
    assert "using the following names" in proc.stderr, proc.stderr
    d = _diag((proc.stdout + proc.stderr).splitlines())
    assert d.root.cause_id == "cudnn_unusable", causes_of(d)
    assert "cudnn" in d.root.explanation


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_without_the_cudnn_library_file_names_cudnn(tmp_path):
    """A Makefile whose target depends on a libcudnn.so path that does not exist, run by the real GNU make:
    "No rule to make target '/nonexistent/lib64/libcudnn.so', needed by 'app'" is cudnn_unusable."""
    (tmp_path / "Makefile").write_text("app: /nonexistent/lib64/libcudnn.so\n\ttouch app\n")
    proc = _run([MAKE], cwd=tmp_path)
    assert "No rule to make target" in proc.stderr, proc.stderr
    d = _diag(proc.stderr.strip().splitlines())
    assert d.root.cause_id == "cudnn_unusable", causes_of(d)


@pytest.mark.parametrize(
    ("values", "names"),
    [
        ({"names": "cudnn, libcudnn.so."}, ["cudnn", "cudnn"]),
        ({"path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7"}, ["cudnn"]),
        ({"lib": "C:\\Python38\\libs\\python38_d.lib"}, ["python38_d"]),
        ({"lib": "nvToolsExt"}, ["nvToolsExt"]),
        ({}, []),
    ],
)
def test_library_base_names(values, names):
    """Folders, the lib prefix, the suffix and its version, and a sentence's last period are dropped."""
    assert library_base_names(values) == names


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize(
    ("name", "cause"),
    [("libcudnn.so", "cudnn_unusable"), ("libfoo.so", "system_library_missing"), ("y.o", "stale_build_dir")],
)
def test_a_damaged_library_or_object_at_link(tmp_path, name, cause):
    """A library or object file cut short (an interrupted download or build), linked by the real gcc and GNU ld
    ("./libcudnn.so: file too short", "y.o: file not recognized: file format not recognized"): a damaged cuDNN
    is cudnn_unusable, another library system_library_missing, an object of the build stale_build_dir (below
    0.6: an old linker that cannot read a new compiler's objects says the same)."""
    (tmp_path / "f.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    flags = ["-c", "f.c", "-o", name] if name.endswith(".o") else ["-shared", "-fPIC", "f.c", "-o", name]
    assert _run([GCC, *flags], cwd=tmp_path).returncode == 0
    data = (tmp_path / name).read_bytes()
    (tmp_path / name).write_bytes(data[:50])
    link = ["m.c", name] if name.endswith(".o") else ["m.c", "-L.", f"-l{name[3:-3]}"]
    proc = _run([GCC, *link, "-o", "m"], cwd=tmp_path)
    assert proc.returncode != 0 and ("file too short" in proc.stderr or "not recognized" in proc.stderr), proc.stderr
    d = _diag(proc.stderr.strip().splitlines())
    assert d.root.cause_id == cause, causes_of(d)
    assert d.root.confidence <= (0.55 if cause == "stale_build_dir" else 0.6)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("lib", ["cudart", "cupti"])
def test_a_symbol_versioned_by_an_older_cuda_runtime_is_a_cuda_mismatch(tmp_path, lib):
    """A module linked against a CUDA library whose symbols carry the version tag ``lib<x>.so.12`` (made here with a
    GNU ld version script, as NVIDIA ships them), then loaded with an older copy of that library that lacks the
    function, by the real dynamic loader: "undefined symbol: cudaGetDriverEntryPointByVersion, version
    libcudart.so.12" (apache/mahout#1330: a system CUDA 12.4 found before the cu128 wheel's runtime)."""
    soname = f"lib{lib}.so.12"
    (tmp_path / "v.map").write_text(f"{soname} {{ global: cudaGetDriverEntryPointByVersion; cudaFree; local: *; }};\n")
    (tmp_path / "new.c").write_text(
        "int cudaGetDriverEntryPointByVersion(void){return 0;}\nint cudaFree(void){return 0;}\n"
    )
    (tmp_path / "old.c").write_text("int cudaFree(void){return 0;}\n")
    (tmp_path / "ext.c").write_text(
        "int cudaGetDriverEntryPointByVersion(void);\nint g(void){return cudaGetDriverEntryPointByVersion();}\n"
    )
    lib_flags = ["-shared", "-fPIC", "-Wl,--version-script=v.map", f"-Wl,-soname,{soname}", "-o", soname]
    assert _run([GCC, "new.c", *lib_flags], cwd=tmp_path).returncode == 0
    ext = [GCC, "-shared", "-fPIC", "ext.c", "-o", "ext.so", "-L.", f"-l:{soname}", "-Wl,-rpath,$ORIGIN"]
    assert _run(ext, cwd=tmp_path).returncode == 0
    assert _run([GCC, "old.c", *lib_flags], cwd=tmp_path).returncode == 0  # the older copy, found first
    err = _run([sys.executable, "-c", "import ctypes; ctypes.CDLL('./ext.so')"], cwd=tmp_path).stderr
    assert f"version {soname}" in err, err
    d = _diag(err.strip().splitlines())
    assert (d.root.cause_id, d.root.signature) == ("cuda_version_mismatch", "cuda-library-symbol-missing"), causes_of(d)


#: Dev logs of this session's batches that a row or rule was written from: (file, batch, cause, least confidence).
DEV_LOGS = [
    # TransformerEngine's CMake build, find_library of cuDNN failing (NVIDIA/TransformerEngine#954)
    ("pip-transformer-engine-conda-cmake-cudnn-library-not-found.log", 163, "cudnn_unusable", 0.0),
    # PyTorch's 2017 source build linking a truncated libcudnn.so (pytorch/pytorch#588)
    ("source-pytorch-2017-libcudnn-so-file-truncated.log", 165, "cudnn_unusable", 0.0),
    # torch's own libraries resolving a symbol versioned libcudart.so.12 / libcupti.so.12 against a system CUDA 12.4
    # copy (the first wraps the symbol onto the next line)
    ("import-torch29-cu128-system-cuda124-libcudart-load-order.log", 166, "cuda_version_mismatch", 0.0),
    ("import-torch28-libcupti-from-local-cuda124.log", 166, "cuda_version_mismatch", 0.0),
    # nvcc (CUDA 8 era) inside glibc 2.23's string.h, __mempcpy_inline's memcpy undeclared (hasindu2008/f5c#36,
    # fixed by -D_FORCE_INLINES)
    ("nvcc-f5c-cuda-glibc223-string-h-mempcpy-inline-memcpy.log", 172, "nvcc_host_stdlib_incompatible", 0.7),
    # MSVC's LNK1102 linking torch_cpu.dll (microsoft/vcpkg#30620)
    ("vcpkg-libtorch-windows-torch-cpu-dll-link-lnk1102-out-of-memory.log", 178, "out_of_memory", 0.7),
    # jaxlib's "symbol cudnnSetCTCLossDescriptorEx version libcudnn.so.7 not defined in file libcudnn.so.7" (an
    # older cuDNN 7 found first; jax-ml/jax#2494) is cuDNN's, not a CUDA library's
    ("jax-jaxlib-cuda101-old-cudnn742-symbol-version.log", 179, "cudnn_unusable", 0.0),
]


@pytest.mark.parametrize(("name", "batch", "cause", "least"), DEV_LOGS)
def test_the_dev_logs_rows_were_written_from_name_their_cause(name, batch, cause, least):
    """Each dev log of batches 163-179 that a row or rule of this session was written from names its cause."""
    assert_dev_log(name, batch, cause, least)


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("runtime-llamacpp-prebuilt-binaries-glibc-2.38-colab.log", "libc_too_old"),
        ("import-cupy-conda-cudatoolkit-older-than-host-cudamempooltrimto.log", "cuda_version_mismatch"),
        ("run-torch22-mnist-system-cudnn-lib64-shadows-wheel-cudnn.log", "cudnn_unusable"),
    ],
)
def test_round_a_held_out_misses_read_after_the_measurement(name, cause):
    """Held-out logs of session 28's round A, read only after its measurement (so not evidence of carry-over): a
    binary wanting both a newer glibc and a newer libstdc++ is the glibc (ggml-org/llama.cpp#9794); the dynamic
    loader's "symbol X version libcudart.so.11.0 not defined in file" (cupy/cupy#5211); a cuDNN sub-library of a
    system cuDNN failing on a symbol versioned by the wheel's (pytorch/pytorch#119989)."""
    assert ROWS[name]["split"] == "holdout" and 162 <= ROWS[name]["batch"] <= 178
    d = _diag(_lines(name))
    assert d.root.cause_id == cause, causes_of(d)
    if cause == "libc_too_old":
        assert d.causes[1].cause_id == "glibcxx_too_old"
