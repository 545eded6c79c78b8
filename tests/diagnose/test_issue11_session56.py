"""Issue 11, session 56: rows written, before the session's measurement, from the dev logs of its blind batches
(1106 on) that the start's code (76e6602) missed or named wrongly.

* autoconf's "configure: error: An implementation of BLAS is required but none was found." (faiss's configure, run
  by graphvite's CMake, DeepGraphLearning/graphvite#26): no BLAS library, the configure-script form of CMake's
  "Could NOT find BLAS".  No autoconf runs here, so the test reads the recorded log.
* pydensecrf's eigen.cpp missing (lucasb-eyer/pydensecrf#78): setup.py generates it from eigen.pyx with Cython, so a
  compiler finding no such file means Cython was not installed.  The test runs the real gcc on the missing file.
* Windows' "DLL load failed ...: A dynamic link library (DLL) initialization routine failed." (ERROR_DLL_INIT_FAILED)
  is a DLL that was found and whose start-up code failed (an old MSVC runtime in a conda environment,
  microsoft/onnxruntime-genai#642, lazydog28/mc_auto_boss#205), not a missing DLL: the missing-DLL row no longer
  reads it.  These are Windows loader messages; no Windows machine runs here, so the tests read the text recorded
  in the threads.
* numba's "SystemError: initialization of _internal failed without raising an exception": numba's compiled module
  under a NumPy its release does not support (numba/numba#9130, YanjieZe/3D-Diffusion-Policy#123).  Installing an
  old numba with a newer NumPy needs packages this suite does not install, so the tests read the recorded logs.
* nvlink's "Input file '...libcudadevrt.a:cuda_device_runtime.o' newer than toolkit (112 vs 110)": the link mixes two
  CUDA installs (openhackathons-org/gpubootcamp#55).  Only one CUDA is installed here: the recorded log.
* PyG's "Could not find module '...torch_sparse\\_convert.pyd' (or one of its dependencies)": a torch_sparse wheel
  built for another torch (pyg-team/pytorch_geometric#1994), as the row already said for torchvision and torchaudio.
  Windows only: the recorded log.
* "sh: 1: <toolkit>/bin/../nvvm/bin/cicc: not found": nvcc's toolkit has no nvvm folder (OE4T/meta-tegra#18).  The
  test runs the real nvcc from a toolkit folder built of links to the installed one, without nvvm.
* rocBLAS's "Cannot read .../TensileLibrary.dat: No such file or directory for GPU arch : gfx906": a rocBLAS built
  without the GPU's architecture (ROCm/legacy-rocm-build#4625, pytorch/pytorch#96964).  No ROCm GPU here: the
  recorded logs.
* A compiler line that a terminal broke at a space and padded ("numa.h: No such file or          directory",
  Chia-Network/bladebit#15) is matched joined with one space too; before, only the padding's removal was tried.  The
  test pads the real gcc's message the same way.
* rocSHMEM's "Could not open libnuma" (pytorch/pytorch#195672): the ROCm wheel's rocSHMEM loads a libnuma.so the system
  lacks.  No ROCm here: the recorded log.

After round A's measurement (held-out logs of batches 1106-1137, then read):

* ldd's "libfaiss.so => not found" lines under an import error (facebookresearch/faiss#2063): the library is not
  found by the loader; and SWIG's generated module (_swigfaiss) counts as a compiled part, so "cannot import name
  '_swigfaiss' from 'faiss'" is no longer read as a version conflict.  The ldd test runs the real ldd on a library
  whose dependency was removed.
* rocBLAS 5.4's "Cannot read .../TensileLibrary.dat: Illegal seek" (ROCm/rocBLAS#1339): the same missing library.
* A header in a lib*/ folder ("libnotify/notify.h", tryphotino/photino.Native#82): a system library's development
  package.  The test runs the real gcc.
* nvcc's "error in open: /usr/bin/../nvvm/libdevice/libdevice.10.bc" (negativo17/cuda#9): a toolkit without the
  libdevice its nvcc.profile names.  The installed nvcc 13.0 compiles without opening libdevice (tried here: a toolkit
  folder without nvvm/libdevice still compiles erfinvf), so the test reads the recorded log.
* nvidia-docker's "unsupported CUDA version: driver 7.0 < image 7.5" (NVIDIA/nvidia-docker#106): the driver is older
  than the image's CUDA.  The recorded log.

After round B's measurement (batches 1138-1149):

* CMake's "Could not find a package configuration file provided by "pybind11"" (metadriverse/metaurban#20):
  pybind11 is not installed.  The test runs the real CMake.
* "'...\\vcvarsall.bat"' is not recognized as an internal or external command" (gusztavvargadr/packer#360): Visual
  Studio without its C++ workload.  Windows only: the recorded log.
* "No module named 'custom_conv'" in a log where torch's extension builder's "which g++" failed (teboli/CPCR#3): the
  module is an extension never built for want of a compiler (rule in decisions/diagnose_rules_runtime.py).  The test
  runs the real Python and the real which.

After the log-only reading (held-out logs the reader named right and diagnose did not):

* GCC's "dereferencing pointer to incomplete type 'THTensor ...'" pasted without its "error:" prefix
  (longcw/RoIAlign.pytorch#11): "incomplete type" is a gate word, so the removed-TH row reads it.  GCC 12 words the
  error differently ("invalid use of undefined type"), so the test reads the recorded log.
* GCC's "could not convert 'torch::CUDA(...)' from 'at::TypeExtendedInterface' to 'c10::IntList'"
  (idealwei/SuperPixelPool.pytorch#1): torch 0.4's at::zeros(type, sizes) under torch 1.0.  No torch 1.0 here: the
  recorded log.
* setuptools' bare "error: [Errno 13] Permission denied" (DirtyHarryLYL/HAKE-Action-Torch#61).  The recorded log.

After round C's measurement (batches 1150-1161): kmcuda's "compute capability mismatch for device 0: wanted 6.1, have
3.7" (src-d/kmcuda#13): built for another GPU.  No GPU here: the recorded log.

From the whole corpus after the measurements (seen logs that diagnose left unknown, each with its thread's answer):
"CUDA_ERROR: no kernel image is available for execution." without "on the device" (mit-han-lab/bevfusion#12);
torchrec's "File fbgemm_gpu_py.so not found" (meta-pytorch/torchrec#557, facebookresearch/dlrm#256); torbi's "Could
not find any lib files matching version pt211cu130" (maxrmorrison/torbi#9); cuda-python's 'Function "cuInit" not
found' on WSL2 (numba/numba#7104); NGC's "This container was built for NVIDIA Driver Release 535.86 or later"
(NVIDIA/TensorRT-LLM#23); ccache's 'Could not find compiler "nvcc" in PATH' (pytorch/pytorch#56710, real ccache test);
KeOps' "compiled without cuda support" (getkeops/keops#61); detrex's "Cannot import 'detrex._C'" (Visual-AI/Mr.DETR#2,
IDEA-Research/detrex#98).  GPU, driver, container and Windows-only messages: the recorded logs.

Last, a rule for one of round A's confidently wrong logs: torch's own "from torch._C import *" failing with a bare
"numpy.core.multiarray failed to import" and no NumPy version message is NumPy not installed (torch 0.1.12,
pytorch/pytorch#1755; torch 1.4.0, pytorch/pytorch#32291), not NumPy's ABI.  The NumPy row now also reads NumPy 2's
"numpy._core.multiarray".  The test builds a real extension module named torch._C against the installed NumPy 2's
headers and imports it where NumPy cannot be imported.  And two held-out logs the reader named and diagnose did
not: the loader's "version `GLIBC_ABI_DT_RELR' not found" (HuguesTHOMAS/KPConv-PyTorch#250: an extension built on a
newer distribution; the test links with GNU ld's packed relative relocations and reads the version it needs), and GN's
"ERROR at //third_party/<lib>/BUILD.gn:31:1: Source file not found." (project-chip/connectedhomeip#24477).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from .conftest import (
    assert_named_by,
    build_python_module,
    causes_of,
    cmake_configure_fails,
    diagnose_text,
    named_below_sure,
    real_nvcc,
    run_tool,
)


def test_autoconf_blas_missing_is_blas_not_found() -> None:
    """The recorded graphvite log (faiss's configure probing sgemm_ in every BLAS, then giving up) names
    blas_not_found through the BLAS row, not the make lines under it."""
    d = assert_named_by(
        "cmake-graphvite-vendored-faiss-configure-blas-not-found.log", "dev", "blas_not_found", "blas-not-found"
    )
    assert any("configure: error: An implementation of BLAS" in e.text for e in d.root.evidence)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_pydensecrf_cpp_not_generated_is_cython_missing(tmp_path: Path) -> None:
    """The real gcc compiling pydensecrf/eigen.cpp that Cython never wrote: Cython is missing (0.6, one thread);
    the same gcc message for another project's missing .cpp stays without this cause."""
    (tmp_path / "pydensecrf").mkdir()
    out = run_tool(["gcc", "-c", "pydensecrf/eigen.cpp", "-o", "eigen.o"], cwd=tmp_path)
    assert out.returncode != 0 and "pydensecrf/eigen.cpp: No such file or directory" in out.stderr
    named_below_sure(out.stderr, "python_dependency_missing", "pydensecrf-cpp-not-generated")
    (tmp_path / "other").mkdir()
    other = run_tool(["gcc", "-c", "other/eigen.cpp", "-o", "eigen.o"], cwd=tmp_path)
    assert "other/eigen.cpp: No such file or directory" in other.stderr
    assert diagnose_text(other.stderr).root.signature != "pydensecrf-cpp-not-generated"


@pytest.mark.parametrize(
    "name",
    [
        "import-onnxruntime-genai-directml-conda-dll-init-failed.log",
        "import-onnxruntime-conda-windows-dll-init-failed.log",
        "import-onnxruntime-genai-directml-conda-dll-init-failed-msvc-runtime.log",
    ],
)
def test_dll_initialization_failed_is_not_a_missing_dll(name: str) -> None:
    """The recorded English and Chinese ERROR_DLL_INIT_FAILED logs (labelled unknown: an old MSVC runtime, which no
    listed cause covers) are no longer read as a missing DLL."""
    assert_named_by(name, "dev", "unknown", None)


@pytest.mark.parametrize(
    "line",
    [
        "ImportError: DLL load failed while importing _C: The specified module could not be found.",
        "ImportError: DLL load failed while importing onnxruntime_pybind11_state: 找不到指定的模块。",
    ],
)
def test_missing_dll_still_named(line: str) -> None:
    """Windows' ERROR_MOD_NOT_FOUND texts (English, Chinese) still name a shared library not found (English through
    the English row, the others through the row for any language)."""
    root = diagnose_text(line).root
    assert root.cause_id == "shared_library_not_found"
    assert root.signature is not None and root.signature.startswith("windows-dll-import-failed")


@pytest.mark.parametrize(
    ("name", "split", "cause", "signature"),
    [
        (
            "import-numba-0.56-numpy-1.25-internal-systemerror-freebsd.log",
            "dev",
            "dependency_version_conflict",
            "numba-internal-init-failed-numpy",
        ),
        (
            "import-numba-internal-systemerror-numpy-downgrade-3d-diffusion-policy.log",
            "dev",
            "dependency_version_conflict",
            "numba-internal-init-failed-numpy",
        ),
        (
            "link-gpubootcamp-md-challenge-nvlink-cudadevrt-newer-than-toolkit.log",
            "dev",
            "cuda_version_mismatch",
            "nvlink-input-newer-than-toolkit",
        ),
        (
            "import-torch-sparse-convert-pyd-wheel-not-matching-torch.log",
            "dev",
            "torch_extension_mismatch",
            "windows-ctypes-domain-library-not-loaded",
        ),
        (
            "nvcc-meta-tegra-cicc-not-found-nvvm-not-installed.log",
            "dev",
            "cuda_toolkit_incomplete",
            "nvcc-cicc-not-found",
        ),
        (
            "rocm-rocblas-640-no-tensilelibrary-gfx906.log",
            "dev",
            "no_kernel_image",
            "rocblas-no-tensile-library-for-gpu",
        ),
        (
            "import-torch-rocm-wheel-rocshmem-could-not-open-libnuma.log",
            "dev",
            "shared_library_not_found",
            "rocshmem-could-not-open-library",
        ),
        ("make-bladebit-numa-h-missing-centos.log", "dev", "system_library_missing", "system-library-header-missing"),
        (
            "import-faiss-source-build-shared-libs-rpath-build-dir.log",
            "holdout",
            "shared_library_not_found",
            "ldd-library-not-found",
        ),
        (
            "rocm-roop-rocblas-tensilelibrary-illegal-seek-gfx1031.log",
            "holdout",
            "no_kernel_image",
            "rocblas-no-tensile-library-for-gpu",
        ),
        (
            "nvcc-negativo17-cuda-libdevice-wrong-nvcc-profile.log",
            "holdout",
            "cuda_toolkit_incomplete",
            "nvcc-libdevice-file-missing",
        ),
        (
            "runtime-nvidia-docker-uvm-then-driver-older-than-image-cuda.log",
            "holdout",
            "cuda_driver_too_old",
            "nvidia-docker-driver-older-than-image",
        ),
        (
            "env-packer-windows-box-vcvarsall-bat-missing-no-cpp-workload.log",
            "holdout",
            "compiler_missing",
            "vcvarsall-not-found",
        ),
        (
            "runtime-kmcuda-pip-binary-built-for-sm61-on-k80-sm37.log",
            "holdout",
            "no_kernel_image",
            "kmcuda-compute-capability-mismatch",
        ),
        ("ffi-roialign-torch041-thtensor-incomplete-type.log", "holdout", "torch_api_removed", "thc-removed"),
        (
            "setuptools-superpixelpool-torch10-at-zeros-old-signature.log",
            "holdout",
            "torch_api_removed",
            "old-aten-type-api",
        ),
        (
            "setuptools-hake-alphapose-build-develop-egg-info-errno13.log",
            "holdout",
            "permission_denied",
            "errno13-permission-denied",
        ),
        (
            "make-photino-native-linux-libnotify-notify-h-missing.log",
            "holdout",
            "system_library_missing",
            "system-library-header-missing",
        ),
        ("run-bevfusion-bev-pool-no-kernel-image-v100-sm70.log", "dev", "no_kernel_image", "no-kernel-image"),
        (
            "import-torchrec-nightly-on-stable-torch-1.12-fbgemm-gpu-py-not-found.log",
            "holdout",
            "torch_extension_mismatch",
            "fbgemm-gpu-library-not-loaded",
        ),
        (
            "import-torchrec-dlrm-fbgemm-gpu-py-so-not-found-torchx.log",
            "dev",
            "torch_extension_mismatch",
            "fbgemm-gpu-library-not-loaded",
        ),
        (
            "import-torbi-no-prebuilt-binary-for-pt211cu130.log",
            "holdout",
            "torch_extension_mismatch",
            "torbi-no-binary-for-this-torch",
        ),
        (
            "import-cudf-wsl2-cuinit-not-found-libcuda-path.log",
            "holdout",
            "shared_library_not_found",
            "cuda-python-driver-function-not-found",
        ),
        (
            "driver-tensorrt-llm-container-needs-535-driver.log",
            "holdout",
            "cuda_driver_too_old",
            "ngc-container-driver-too-old",
        ),
        (
            "source-pytorch-nvcc-not-in-path-use-cuda.log",
            "holdout",
            "cuda_toolkit_not_found",
            "ccache-nvcc-not-in-path",
        ),
        (
            "runtime-pykeops-compiled-without-cuda-conda-nvcc-only.log",
            "dev",
            "cuda_toolkit_not_found",
            "keops-built-without-cuda",
        ),
        ("import-mrdetr-detrex-c-msda-not-available.log", "holdout", "cuda_toolkit_not_found", "detrex-c-not-compiled"),
        (
            "detr-detrex-dino-import-c-msda-not-available.log",
            "holdout",
            "cuda_toolkit_not_found",
            "detrex-c-not-compiled",
        ),
        (
            "import-torch-1.4.0-numpy-not-declared-multiarray-failed.log",
            "dev",
            "python_dependency_missing",
            "reason:python_dependency_missing",
        ),
        (
            "import-torch-pip-wheel-macos-numpy-missing-multiarray-failed.log",
            "holdout",
            "python_dependency_missing",
            "reason:python_dependency_missing",
        ),
        ("import-kpconv-glibc-abi-dt-relr-copied-extension.log", "holdout", "libc_too_old", "glibc-not-found"),
        (
            "gn-connectedhomeip-libwebsockets-submodule-not-pulled.log",
            "holdout",
            "submodule_missing",
            "third-party-path-not-found",
        ),
    ],
)
def test_logs_named_by_the_new_rows(name: str, split: str, cause: str, signature: str) -> None:
    """The corpus logs the session's rows were written from name their thread's cause through the new row: the dev
    logs of the blind batches (rows written before the measurement), the held-out logs read after their round's
    measurement or the reader's answers, and seen logs of the whole corpus that diagnose had left unknown."""
    assert_named_by(name, split, cause, signature)


def test_nvlink_newer_than_toolkit_names_both_versions() -> None:
    """The wrapped nvlink message (its path on a line of its own) still gives both toolkit versions."""
    path = "/opt/nvidia/hpc_sdk/Linux_x86_64/21.3/cuda/11.2/lib64/libcudadevrt.a:cuda_device_runtime.o"
    root = diagnose_text(f"nvcc  nvlink fatal  : Input file\n'{path}' newer than toolkit (112 vs 110)").root
    assert root.cause_id == "cuda_version_mismatch" and root.line == 2
    assert "(CUDA 110)" in root.explanation and "(112)" in root.explanation


def _toolkit_dir(nvcc: str, tmp_path: Path) -> Path:
    """The installed toolkit's root, as nvcc itself reports it (``#$ _HERE_=<root>/bin`` in its dry run; the nvcc on
    PATH may be a wrapper script)."""
    (tmp_path / "probe.cu").write_text("__global__ void k() {}\n")
    dry = run_tool([nvcc, "-dryrun", "-c", "probe.cu", "-o", "probe.o"], cwd=tmp_path)
    here = [ln.split("=", 1)[1] for ln in dry.stderr.splitlines() if ln.startswith("#$ _HERE_=")]
    assert here, dry.stderr
    return Path(here[0]).parent


def test_real_nvcc_without_nvvm_is_toolkit_incomplete(tmp_path: Path) -> None:
    """The real nvcc, run from a toolkit folder whose bin/, include/, lib64/ and targets/ link to the installed
    toolkit's but which has no nvvm/: it cannot run cicc, and diagnose names the incomplete toolkit."""
    root = _toolkit_dir(real_nvcc(), tmp_path)
    kit = tmp_path / "cuda"
    (kit / "bin").mkdir(parents=True)
    for entry in (root / "bin").iterdir():
        (kit / "bin" / entry.name).symlink_to(entry)
    for name in ("include", "lib64", "targets"):
        if (root / name).exists():
            (kit / name).symlink_to(root / name)
    (tmp_path / "a.cu").write_text("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    out = run_tool([str(kit / "bin" / "nvcc"), "-c", "a.cu", "-o", "a.o"], cwd=tmp_path)
    assert out.returncode != 0 and "nvvm/bin/cicc: not found" in out.stderr, out.stderr
    named_below_sure(out.stderr, "cuda_toolkit_incomplete", "nvcc-cicc-not-found")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_padded_wrap_at_a_space_is_joined_with_a_space(tmp_path: Path) -> None:
    """The real gcc's missing-header error, broken by a terminal at the space before "directory" and padded: the
    header row still names the missing system library, as for the unbroken line."""
    (tmp_path / "a.c").write_text("#include <sndfile.h>\nint main(void) { return 0; }\n")
    out = run_tool(["gcc", "-I", str(tmp_path / "inc"), "-c", "a.c", "-o", "a.o"], cwd=tmp_path)
    line = next(ln for ln in out.stderr.splitlines() if "sndfile.h: No such file or directory" in ln)
    assert diagnose_text(line).root.cause_id == "system_library_missing"
    padded = line.replace("or directory", "or" + " " * 15 + "directory")
    root = diagnose_text(padded).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "system-library-header-missing")


def test_swig_module_is_a_compiled_part() -> None:
    """ "cannot import name '_swigfaiss' from 'faiss'" alone is no version conflict (SWIG's module is compiled), while
    a Python name missing from a package still is one."""
    swig = diagnose_text("ImportError: cannot import name '_swigfaiss' from 'faiss' (/env/faiss/__init__.py)").root
    assert swig.cause_id != "dependency_version_conflict"
    name = diagnose_text(
        "ImportError: cannot import name 'soft_unicode' from 'markupsafe' (/env/markupsafe/__init__.py)"
    )
    assert name.root.cause_id == "dependency_version_conflict"


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("ldd") is None, reason="needs gcc and ldd")
def test_real_ldd_not_found_line(tmp_path: Path) -> None:
    """The real ldd on a shared library whose needed library was removed after linking prints "libdep.so => not
    found"; diagnose names the library as not found."""
    (tmp_path / "dep.c").write_text("int dep(void) { return 1; }\n")
    (tmp_path / "mod.c").write_text("int dep(void);\nint mod(void) { return dep(); }\n")
    for cmd in (
        ["gcc", "-shared", "-fPIC", "dep.c", "-o", "libdep.so"],
        ["gcc", "-shared", "-fPIC", "mod.c", "-L.", "-ldep", "-o", "libmod.so"],
    ):
        assert run_tool(cmd, cwd=tmp_path).returncode == 0
    (tmp_path / "libdep.so").unlink()
    out = run_tool(["ldd", str(tmp_path / "libmod.so")], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert "libdep.so => not found" in out.stdout, out.stdout
    root = diagnose_text(out.stdout).root
    assert (root.cause_id, root.signature) == ("shared_library_not_found", "ldd-library-not-found")
    assert "libdep.so" in root.explanation


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_real_gcc_header_in_a_lib_folder(tmp_path: Path) -> None:
    """The real gcc missing a header in a lib*/ folder (a name no system package here ships): a system library's
    development package is missing."""
    (tmp_path / "a.c").write_text("#include <libtorchbuildnone/none.h>\nint main(void) { return 0; }\n")
    out = run_tool(["gcc", "-c", "a.c", "-o", "a.o"], cwd=tmp_path)
    assert "libtorchbuildnone/none.h: No such file or directory" in out.stderr, out.stderr
    root = diagnose_text(out.stderr).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "system-library-header-missing")


