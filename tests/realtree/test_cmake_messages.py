"""Every configure-time error PyTorch 2.6.0's own CMake code can print, run by the real cmake and diagnosed.

The statements are read from the real tree (``orig_tree``: ../shared/sources' v2.6.0 archive): every
``message(FATAL_ERROR ...)`` / ``message(SEND_ERROR ...)`` of PyTorch's own CMake files (third_party, the
mobile, Vulkan-less test and upstream FindCUDA copies left out).  Each statement is copied verbatim into a
CMakeLists.txt of its own, its variables set to values such a build prints (a GCC 8.5, a cuDNN 7.6.5, ...),
and configured by the real cmake, which prints it as it would in a build: ``CMake Error at file:line
(message):`` and the text wrapped at 80 columns.  ``torchbuild diagnose`` must name the cause each message
states (the table below, the judgement of what the code around each statement checks), or ``unknown`` where
no cause of causes.toml fits (a bug in a CMake file, an option pair PyTorch refuses, a platform SDK).  A
statement of the tree missing from the table, or a table row no statement matches, fails the test too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchbuild.api import diagnose

CMAKE = shutil.which("cmake")

#: Folders of the tree whose CMake errors are not a PyTorch build's (vendored projects, Android/iOS, test
#: fixtures, the copy of CMake's own FindCUDA, QNNPACK's standalone project files).
_SKIP = ("third_party/", "android/", "test/", "/upstream/", "/qnnpack/", "ios.cmake")

#: Values a failing build prints for the variables in the messages (their meaning in the CMake code
#: around them).  FindCUDAToolkit's two messages are variables set a few lines above them.
VALUES = {
    "CMAKE_CXX_COMPILER_VERSION": "8.5.0",
    "Python_VERSION": "3.7.16",
    "CUDNN_VERSION": "7.6.5",
    "cuda_version_from_findcuda": "11.8",
    "cuda_version_from_header": "12.1",
    "CMAKE_CUDA_COMPILER_VERSION": "11.8.89",
    "CUDAToolkit_VERSION": "12.1.105",
    "ROCM_PATH": "/opt/rocm-6.2.0",
    "ROCM_HEADER_NAME": "rocm_version.h",
    "TORCH_XPU_OPS_REPO_URL": "https://github.com/intel/torch-xpu-ops.git",
    "TORCH_XPU_OPS_COMMIT": "28cfac20ec662abdb0ac98faf122450013e8f520",  # third_party/xpu.txt of v2.6.0
    "POCKETFFT_INCLUDE_DIR": "/src/pytorch/third_party/pocketfft/",
    "cuda_root_fail": "Could not find nvcc executable in path specified by CUDAToolkit_ROOT=/usr/local/cuda-12.1",
    "env_cuda_root_fail": "Could not find nvcc executable in path specified by environment variable "
    "CUDAToolkit_ROOT=/usr/local/cuda-12.1",
}

#: file:line of the statement -> the cause its message states.
CAUSES = {
    "CMakeLists.txt:59": "compiler_too_old",  # GCC-9.3 or newer is required
    "aten/src/ATen/CMakeLists.txt:466": "system_library_missing",  # USE_SYSTEM_SLEEF, no sleef
    "caffe2/CMakeLists.txt:1071": "source_fetch_failed",  # git clone of torch-xpu-ops
    "caffe2/CMakeLists.txt:1079": "source_fetch_failed",  # git fetch
    "caffe2/CMakeLists.txt:1086": "source_fetch_failed",  # git checkout of the pinned commit
    "cmake/Dependencies.cmake:280": "submodule_missing",  # third_party/pocketfft absent
    "cmake/Dependencies.cmake:282": "submodule_missing",  # ... or empty
    "cmake/Dependencies.cmake:386": "system_library_missing",  # USE_SYSTEM_PTHREADPOOL
    "cmake/Dependencies.cmake:418": "system_library_missing",  # USE_SYSTEM_CPUINFO
    "cmake/Dependencies.cmake:560": "system_library_missing",  # USE_SYSTEM_XNNPACK
    "cmake/Dependencies.cmake:662": "system_library_missing",  # USE_SYSTEM_BENCHMARK
    "cmake/Dependencies.cmake:991": "cudnn_unusable",  # cuDNN older than 8.5
    "cmake/Dependencies.cmake:1133": "cuda_toolkit_incomplete",  # CUB headers
    "cmake/Dependencies.cmake:1204": "system_library_missing",  # USE_SYSTEM_GLOO
    "cmake/Dependencies.cmake:1302": "system_library_missing",  # USE_SYSTEM_ONNX
    "cmake/Dependencies.cmake:1308": "system_library_missing",
    "cmake/Modules/FindBLAS.cmake:397": "blas_not_found",
    "cmake/Modules/FindBLIS.cmake:60": "blas_not_found",  # BLAS=BLIS
    "cmake/Modules/FindCUDAToolkit.cmake:590": "cuda_toolkit_not_found",  # CUDAToolkit_ROOT without nvcc
    "cmake/Modules/FindCUDAToolkit.cmake:592": "cuda_toolkit_not_found",
    "cmake/Modules/FindCUDAToolkit.cmake:673": "cuda_toolkit_not_found",
    "cmake/Modules/FindFlexiBLAS.cmake:57": "blas_not_found",  # BLAS=FlexiBLAS
    "cmake/Modules/FindLAPACK.cmake:265": "blas_not_found",
    "cmake/Modules/FindMKL.cmake:467": "blas_not_found",
    "cmake/Modules/FindOpenBLAS.cmake:58": "blas_not_found",  # BLAS=OpenBLAS
    "cmake/public/LoadHIP.cmake:11": "cuda_toolkit_not_found",  # ROCM_PATH names no ROCm
    "cmake/public/LoadHIP.cmake:96": "cuda_toolkit_incomplete",  # ROCm without its version header
    "cmake/public/cuda.cmake:64": "cuda_version_mismatch",  # two CUDA toolkits
    "cmake/public/cuda.cmake:73": "cuda_toolkit_too_old",
    "cmake/public/cuda.cmake:118": "cuda_version_mismatch",  # nvcc of one CUDA, headers of another
    "cmake/public/cuda.cmake:223": "cudnn_unusable",
}

#: file:line -> why no cause id fits: the message stays ``unknown`` (with its first error shown).
NO_CAUSE = {
    "CMakeLists.txt:22": "cmake run inside the source tree",
    "CMakeLists.txt:528": "an option pair PyTorch refuses",
    "CMakeLists.txt:814": "iOS universal protoc",
    "aten/CMakeLists.txt:75": "an option pair PyTorch refuses (CUDA and ROCm)",
    "aten/src/ATen/CMakeLists.txt:266": "an option pair PyTorch refuses (CUDA and ROCm)",
    "caffe2/CMakeLists.txt:38": "a bad ATEN_THREADING value",
    "cmake/CheckAbi.cmake:16": "the compiler failed on a one-line program: the output above says why",
    "cmake/Codegen.cmake:163": "code generation failed: the Python error above says why",
    "cmake/Codegen.cmake:225": "code generation failed: the Python error above says why",
    "cmake/Codegen.cmake:424": "code generation failed: the Python error above says why",
    "cmake/Dependencies.cmake:139": "no threads library: a broken toolchain, the output above says why",
    "cmake/Dependencies.cmake:248": "a bad BLAS value",
    "cmake/Dependencies.cmake:857": "no Python interpreter found by CMake",
    "cmake/Dependencies.cmake:861": "a Python older than this PyTorch supports",
    "cmake/Dependencies.cmake:1549": "an option pair PyTorch refuses (mobile profiler with CUDA)",
    "cmake/Dependencies.cmake:1645": "static CUPTI refused",
    "cmake/External/ucc.cmake:13": "an option pair PyTorch refuses (UCC)",
    "cmake/Metal.cmake:89": "no macOS SDK (a platform SDK)",
    "cmake/Modules/FindMKL.cmake:71": "a bad MKL_THREADING value",
    "cmake/Modules/FindMKL.cmake:75": "MKL_THREADING=TBB without TBB",
    "cmake/Modules/FindMKL.cmake:248": "an MKL test linking two OpenMP runtimes",
    "cmake/Modules/FindMKL.cmake:274": "an unknown OpenMP flavour in the MKL test",
    "cmake/Modules/FindMKLDNN.cmake:138": "an option pair PyTorch refuses (MKLDNN_CPU_RUNTIME=TBB)",
    "cmake/Modules/FindNCCL.cmake:79": "NCCL headers and library of two releases",
    "cmake/Modules/FindOpenMP.cmake:651": "a bug in a CMake file (no language enabled)",
    "cmake/ProtoBuf.cmake:155": "a bug in a CMake file (no proto files)",
    "cmake/VulkanCodegen.cmake:21": "Vulkan without ANDROID_NDK",
    "cmake/VulkanCodegen.cmake:35": "Vulkan without glslc",
    "cmake/VulkanCodegen.cmake:56": "Vulkan shader generation failed",
    "cmake/VulkanDependencies.cmake:7": "Vulkan without ANDROID_NDK",
    "cmake/VulkanDependencies.cmake:36": "Vulkan SDK not found",
    "cmake/public/ComputeLibrary.cmake:32": "Arm Compute Library too old",
    "cmake/public/LoadHIP.cmake:55": "no ROCm GPU arch named",
    "cmake/public/cuda.cmake:106": "the CUDA version program failed to compile: its output follows and says why",
    "cmake/public/cuda.cmake:384": "a space in CUDA_NVCC_FLAGS",
    "cmake/public/protobuf.cmake:20": "protobuf found without its CMake targets",
    "cmake/public/utils.cmake:63": "a Python helper failed: the output above says why",
    "cmake/public/utils.cmake:110": "a Python helper failed: the output above says why",
    "cmake/public/utils.cmake:212": "a bug in a CMake file",
    "cmake/public/utils.cmake:302": "no ROCm GPU detected while building",
}


def error_statements(tree: Path) -> Iterator[tuple[str, str]]:
    """``(file:line, statement)`` of every ``message(FATAL_ERROR|SEND_ERROR ...)`` in PyTorch's own CMake
    files under ``tree``, the statement's text copied as written (quotes, escapes and line breaks kept)."""
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree).as_posix()
        if not (rel.endswith(".cmake") or path.name == "CMakeLists.txt") or any(s in f"/{rel.lower()}" for s in _SKIP):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"(?im)^[ \t]*message\s*\(", text):
            end = _closing_paren(text, m.end())
            statement = text[m.start() : end].strip()
            if re.match(r"(?:FATAL_ERROR|SEND_ERROR)\b", statement[statement.index("(") + 1 :].lstrip()):
                yield f"{rel}:{text.count(chr(10), 0, m.start()) + 1}", statement


