"""Issue 11, session 36: rows written from round A's dev logs (batches 387 and later), before its measurement.

* CMake 3.22-3.23's "The CMAKE_CUDA_ARCHITECTURES: ... do not all work with this compiler" (its own line, with no
  ``CMake Error`` header left in the paste: microsoft/onnxruntime#12272);
* any find module's "Could NOT find X (missing: ...)" that no other row names (TensorRT, Bullet), with the real
  cmake of this machine;
* Bazel's "missing input file" for a library of an external repository (pytorch/TensorRT#45);
* a C++17/20 header of the standard library itself that the compiler's library lacks (<string_view>, ...), with the
  real g++ (VAST-AI-Research/TripoSR#74);
* the THC row reads the missing header, not a THC header that includes a missing one (xingyizhou/CenterNet#340);
* macOS's "Symbol not found: _torch_library_impl" (a C shim of another torch), NATTEN's "Failed to import libnatten",
  spconv's "your gpu arch (8, 9) isn't compiled in prebuilt".
"""

from __future__ import annotations

import shutil

import pytest

from support.ld import link_against_older
from torchbuild.decisions.diagnose.signatures import load_signatures
from torchbuild.errors import KnowledgeError

from .conftest import diagnose_text, run_tool


def test_cmake_cuda_architectures_that_do_not_all_work_without_the_cmake_error_header():
    """The paste of microsoft/onnxruntime#12272 (issue 11 batch 387 dev): the list between CMake's two lines, no
    "CMake Error at" above it.  The text is CMake 3.23.3's Modules/CMakeDetermineCUDACompiler.cmake message."""
    log = """
        .\\build.bat --use_cuda --cuda_version "11.5" --cmake_extra_defines "CMAKE_CUDA_ARCHITECTURES=75;80;86;87"

            The CMAKE_CUDA_ARCHITECTURES:

                75;80;86;87

              do not all work with this compiler
    """
    d = diagnose_text(log)
    assert (d.root.cause_id, d.root.signature, d.root.line) == (
        "cuda_arch_unsupported",
        "cmake-cuda-architectures-do-not-all-work",
        7,
    )


def test_cmake_cuda_architectures_message_with_its_header():
    """The whole message as CMake 3.23 prints it (header, list, "Try:" and the working list) names the same cause."""
    log = """
        CMake Error at /usr/share/cmake-3.23/Modules/CMakeDetermineCUDACompiler.cmake:632 (message):
          The CMAKE_CUDA_ARCHITECTURES:

            75;80;86;87

          do not all work with this compiler.  Try:

            75;80;86

          instead.
    """
    assert diagnose_text(log).root.cause_id == "cuda_arch_unsupported"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_real_cmake_could_not_find_a_package_no_row_names(tmp_path):
    """This machine's cmake runs a find module (find_library + find_package_handle_standard_args) for a library
    that is not installed; its "Could NOT find TensorRT (missing: TensorRT_LIBRARY)" names system_library_missing
    with the package (cyrusbehr/YOLOv8-TensorRT-CPP#16, issue 11 batch 390 dev)."""
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "FindTensorRT.cmake").write_text(
        "find_library(TensorRT_LIBRARY NAMES nvinfer_torchbuild_test_absent)\n"
        "include(FindPackageHandleStandardArgs)\n"
        "find_package_handle_standard_args(TensorRT REQUIRED_VARS TensorRT_LIBRARY)\n"
    )
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n"
        "list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_SOURCE_DIR}/cmake)\nfind_package(TensorRT REQUIRED)\n"
    )
    out = run_tool(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")])
    assert out.returncode != 0
    d = diagnose_text(out.stdout + out.stderr)
    assert (d.root.cause_id, d.root.signature, d.root.values["lib"]) == (
        "system_library_missing",
        "cmake-could-not-find-any-package",
        "TensorRT",
    )


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        # the rows that name these packages keep them
        ("-- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE)", "cuda_toolkit_not_found"),
        ("-- Could NOT find CUDNN (missing: CUDNN_LIBRARY_PATH CUDNN_INCLUDE_PATH)", "cudnn_unusable"),
        ("  Could NOT find OpenMP_CXX (missing: OpenMP_CXX_FLAGS OpenMP_CXX_LIB_NAMES)", "openmp_missing"),
        ("  Could NOT find Boost (missing: Boost_INCLUDE_DIR filesystem)", "system_library_missing"),
    ],
)
def test_packages_other_rows_name_keep_their_cause(line, cause):
    """The new catch-all row leaves every package another row names to that row."""
    d = diagnose_text(line)
    assert d.root.cause_id == cause
    assert d.root.signature != "cmake-could-not-find-any-package"


