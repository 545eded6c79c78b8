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
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import assert_named_by, diagnose_text, named_below_sure, real_nvcc, run_tool


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
    ("name", "cause", "signature"),
    [
        (
            "import-numba-0.56-numpy-1.25-internal-systemerror-freebsd.log",
            "dependency_version_conflict",
            "numba-internal-init-failed-numpy",
        ),
        (
            "import-numba-internal-systemerror-numpy-downgrade-3d-diffusion-policy.log",
            "dependency_version_conflict",
            "numba-internal-init-failed-numpy",
        ),
        (
            "link-gpubootcamp-md-challenge-nvlink-cudadevrt-newer-than-toolkit.log",
            "cuda_version_mismatch",
            "nvlink-input-newer-than-toolkit",
        ),
        (
            "import-torch-sparse-convert-pyd-wheel-not-matching-torch.log",
            "torch_extension_mismatch",
            "windows-ctypes-domain-library-not-loaded",
        ),
        ("nvcc-meta-tegra-cicc-not-found-nvvm-not-installed.log", "cuda_toolkit_incomplete", "nvcc-cicc-not-found"),
        ("rocm-rocblas-640-no-tensilelibrary-gfx906.log", "no_kernel_image", "rocblas-no-tensile-library-for-gpu"),
        (
            "import-torch-rocm-wheel-rocshmem-could-not-open-libnuma.log",
            "shared_library_not_found",
            "rocshmem-could-not-open-library",
        ),
        ("make-bladebit-numa-h-missing-centos.log", "system_library_missing", "system-library-header-missing"),
    ],
)
def test_dev_logs_named(name: str, cause: str, signature: str) -> None:
    """The session's dev logs these rows were written from name their thread's cause through the new row."""
    assert_named_by(name, "dev", cause, signature)


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