def _closing_paren(text: str, i: int) -> int:
    """The index after the ``)`` that closes the call whose ``(`` ends at ``i`` (CMake quoting and comments)."""
    depth, quoted = 1, False
    while i < len(text) and depth:
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "#":
            i = text.find("\n", i)
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i


@pytest.fixture(scope="module")
def statements(orig_tree: Path) -> dict[str, str]:
    return dict(error_statements(orig_tree))


def test_the_table_covers_every_error_statement_of_the_tree(statements):
    """Every FATAL_ERROR/SEND_ERROR statement of the real tree is judged in the table, and every row of the
    table is a statement of the tree (71 in all)."""
    assert set(statements) == set(CAUSES) | set(NO_CAUSE)
    assert not set(CAUSES) & set(NO_CAUSE)


@pytest.mark.skipif(CMAKE is None, reason="needs cmake")
def test_each_error_pytorchs_cmake_prints_is_diagnosed_as_its_cause(statements, tmp_path):
    """Each statement configured by the real cmake (wrapped as cmake wraps it), then diagnosed: the cause
    of the table, at 0.6 or more; ``unknown`` for the rows of NO_CAUSE."""
    wrong = []
    for where, statement in statements.items():
        case = tmp_path / where.replace("/", "_").replace(":", "_")
        case.mkdir()
        names = sorted(set(re.findall(r"\$\{(\w+)\}", statement)))
        sets = "".join(f'set({n} "{VALUES.get(n, "X" + n.lower())}")\n' for n in names)
        head = "cmake_minimum_required(VERSION 3.18)\nproject(x NONE)\n"
        (case / "CMakeLists.txt").write_text(f"{head}{sets}{statement}\n")
        proc = subprocess.run([CMAKE, "-S", str(case), "-B", str(case / "b")], capture_output=True, text=True)
        assert proc.returncode != 0 and "CMake Error at" in proc.stderr, (where, proc.stderr)
        (case / "configure.log").write_text(proc.stdout + proc.stderr)
        root = diagnose(case / "configure.log").causes[0]
        want = CAUSES.get(where, "unknown")
        if root.cause_id != want or (want != "unknown" and root.confidence < 0.6):
            wrong.append((where, want, root.cause_id, root.confidence))
    assert not wrong