@pytest.mark.parametrize(
    "line",
    [
        "-- Could NOT find Git (missing: GIT_EXECUTABLE)",
        "-- Could NOT find PkgConfig (missing: PKG_CONFIG_EXECUTABLE)",
        "-- Could NOT find Threads (missing: Threads_FOUND)",
    ],
)
def test_tools_cmake_does_not_find_are_not_a_missing_library(line):
    """A tool (git, pkg-config) or the threads check is not a library the project links: no system_library_missing
    from the catch-all row."""
    d = diagnose_text(line)
    assert d.root.signature != "cmake-could-not-find-any-package"


def test_bazel_missing_input_library():
    """pytorch/TensorRT#45 (issue 11 batch 390 dev): Bazel's @tensorrt repository points at a folder without
    libnvinfer.so."""
    log = (
        "INFO: Found 1 target...\n"
        "ERROR: missing input file 'external/tensorrt/lib/x86_64-linux-gnu/libnvinfer.so', owner: "
        "'@tensorrt//:lib/x86_64-linux-gnu/libnvinfer.so'\n"
        "Target //:libtrtorch failed to build\n"
    )
    d = diagnose_text(log)
    assert (d.root.cause_id, d.root.values["lib"]) == ("system_library_missing", "libnvinfer.so")
    # a missing source file is not a library
    assert diagnose_text("ERROR: missing input file '//core:conversion.cpp'").root.signature != (
        "bazel-missing-input-library"
    )


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("header", ["string_view", "optional", "charconv", "concepts"])
def test_a_standard_header_the_real_gcc_library_lacks_is_compiler_too_old(tmp_path, header):
    """The real g++ with -nostdinc++ (no C++ library headers, as a libstdc++ older than the header has none of them)
    prints the message an old gcc does for torch's c10/util/string_view.h (VAST-AI-Research/TripoSR#74, issue 11
    batch 395 dev): compiler_too_old, with the header."""
    src = tmp_path / "std.cc"
    src.write_text(f"#include <{header}>\nint main() {{ return 0; }}\n")
    out = run_tool(["g++", "-nostdinc++", "-c", str(src), "-o", str(tmp_path / "std.o")])
    assert out.returncode != 0
    d = diagnose_text(out.stderr)
    assert (d.root.cause_id, d.root.signature, d.root.values["header"]) == (
        "compiler_too_old",
        "cxx-standard-library-header-missing",
        header,
    )


def test_a_file_named_like_a_standard_header_outside_the_row_is_not_read():
    """Names other files share are left out: a shell's "version: No such file" is no compiler message."""
    d = diagnose_text("cat: version: No such file or directory")
    assert d.root.signature != "cxx-standard-library-header-missing"


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        # torch 0.4's FFI: a THC header includes cuda.h, which is missing (xingyizhou/CenterNet#340, batch 400 dev)
        (
            "/torch/utils/ffi/../../lib/include/THC/THCGeneral.h:12:10: fatal error: cuda.h: No such file or directory",
            "cuda_toolkit_incomplete",
        ),
        # THC itself missing: the row keeps it, in gcc's, clang's, MSVC's and curly-quoted forms
        ("src/x.cu:3:10: fatal error: THC/THC.h: No such file or directory", "torch_api_removed"),
        ("src/x.cu:3:10: fatal error: 'THC/THC.h' file not found", "torch_api_removed"),
        (
            "x.cpp(3): fatal error C1083: Cannot open include file: 'THC/THC.h': No such file or directory",
            "torch_api_removed",
        ),
        ("\u201cTHC/THC.h\u201d: No such file or directory", "torch_api_removed"),
        # torch 0.4.1's opaque THCTensor, as gcc words it in a note-like error (SeanNaren/warp-ctc#58)
        (
            "THCTensor.h:7:16: error: forward declaration of \u2018THCTensor {aka struct THCTensor}\u2019",
            "torch_api_removed",
        ),
    ],
)
def test_thc_is_read_from_the_missing_header_not_the_including_file(line, cause):
    """The THC row fires on a missing THC header or TH type, not on a THC header's own path in front of another
    missing header."""
    assert diagnose_text(line).root.cause_id == cause


