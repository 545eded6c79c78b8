"""Issue 11, session 22: messages taken from the tools' own text rather than from one log, and the dev
logs of batch 23 (tests/diagnose/realworld, index.toml).

The CUDA runtime's error strings are read from the real ``libcudart.so`` of the CUDA 13.0 toolkit
installed here (``cudaGetErrorString``, which needs no GPU), formatted the way torch reports them
(``RuntimeError: CUDA error: <string>``).  A Thrust header missing is real g++ without CUDA 13's
``include/cccl`` (and real nvcc, which finds it); a CPU-only torch's "compiled without CUDA support"
is the installed torch's own error.  Triton's missing C compiler and apex's "Cuda None" need Triton
or apex: they are tested with the lines of the real logs."""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROWS, stated
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag


def _libcudart() -> ctypes.CDLL:
    """The toolkit's libcudart (next to the nvcc on PATH, or under /usr/local/cuda*)."""
    nvcc = shutil.which("nvcc")
    roots = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))] if nvcc else []
    roots += sorted(glob.glob("/usr/local/cuda*"))
    for root in roots:
        for lib in sorted(glob.glob(os.path.join(root, "lib*", "libcudart.so*"))):
            try:
                return ctypes.CDLL(lib)
            except OSError:
                continue
    pytest.skip("no CUDA toolkit libcudart.so on this machine")


def _cuda_error(code: int) -> tuple[str, str]:
    """(cudaGetErrorName, cudaGetErrorString) of ``code``, from the real runtime."""
    lib = _libcudart()
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    lib.cudaGetErrorName.restype = ctypes.c_char_p
    return lib.cudaGetErrorName(code).decode(), lib.cudaGetErrorString(code).decode()


def _torch_traceback(message: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "train.py", line 12, in <module>',
        "    model.cuda()",
        f"RuntimeError: CUDA error: {message}",
    ]


@pytest.mark.parametrize(
    ("code", "name", "cause"),
    [
        (35, "cudaErrorInsufficientDriver", "cuda_driver_too_old"),
        (36, "cudaErrorCallRequiresNewerDriver", "cuda_driver_too_old"),
        (803, "cudaErrorSystemDriverMismatch", "cuda_driver_too_old"),
        (804, "cudaErrorCompatNotSupportedOnDevice", "cuda_driver_too_old"),
        (222, "cudaErrorUnsupportedPtxVersion", "cuda_driver_too_old"),
        (98, "cudaErrorInvalidDeviceFunction", "no_kernel_image"),
        (209, "cudaErrorNoKernelImageForDevice", "no_kernel_image"),
    ],
)
def test_cuda_runtime_errors_of_the_environment_name_their_cause(code, name, cause):
    """The runtime's own string for each error that says the driver or the build does not fit the
    machine names that cause, whether torch prints the string or the CUDA samples' checkCudaErrors
    prints the enum name (https://github.com/NVIDIA/cuda-samples/blob/master/Common/helper_cuda.h)."""
    got_name, text = _cuda_error(code)
    assert got_name == name
    d = _diag(_torch_traceback(text))
    assert d.root.cause_id == cause, (text, [(c.cause_id, c.confidence) for c in d.causes])
    assert stated(d.root)  # 0.7 or more, or the calibrated cap of a signature below the bar on the corpus
    # the CUDA samples' checkCudaErrors (helper_cuda.h): 'CUDA error at <file>:<line> code=<n>(<enum name>) "<call>"'
    by_name = _diag([f'CUDA error at main.cu:61 code={code}({name}) "cudaGetDeviceCount(&deviceCount)"'])
    assert by_name.root.cause_id == cause, (name, [(c.cause_id, c.confidence) for c in by_name.causes])