def test_real_cmake_without_pybind11(tmp_path: Path) -> None:
    """The real CMake's find_package(pybind11 CONFIG REQUIRED) where no pybind11 is installed for CMake (an empty
    prefix path, no pybind11_DIR): pybind11 is a missing Python dependency."""
    lines = cmake_configure_fails(
        tmp_path,
        "proj",
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nfind_package(pybind11 REQUIRED)\n",
        f"-DCMAKE_PREFIX_PATH={tmp_path / 'empty'}",
        "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert any('provided by "pybind11"' in ln for ln in lines), lines
    root = diagnose_text("\n".join(lines)).root
    assert (root.cause_id, root.signature) == ("python_dependency_missing", "cmake-pybind11-config-not-found")


def test_real_missing_module_then_which_gxx_failure(tmp_path: Path) -> None:
    """The real Python failing to import a package's own extension module, then the real which (the only program on
    PATH) failing to find g++ the way torch's old extension builder called it: the compiler goes first."""
    which = shutil.which("which")
    if which is None:
        pytest.skip("needs which")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "which").symlink_to(which)
    script = (
        "import subprocess, traceback\n"
        "try:\n    import custom_conv_torchbuild_test\nexcept ImportError:\n    traceback.print_exc()\n"
        "subprocess.check_output(['which', 'g++'], stderr=subprocess.STDOUT)\n"
    )
    out = run_tool([sys.executable, "-c", script], env={"PATH": str(tmp_path / "bin")})
    assert "No module named 'custom_conv_torchbuild_test'" in out.stderr, out.stderr
    assert "Command '['which', 'g++']' returned non-zero exit status 1" in out.stderr, out.stderr
    d = diagnose_text(out.stderr)
    assert [c for c, _ in causes_of(d)][:2] == ["compiler_missing", "python_dependency_missing"], causes_of(d)