@pytest.mark.parametrize(
    ("line", "cause", "signature"),
    [
        (
            "OSError: dlopen(/Users/u/.venv/lib/python3.11/site-packages/torchaudio/lib/_torchaudio.abi3.so, 0x0006): "
            "Symbol not found: _torch_library_impl",
            "torch_extension_mismatch",
            "undefined-symbol-torch-c-shim",
        ),
        (
            "ImportError: Failed to import libnatten. This could be due to an invalid/incomplete install. Please make "
            "sure you built NATTEN correctly, or refer to https://shi-labs.com/natten for more information.",
            "torch_extension_mismatch",
            "natten-libnatten-import-failed",
        ),
        (
            "[WARNING]your gpu arch (8, 9) isn't compiled in prebuilt, may cause invalid device function. available: "
            "{(6, 1), (7, 0), (8, 0), (8, 6), (6, 0), (7, 5), (5, 2)}",
            "no_kernel_image",
            "spconv-gpu-arch-not-in-prebuilt",
        ),
    ],
)
def test_runtime_rows_of_round_a_dev_logs(line, cause, signature):
    """TaterTotterson/microWakeWord-Trainer-AppleSilicon#10 (batch 401), LMMMEng/OverLoCK#5 (batch 400) and
    open-mmlab/OpenPCDet#1354 (batch 398), all dev logs."""
    d = diagnose_text(line)
    assert (d.root.cause_id, d.root.signature) == (cause, signature)


def test_the_spconv_row_names_the_compute_capability():
    d = diagnose_text("[WARNING]your gpu arch (12, 0) isn't compiled in prebuilt, may cause invalid device function.")
    assert "compute capability 12.0" in d.root.explanation


def test_the_c_shim_row_anchor_reaches_both_loaders():
    """One anchor ("ymbol") for glibc's "undefined symbol" and macOS's "Symbol not found"."""
    (sig,) = [s for s in load_signatures() if s.id == "undefined-symbol-torch-c-shim"]
    assert sig.anchor in "undefined symbol" and sig.anchor in "Symbol not found"


# -- rows from round A's held-out misses, written after its measurement (seen from then on)


@pytest.mark.parametrize(
    ("line", "have", "need"),
    [
        (
            "2020-07-27T19:25:00.0718202Z pkg_resources.ContextualVersionConflict: (numpy 1.19.1 "
            "(/usr/share/miniconda/lib/python3.7/site-packages), Requirement.parse('numpy<1.19.0,>=1.16.0'), "
            "{'tensorflow'})",
            "numpy 1.19.1",
            "numpy<1.19.0,>=1.16.0",
        ),
        (
            "pkg_resources.ContextualVersionConflict: numpy 1.16.3 is installed but numpy>=1.16.5 is required by "
            "{'scikit-image'}",
            "numpy 1.16.3",
            "numpy>=1.16.5",
        ),
    ],
)
def test_pkg_resources_version_conflict(line, have, need):
    """setuptools' VersionConflict, as str() of its args (intel/dffml#816) and as its report() template: the
    installed and the required versions are named."""
    d = diagnose_text(line)
    assert d.root.cause_id == "dependency_version_conflict"
    assert have in d.root.explanation and need in d.root.explanation


def test_tensorrt_headers_are_a_system_library():
    """TensorRT's NvInfer.h missing (wang-xinyu/tensorrtx#14: the maintainer points at libnvinfer-dev)."""
    d = diagnose_text("fatal error: NvInfer.h: No such file or directory")
    assert (d.root.cause_id, d.root.values["header"]) == ("system_library_missing", "NvInfer.h")
    assert diagnose_text("x.cpp:2:10: fatal error: NvInferPlugin.h: No such file or directory").root.cause_id == (
        "system_library_missing"
    )