@pytest.mark.parametrize(
    ("code", "name"),
    [(2, "cudaErrorMemoryAllocation"), (700, "cudaErrorIllegalAddress"), (710, "cudaErrorAssert")],
)
def test_cuda_runtime_errors_of_the_program_are_no_build_cause(code, name):
    """An illegal address, a device-side assert or a GPU out of memory is the program's own error at
    run time: no build or environment cause is named for it."""
    got_name, text = _cuda_error(code)
    assert got_name == name
    d = _diag(_torch_traceback(text))
    assert d.root.cause_id == "unknown", (text, [(c.cause_id, c.confidence) for c in d.causes])


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("ext-muillm-rocm-wheels-thrust-complex-missing.log", "cuda_toolkit_incomplete"),
        ("ext-apex-rocm-therock-torch-wheel-without-rocm.log", "torch_cpu_only"),
        ("triton-cortex-runtime-image-no-cc.log", "compiler_missing"),
        ("triton-voicebox-docker-no-build-essential.log", "compiler_missing"),
    ],
)
def test_batch23_dev_logs_name_their_cause(name, cause):
    """Batch 23 dev logs: clang without rocThrust's thrust/complex.h, apex's CUDA check against a
    torch whose CUDA is None, Triton's launcher build in an image without a C compiler (twice)."""
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 23
    d = _diag(_lines(name))
    assert d.root.cause_id == cause, [(c.cause_id, c.confidence) for c in d.causes]


def _cuda13_root() -> Path:
    """A CUDA toolkit with CUDA 13's layout (include/cccl/thrust): the nvcc on PATH, else /usr/local/cuda*."""
    nvcc = shutil.which("nvcc")
    roots = [Path(os.path.realpath(nvcc)).parent.parent] if nvcc else []
    roots += [Path(p) for p in sorted(glob.glob("/usr/local/cuda*"))]
    for root in roots:
        if (root / "include" / "cccl" / "thrust").is_dir():
            return root
    pytest.skip("no CUDA 13 toolkit (include/cccl/thrust) on this machine")