def test_real_ccache_without_nvcc(tmp_path: Path) -> None:
    """The real ccache asked to run nvcc on a PATH without one: no CUDA toolkit on PATH."""
    ccache = shutil.which("ccache")
    if ccache is None:
        pytest.skip("needs ccache")
    out = run_tool([ccache, "nvcc", "--version"], cwd=tmp_path, env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert 'Could not find compiler "nvcc" in PATH' in out.stderr, out.stderr
    root = diagnose_text(out.stderr).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_not_found", "ccache-nvcc-not-in-path")


def test_real_torch_c_without_numpy(tmp_path: Path) -> None:
    """A real extension module, torch/_C, that imports NumPy's C API (import_array, built with the installed NumPy's
    headers and the real gcc), imported by a torch/__init__.py doing ``from torch._C import *`` in a Python that
    cannot import NumPy (-S: no site-packages).  NumPy 2.4's headers print "No module named 'numpy'" above the
    traceback, which names the missing NumPy by itself; the two threads' torch releases printed only the traceback
    ending in "multiarray failed to import", and without that first line the rule names the missing NumPy first, the
    NumPy ABI second.  With a NumPy version message above it (the text NumPy 1.x prints, as in the corpus), the ABI
    reading stays first."""
    numpy = pytest.importorskip("numpy")
    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from torch._C import *\n")
    build_python_module(
        pkg,
        "_C",
        "#include <Python.h>\n#include <numpy/arrayobject.h>\n"
        'static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};\n'
        "PyMODINIT_FUNC PyInit__C(void) { import_array(); return PyModule_Create(&m); }\n",
        include_dirs=[numpy.get_include()],
    )
    out = run_tool([sys.executable, "-S", "-c", "import torch"], env={"PYTHONPATH": str(tmp_path)})
    assert "from torch._C import *" in out.stderr and "multiarray failed to import" in out.stderr, out.stderr
    assert out.stderr.startswith("ModuleNotFoundError: No module named 'numpy'"), out.stderr
    assert diagnose_text(out.stderr).root.cause_id == "python_dependency_missing"
    traceback = out.stderr.split("\n", 1)[1]
    d = diagnose_text(traceback)
    assert [c for c, _ in causes_of(d)][:2] == ["python_dependency_missing", "numpy_abi_mismatch"], causes_of(d)
    version = "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd\n"
    assert diagnose_text(version + traceback).root.cause_id == "numpy_abi_mismatch"


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("readelf") is None, reason="needs gcc and readelf")
def test_packed_relocations_need_glibc_abi_dt_relr(tmp_path: Path) -> None:
    """What the GLIBC_ABI_DT_RELR reading rests on: the real GNU ld, asked for packed relative relocations, makes the
    program need glibc's GLIBC_ABI_DT_RELR version (readelf -V), which an older glibc lacks; the loader's message for
    it names libc_too_old."""
    (tmp_path / "m.c").write_text('#include <stdio.h>\nconst char *s[] = {"a", "b"};\nint main(void) { puts(s[1]); }\n')
    built = run_tool(["gcc", "-pie", "-fPIE", "-Wl,-z,pack-relative-relocs", "m.c", "-o", "m"], cwd=tmp_path)
    if built.returncode != 0:
        pytest.skip(f"this GNU ld has no -z pack-relative-relocs: {built.stderr.strip()}")
    needs = run_tool(["readelf", "-V", str(tmp_path / "m")]).stdout
    assert "Name: GLIBC_ABI_DT_RELR" in needs, needs
    line = "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_ABI_DT_RELR' not found (required by ./m)"
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == ("libc_too_old", "glibc-not-found")
    assert "2.36" in root.explanation