# -- round B: dev rows (before its measurement) and rows from its held-out misses (after it)


def test_triton_kernel_image_invalid_is_a_driver_too_old_for_its_ptxas():
    """pytorch/pytorch#119054 (issue 11 batch 405 dev): Triton's bundled ptxas (CUDA 12.3) under driver 470."""
    log = """
        torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
        RuntimeError: Triton Error [CUDA]: device kernel image is invalid
    """
    d = diagnose_text(log)
    assert (d.root.cause_id, d.root.signature) == ("cuda_driver_too_old", "triton-device-kernel-image-invalid")
    assert "TRITON_PTXAS_PATH" in d.root.fix


def test_a_connection_windows_reset_during_a_build_download_is_a_fetch_failure():
    """woct0rdho/triton-windows#151 (batch 405 dev): WinError 10054 while setup.py downloads LLVM; read by the
    plain-words concept at its low confidence; a pip download is left to pip's own rows (the concept's unless)."""
    d = diagnose_text("     error: [WinError 10054] An existing connection was forcibly closed by the remote host")
    assert d.root.cause_id == "source_fetch_failed" and d.root.confidence < 0.7
    pip = "ERROR: pip's download of a wheel failed: An existing connection was forcibly closed by the remote host"
    assert diagnose_text(pip).root.cause_id != "source_fetch_failed"


def test_nvtoolext_is_nvtx_not_a_system_library():
    """NVIDIA/NVTX#70 (batch 407 dev): a project's FindNvToolExt on a CUDA 12 that ships no nvToolsExt64_1."""
    log = (
        "CMake Error at C:/Program Files/CMake/share/cmake-3.23/Modules/FindPackageHandleStandardArgs.cmake:230 "
        "(message):\n  Could NOT find NvToolExt (missing: NvToolExt_LIBRARIES)\n"
    )
    assert diagnose_text(log).root.cause_id == "nvtx_missing"