def test_thrust_header_missing_for_the_host_compiler_is_the_toolkit(tmp_path):
    """CUDA 13.0 moved Thrust to include/cccl: real g++ with only -I$CUDA_HOME/include cannot find
    thrust/complex.h, while real nvcc compiles the same file (it adds include/cccl itself)."""
    root = _cuda13_root()
    src = tmp_path / "th.cpp"
    src.write_text("#include <thrust/complex.h>\nint main() { return (int)thrust::complex<float>(1, 2).real(); }\n")
    gxx = subprocess.run(
        ["g++", f"-I{root / 'include'}", "-c", str(src), "-o", str(tmp_path / "th.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert gxx.returncode != 0
    d = _diag(gxx.stderr.splitlines())
    assert d.root.cause_id == "cuda_toolkit_incomplete", (gxx.stderr, [(c.cause_id, c.confidence) for c in d.causes])
    assert "cccl" in d.root.explanation and "thrust/complex.h" in d.root.explanation
    nvcc = root / "bin" / "nvcc"
    if nvcc.exists():
        cu = tmp_path / "th.cu"
        cu.write_text(src.read_text())
        ok = subprocess.run([str(nvcc), "-c", str(cu), "-o", str(tmp_path / "th2.o")], capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr


def test_a_project_header_named_like_thrust_is_not_the_toolkit():
    """Only the Thrust/CUB/libcu++ include paths are the toolkit's: a project's own mythrust/x.h is not."""
    d = _diag(["src/a.cpp:3:10: fatal error: mythrust/complex.h: No such file or directory"])
    assert d.root.cause_id != "cuda_toolkit_incomplete"


def test_cpu_only_torch_compiled_without_cuda_support():
    """The installed CPU-only torch's own RuntimeError, raised by torch.cuda when CUDA is asked of it."""
    torch = pytest.importorskip("torch")
    if torch.version.cuda:
        pytest.skip("the installed torch is a CUDA build")
    p = subprocess.run(
        [sys.executable, "-c", "import torch.cuda\ntorch.cuda._exchange_device(0)\n"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "PyTorch was compiled without CUDA support" in p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "torch_cpu_only", [(c.cause_id, c.confidence) for c in d.causes]


@pytest.mark.parametrize("tool", ["ninja", "make"])
def test_python_library_missing_as_a_build_input(tmp_path, tool):
    """Real ninja and GNU make, asked to link a Python library that does not exist (a virtualenv has
    no libs/pythonXY.lib; a Python without --enable-shared has no libpythonX.Y.so), name Python's
    library, not a system package; any other missing library stays a system library."""
    if shutil.which(tool) is None:
        pytest.skip(f"no {tool} on this machine")
    missing = tmp_path / "venv" / "libs" / "python37.lib"
    other = tmp_path / "lib" / "libnuma.so"
    results = []
    for lib in (missing, other):
        if tool == "ninja":
            (tmp_path / "build.ninja").write_text(f"rule link\n  command = true\nbuild ext.pyd: link {lib}\n")
        else:
            (tmp_path / "Makefile").write_text(f"ext.pyd: {lib}\n\ttrue\n")
        p = subprocess.run([tool], cwd=tmp_path, capture_output=True, text=True, check=False)
        assert p.returncode != 0
        results.append(_diag((p.stdout + p.stderr).splitlines()))
    assert results[0].root.cause_id == "python_lib_missing", [(c.cause_id, c.confidence) for c in results[0].causes]
    assert "python37.lib" in results[0].root.explanation
    assert results[1].root.cause_id == "system_library_missing", [(c.cause_id, c.confidence) for c in results[1].causes]


def test_batch24_dev_log_python_library_of_a_virtualenv():
    """Batch 24 dev log: PyTorch's Windows build in a virtualenv, whose ninja step misses
    <venv>/libs/python37.lib (pytorch/pytorch#29058; the paste doubles the closing quote)."""
    name = "build-pytorch-win-virtualenv-python37-lib-missing.log"
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 24
    d = _diag(_lines(name))
    assert d.root.cause_id == "python_lib_missing", [(c.cause_id, c.confidence) for c in d.causes]


def test_nvcc_pointed_at_a_host_compiler_that_does_not_exist(tmp_path):
    """Real nvcc with --compiler-bindir naming a g++ that does not exist: 'Failed to preprocess host
    compiler properties' after the missing path is the host compiler missing."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k() {}\n")
    p = subprocess.run(
        [nvcc, f"--compiler-bindir={tmp_path / 'no-such' / 'g++'}", "-c", str(src), "-o", str(tmp_path / "k.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode != 0
    assert "Failed to preprocess host compiler properties" in p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "compiler_missing", (p.stderr, [(c.cause_id, c.confidence) for c in d.causes])


@pytest.mark.parametrize(
    "name",
    [
        "import-torch-sparse-compiled-with-different-cuda-colab.log",
        "import-torchvision-colab-webui-cuda117-torch-cuda118-vision.log",
        "import-torchvision-kohya-colab-cuda116-vision-vs-cuda117-torch.log",
        "import-torchvision-whisperx-conda-cuda118-vision-vs-cuda117-torch.log",
    ],
)
def test_prebuilt_extension_for_another_cuda_is_the_extension_mismatch(name):
    """Batch 23 and 25 dev logs: torchvision's or torch_sparse's own check ("compiled with different
    CUDA versions") at import, with no build in the log: a prebuilt binary for another CUDA build of
    torch, whose fix is the matching build of the extension.  Below 0.7 since session 23, with the
    toolkit that built it second: two of the six such threads (batches 16 and 37) judged the toolkit."""
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] in (23, 25)
    d = _diag(_lines(name))
    assert d.root.cause_id == "torch_extension_mismatch", [(c.cause_id, c.confidence) for c in d.causes]
    assert d.root.confidence < 0.7 and d.causes[1].cause_id == "cuda_version_mismatch"


def test_extension_compiled_here_for_another_cuda_is_the_toolkit():
    """The same check after a build in the log (cpp_extension's "The detected CUDA version" warning, a
    setup.py run) keeps the toolkit that compiled as the root (mathmanu/edgeai-torchvision#18: a
    source build with the system's CUDA 11.7 against torch for 11.3)."""
    name = "import-torchvision-source-build-system-cuda117-vs-torch-cu113-conda.log"
    assert _diag(_lines(name)).root.cause_id == "cuda_version_mismatch"
    check = (
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
        "PyTorch has CUDA Version=11.3 and torchvision has CUDA Version=11.7. Please reinstall the torchvision "
        "that matches your PyTorch install."
    )
    built = _diag(["running build_ext", "building 'torchvision._C' extension", check])
    assert [c.cause_id for c in built.causes[:2]] == ["cuda_version_mismatch", "torch_extension_mismatch"]
    wheel = _diag(["Building wheel for torchvision (setup.py) ... error", check])
    assert wheel.root.cause_id == "cuda_version_mismatch"
    legacy = _diag(["Running setup.py install for torchvision ... error", check])
    assert legacy.root.cause_id == "cuda_version_mismatch"
    # another package built in the same log says nothing of the torchvision binary
    other = _diag(["Building wheel for torch-cluster (setup.py) ... done", check])
    assert other.root.cause_id == "torch_extension_mismatch"
    assert _diag([check]).root.cause_id == "torch_extension_mismatch"


def _cmake_imported_target(tmp_path: Path, include_dir: str) -> list[str]:
    """Real CMake configuring a project whose imported target "torch" names ``include_dir``."""
    if shutil.which("cmake") is None:
        pytest.skip("no cmake on this machine")
    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "a.cpp").write_text("int main() { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(app CXX)\n"
        "add_library(torch INTERFACE IMPORTED)\n"
        f'set_target_properties(torch PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "{include_dir}")\n'
        "add_executable(app a.cpp)\ntarget_link_libraries(app torch)\n"
    )
    p = subprocess.run(["cmake", "-S", str(src), "-B", str(tmp_path / "build")], capture_output=True, text=True)
    assert p.returncode != 0
    return (p.stdout + p.stderr).splitlines()


def test_torch_target_with_nvtoolsext_path_that_does_not_exist(tmp_path):
    """Real CMake: an imported target "torch" whose include directory is NVIDIA's standalone
    NvToolsExt, absent here (batch 25 dev: acids-ircam/nn_tilde#46, libtorch on Windows with a
    CUDA that no longer ships it), is NVTX missing; another missing directory is not."""
    lines = _cmake_imported_target(tmp_path, str(tmp_path / "NVIDIA Corporation" / "NvToolsExt" / "include"))
    d = _diag(lines)
    assert d.root.cause_id == "nvtx_missing", ("\n".join(lines), [(c.cause_id, c.confidence) for c in d.causes])
    other = _diag(_cmake_imported_target(tmp_path / "o", str(tmp_path / "opt" / "other" / "include")))
    assert other.root.cause_id != "nvtx_missing"
    name = "cmake-libtorch-windows-nvtoolsext-include-nonexistent.log"
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 25
    assert _diag(_lines(name)).root.cause_id == "nvtx_missing"


def test_old_abi_std_string_reference_to_another_library(tmp_path):
    """Real g++ and GNU ld: code compiled with -D_GLIBCXX_USE_CXX11_ABI=0 (as a pre-cxx11 libtorch
    makes every target that links it) calling a library built with GCC's default new ABI fails on
    ``cv::imread(std::string const&, int)`` (batch 25 dev: walktree/libtorch-yolov3#23, OpenCV):
    the C++ ABI, not confidently. The same program built with one ABI links."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ on this machine")
    (tmp_path / "lib.cpp").write_text(
        "#include <string>\nnamespace cv { int imread(const std::string& s, int f) { return (int)s.size() + f; } }\n"
    )
    (tmp_path / "app.cpp").write_text(
        "#include <string>\nnamespace cv { int imread(const std::string& s, int f); }\n"
        'int main() { return cv::imread("x", 1); }\n'
    )
    lib = subprocess.run(["g++", "-shared", "-fPIC", "lib.cpp", "-o", "libcvx.so"], cwd=tmp_path, capture_output=True)
    assert lib.returncode == 0
    old = ["g++", "-D_GLIBCXX_USE_CXX11_ABI=0", "app.cpp", "-L.", "-lcvx", "-o", "app"]
    p = subprocess.run(old, cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode != 0 and "std::string const&" in p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "cxx_abi_mismatch", (p.stderr, [(c.cause_id, c.confidence) for c in d.causes])
    assert d.root.confidence < 0.7
    same = subprocess.run(["g++", "app.cpp", "-L.", "-lcvx", "-o", "app"], cwd=tmp_path, capture_output=True)
    assert same.returncode == 0
    name = "link-libtorch-opencv-imread-undefined-pre-cxx11-abi.log"
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 25
    assert _diag(_lines(name)).root.cause_id == "cxx_abi_mismatch"


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        (
            "RuntimeError: causal_conv1d is only supported on ROCm 6.0 and above.  Note: make sure HIP has a "
            "supported version by running hipcc --version.",
            "cuda_toolkit_too_old",
        ),
        (
            "deepspeed.ops.op_builder.builder.MissingCUDAException: Unable to run /usr/local/cuda/bin/nvcc, unable to "
            "compile CUDA op(s): [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'",
            "cuda_toolkit_not_found",
        ),
        (
            "RuntimeError: DeepSpeed JIT builder for 'fused_adam' found no CUDA devices. Set TORCH_CUDA_ARCH_LIST or "
            "make GPUs visible.",
            "arch_unknown_to_torch",
        ),
        (
            "ValueError: The environment variable CUDA_PATH must be set to the path to the CUDA install when "
            "installing from source on Windows systems.",
            "cuda_toolkit_not_found",
        ),
        ("RuntimeError: wheel package is required to build wheels", "python_dependency_missing"),
    ],
)
def test_extension_build_scripts_own_messages(line, cause):
    """Messages of extension projects' build scripts, as their code formats them (read in the PyPI sdists
    of causal_conv1d 1.7.0 and mamba_ssm 2.3.2.post1, deepspeed 0.19.8's op_builder/builder.py,
    auto_gptq 0.7.1 and xformers 0.0.35), at the end of a setup.py traceback."""
    d = _diag(["Traceback (most recent call last):", '  File "setup.py", line 300, in <module>', line])
    assert d.root.cause_id == cause, [(c.cause_id, c.confidence) for c in d.causes]


@pytest.mark.parametrize(
    ("cmake_code", "cause"),
    [
        (
            'message(FATAL_ERROR "GCC >= 99.1 is required to build vLLM (found ${CMAKE_CXX_COMPILER_VERSION}). '
            "PyTorch's C++20 headers require a compiler with full C++20 support. "
            'See: https://github.com/pytorch/pytorch/pull/167929")',
            "compiler_too_old",
        ),
        ('message(FATAL_ERROR "X86 backend requires gcc/g++ >= 99.3")', "compiler_too_old"),
        ('message(FATAL_ERROR "nvcc not found")', "cuda_toolkit_not_found"),
    ],
)
def test_vllm_configure_messages_through_real_cmake(tmp_path, cmake_code, cause):
    """vLLM 0.33.0's own configure errors (CMakeLists.txt and cmake/cpu_extension.cmake, read in its
    PyPI sdist), raised by real CMake with this machine's compiler and wrapped as CMake wraps them."""
    if shutil.which("cmake") is None:
        pytest.skip("no cmake on this machine")
    (tmp_path / "CMakeLists.txt").write_text(f"cmake_minimum_required(VERSION 3.18)\nproject(vllm CXX)\n{cmake_code}\n")
    p = subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")], capture_output=True, text=True)
    assert p.returncode != 0
    lines = (p.stdout + p.stderr).splitlines()
    d = _diag(lines)
    assert d.root.cause_id == cause, ("\n".join(lines), [(c.cause_id, c.confidence) for c in d.causes])


def test_legacy_launch_api_missing_from_the_runtime_is_an_old_nvcc():
    """The real libcudart of CUDA 13.0 exports cudaLaunchKernel but none of the legacy launch functions
    (cudaConfigureCall, cudaSetupArgument, cudaLaunch) that old nvcc's launch code calls: an extension
    missing one of them was compiled by an older toolkit than the runtime it runs with (batch 23 dev:
    fundamentalvision/Deformable-DETR#3, an op built with CUDA 9.0)."""
    lib = _libcudart()
    assert hasattr(lib, "cudaLaunchKernel")
    for legacy in ("cudaConfigureCall", "cudaSetupArgument", "cudaLaunch"):
        assert not hasattr(lib, legacy), legacy
        so = "/x/site-packages/MultiScaleDeformableAttention.cpython-38-x86_64-linux-gnu.so"
        d = _diag([f"ImportError: {so}: undefined symbol: {legacy}"])
        assert d.root.cause_id == "cuda_version_mismatch", (legacy, [(c.cause_id, c.confidence) for c in d.causes])
    name = "import-msda-undefined-cudasetupargument-cuda9.log"
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 23
    assert _diag(_lines(name)).root.cause_id == "cuda_version_mismatch"
    libaten = "import-pytorch-source-build-libaten-undefined-thnn-stale-build.log"
    assert ROWS[libaten]["split"] == "dev" and ROWS[libaten]["batch"] == 23
    assert _diag(_lines(libaten)).root.cause_id == "stale_build_dir"


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("import-torchvision-macos-avatarify-register-new-empty-tensor-op.log", "torch_extension_mismatch"),
        ("import-torchtext-07-old-torch-libtorch-cpu-so-missing.log", "torch_extension_mismatch"),
        ("msvc-softras-at-check-not-found-torch-1-7.log", "torch_api_removed"),
    ],
)
def test_batch27_dev_logs_name_their_cause(name, cause):
    """Batch 27 dev logs: torchvision's operator refused by an older torch, torchtext 0.7's extension
    wanting libtorch_cpu.so from a torch that has none, MSVC's C3861 for AT_CHECK in Chinese."""
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 27
    d = _diag(_lines(name))
    assert d.root.cause_id == cause, [(c.cause_id, c.confidence) for c in d.causes]


def _torch_lib_without(tmp_path: Path, lib: str) -> tuple[Path, Path]:
    """A fake torch/lib with libc10.so, and a module linked -lc10 -l<lib> (cpp_extension's order) against
    it; lib<lib>.so is removed afterwards, as a torch without that library would be. Returns (torch/lib,
    the module)."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ on this machine")
    torch_lib = tmp_path / "torch" / "lib"
    torch_lib.mkdir(parents=True)
    (tmp_path / "c10.cpp").write_text("int c10_f() { return 1; }\n")
    (tmp_path / "other.cpp").write_text("int other_f() { return 2; }\n")
    (tmp_path / "ext.cpp").write_text("int c10_f(); int other_f(); int ext() { return c10_f() + other_f(); }\n")
    for src, so in (("c10.cpp", "libc10.so"), ("other.cpp", f"lib{lib}.so")):
        subprocess.run(["g++", "-shared", "-fPIC", src, "-o", str(torch_lib / so)], cwd=tmp_path, check=True)
    ext = ["g++", "-shared", "-fPIC", "ext.cpp", f"-L{torch_lib}", "-lc10", f"-l{lib}", "-o", "_C.so"]
    subprocess.run(ext, cwd=tmp_path, check=True)
    (torch_lib / f"lib{lib}.so").unlink()
    return torch_lib, tmp_path / "_C.so"


def _load(module: Path, library_path: str) -> list[str]:
    """What Python's import machinery would say when the real glibc loader opens ``module`` with
    ``LD_LIBRARY_PATH=library_path`` (the OSError's text, as an ImportError line)."""
    code = (
        "import ctypes, sys\ntry:\n    ctypes.CDLL(sys.argv[1])\nexcept OSError as e:\n    print('ImportError:', e)\n"
    )
    env = {**os.environ, "LD_LIBRARY_PATH": library_path}
    out = subprocess.run([sys.executable, "-c", code, str(module)], capture_output=True, text=True, env=env)
    return out.stdout.splitlines()


def test_libtorch_cpu_missing_after_libc10_was_found_is_a_newer_build(tmp_path):
    """Real g++ and the glibc loader: a Python extension links -lc10 before -ltorch_cpu (as torch's
    cpp_extension does), and the loader reports the first library it cannot find. Loaded with no
    torch library directory on the path it reports libc10.so (an import before ``import torch``:
    the library path); with a torch directory that has libc10.so but no libtorch_cpu.so (torch before
    1.5) it reports libtorch_cpu.so: a module built for a newer torch."""
    torch_lib, module = _torch_lib_without(tmp_path, "torch_cpu")
    no_path = _load(module, "")
    assert "libc10.so" in no_path[0]
    assert _diag(no_path).root.cause_id == "shared_library_not_found"
    older = _load(module, str(torch_lib))
    assert "libtorch_cpu.so" in older[0]
    d = _diag(older)
    assert d.root.cause_id == "torch_extension_mismatch", (older, [(c.cause_id, c.confidence) for c in d.causes])
    assert d.causes[1].cause_id == "shared_library_not_found"
    # a torch of 1.5 or later printed in the log has libtorch_cpu.so: then it is the loader's path
    assert _diag(["torch 2.4.0", *older]).root.cause_id == "shared_library_not_found"


def test_batch28_dev_logs_name_their_cause():
    """Batch 28 dev logs: YOLOX's own compiled module missing after its JIT build found no cl.exe (the
    build blocker is the root, the ModuleNotFoundError its symptom), and torchcodec's operator with no
    kernel registered (torchcodec 0.3 on a torch 2.8 nightly)."""
    for name, cause in (
        ("jit-yolox-windows-fast-cocoeval-cl-not-found.log", "compiler_missing"),
        ("run-torchcodec03-torch28-nightly-notimplemented-create-from-file.log", "torch_extension_mismatch"),
    ):
        assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == 28
        d = _diag(_lines(name))
        assert d.root.cause_id == cause, (name, [(c.cause_id, c.confidence) for c in d.causes])
    # a missing distribution (no dot) next to the same warning stays a missing dependency
    d = _diag(
        [
            "UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file",
            "ModuleNotFoundError: No module named 'yaml'",
        ]
    )
    assert d.root.cause_id == "python_dependency_missing"
    # torch's own operators are not an extension's
    own = _diag(["NotImplementedError: ... but no fallback function is registered for schema aten::_foo."])
    assert own.root.cause_id != "torch_extension_mismatch"


def test_libc10_cuda_missing_after_libc10_was_found_is_a_cpu_only_torch(tmp_path):
    """Real g++ and the glibc loader (read after session 22's measurement: batch 27's held-out
    bharat-b7/RVH_Mesh_Registration#23): a module built for CUDA links -lc10 -lc10_cuda; with torch's
    library directory on the path but no libc10_cuda.so in it (a CPU-only torch) the loader reports
    libc10_cuda.so, and the answer is the CPU-only torch, the loader's path listed second."""
    torch_lib, module = _torch_lib_without(tmp_path, "c10_cuda")
    lines = _load(module, str(torch_lib))
    assert "libc10_cuda.so" in lines[0]
    d = _diag(lines)
    assert [c.cause_id for c in d.causes[:2]] == ["torch_cpu_only", "shared_library_not_found"], lines
    name = "import-rvh-pytorch3d-libc10-cuda-missing-cpu-torch.log"
    assert ROWS[name]["split"] == "holdout" and ROWS[name]["batch"] == 27
    assert _diag(_lines(name)).root.cause_id == "torch_cpu_only"


def test_windows_dll_load_failure_with_a_placeholder_module_name():
    """CPython's 'DLL load failed while importing %s' with the module name replaced by a placeholder in the
    paste (read after session 22's measurement: batch 23's held-out ComfyUI#12875, '<extension>') is still
    Windows' loader failing, as with a real module name."""
    for module in ("<extension>", "_C", "custom_rasterizer_kernel"):
        d = _diag([f"ImportError: DLL load failed while importing {module}: The specified module could not be found."])
        assert d.root.cause_id == "shared_library_not_found", (module, [(c.cause_id, c.confidence) for c in d.causes])


def test_apex_cuda_check_cut_in_the_paste():
    """apex's CUDA check with its line cut after "the version used" (read after session 22's measurement:
    batch 23's held-out pytorch/pytorch#40563, nvcc 11.0 against torch for CUDA 10.2) is still the CUDA
    mismatch; the whole line with "Cuda None" stays a CPU-only torch."""
    cut = (
        "    RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the "
        "version used"
    )
    assert _diag([cut]).root.cause_id == "cuda_version_mismatch"
    none = cut.strip() + " to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda None."
    assert _diag([none]).root.cause_id == "torch_cpu_only"