@pytest.mark.parametrize(
    ("text", "cause", "signature"),
    [
        (
            "  error: Could not find compiler compatible with this PyTorch installation.",
            "compiler_too_old",
            "horovod-compiler-not-usable-for-pytorch",
        ),
        (
            "/usr/bin/ld: /opt/conda/envs/f3/lib/python3.11/site-packages/torch/lib/libc10_cuda.so: "
            "undefined reference to `cudaGetDriverEntryPointByVersion@libcudart.so.12'",
            "cuda_version_mismatch",
            "link-undefined-versioned-cuda-symbol",
        ),
        (
            "AttributeError: module 'pynvml' has no attribute '_nvmlGetFunctionPointer'",
            "dependency_version_conflict",
            "pynvml-shadowed-by-unofficial-package",
        ),
        (
            "CMake Error at thirdparty/CMakeLists.txt:49 (add_subdirectory):\n"
            '  add_subdirectory given source "ade" which is not an existing directory.\n',
            "submodule_missing",
            "cmake-add-subdirectory-source-not-existing",
        ),
        (
            "tensorRT_cpp/src/tensorRT/onnx/onnx-ml.pb.h:11:10: fatal error: google/protobuf/port_def.inc: "
            "No such file or directory",
            "protobuf_conflict",
            "protobuf-port-def-missing",
        ),
    ],
)
def test_rows_from_round_b_held_out_misses(text, cause, signature):
    """horovod/horovod#1668, grasp-lyrl/fast-feature-fields#12, wookayin/gpustat#153, openvinotoolkit/openvino#331 and
    shouxieai/tensorRT_Pro#12 (batches 406-410 held-out, read after session 36's measurement)."""
    d = diagnose_text(text)
    assert (d.root.cause_id, d.root.signature) == (cause, signature)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_real_cmake_add_subdirectory_of_a_missing_folder(tmp_path):
    """This machine's cmake on add_subdirectory(ade) with no ade folder: submodule_missing, naming the folder."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nadd_subdirectory(ade)\n"
    )
    out = run_tool(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")])
    assert out.returncode != 0
    d = diagnose_text(out.stdout + out.stderr)
    assert (d.root.cause_id, d.root.values["path"]) == ("submodule_missing", "ade")


@pytest.mark.skipif(shutil.which("ld") is None or shutil.which("gcc") is None, reason="gcc/ld are not installed")
def test_the_real_linker_on_a_symbol_at_a_version_the_library_lacks(tmp_path):
    """The real gcc and GNU ld: a shared library built against a libcudart.so.12 that has a versioned symbol, then
    linked with a libcudart.so.12 without it, as torch's libraries against an older CUDA's (fast-feature-fields#12)."""

    out = link_against_older(tmp_path, soname="libcudart.so.12", version="libcudart.so.12", symbol="cudaNewEntryPoint")
    assert out.returncode != 0
    assert "cudaNewEntryPoint@libcudart.so.12" in out.stderr, out.stderr
    d = diagnose_text(out.stderr)
    assert (d.root.cause_id, d.root.values["lib"]) == ("cuda_version_mismatch", "libcudart.so.12")


def test_the_catch_all_could_not_find_row_leaves_every_other_cause_its_packages():
    """Every example of a row of another cause that holds CMake's "Could NOT find" (CUDA, cuDNN, NVTX and NvToolExt,
    BLAS, Python, OpenMP, ...) is kept out of the catch-all row by its lookahead: a new such row must add its package
    names there (docs/diagnose-signatures.md)."""
    sigs = load_signatures()
    (catch_all,) = [s for s in sigs if s.id == "cmake-could-not-find-any-package"]
    others = [(s.id, ex) for s in sigs if s.cause != catch_all.cause for ex in s.examples if "Could NOT find" in ex]
    assert len(others) >= 5
    assert [(sid, ex) for sid, ex in others if catch_all.search(ex) is not None] == []


# -- round C: a reading from its held-out misses, written after its measurement


def test_a_loader_message_wrapped_after_undefined_is_joined():
    """Dao-AILab/flash-attention#950 (issue 11 batch 412 held-out): the paste broke "undefined symbol:" after
    "undefined", so neither line is an undefined-symbol line alone; joined with a space they are."""
    log = """
        ERROR
        `flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined
         symbol: _ZN3c104impl3cow11cow_deleterEPv`
    """
    d = diagnose_text(log)
    assert (d.root.cause_id, d.root.line) == ("torch_extension_mismatch", 2)
    assert d.root.values["symbol"] == "_ZN3c104impl3cow11cow_deleterEPv"


def test_a_line_ending_in_undefined_alone_stays_no_error():
    """Without a next line that completes a known message, a line ending in "undefined" names nothing."""
    d = diagnose_text("the value of x is undefined\nand so is y\n")
    assert d.root.cause_id == "unknown"


def test_header_message_rows_are_read_and_checked_in_one_place(monkeypatch):
    """headers.toml's [[message]] rows have one reader (session 35 left three): header_messages, any_case_messages and
    every header row's signature see the same checked rows, and a row without {header}, without a field, or with an
    empty any_case is refused with the file's name."""
    import torchbuild.decisions.diagnose.signatures as sigmod

    real = sigmod._header_message_rows()
    assert [m.compiler for m in real] == [c for c, _, _ in sigmod.header_messages()]
    assert sigmod.any_case_messages() == tuple(m.any_case for m in real if m.any_case)
    (python_h,) = [s for s in load_signatures() if s.id == "python-h-missing"]
    assert python_h.patterns[: len(real)] == tuple(
        m.pattern.replace("{header}", f"(?i:{python_h.header})" if m.any_case else python_h.header) for m in real
    )
    bad_rows = [
        [{"compiler": "gcc", "pattern": "no header here", "example": "x"}],
        [{"compiler": "gcc", "example": "x"}],
        [{"compiler": "msvc", "pattern": "{header}", "example": "x", "any_case": ""}],
    ]
    for bad in bad_rows:
        monkeypatch.setattr(sigmod, "rows", lambda *a, _bad=bad: _bad)
        sigmod._header_message_rows.cache_clear()
        try:
            with pytest.raises(KnowledgeError, match="headers.toml"):
                sigmod._header_message_rows()
        finally:
            monkeypatch.undo()
            sigmod._header_message_rows.cache_clear()
    assert sigmod._header_message_rows() == real
