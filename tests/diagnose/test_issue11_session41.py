"""Issue 11, session 41: rows written from round A's dev logs (batches 547 and later), before its measurement.

* torch's extension builder reading an arch-specific name (sm_90a) of torch.cuda.get_arch_list() as an integer
  ("invalid literal for int() with base 10: '90a'"): the arch unknown to torch's extension builder;
* a dependency's setup.py refusing this Python ("RuntimeError: Python version >= 3.7 required.", numpy's check,
  fetched by setup_requires): a dependency release that does not fit the environment;
* a project's CMake refusing the cuDNN it found ("cuDNN version >= 8 is not yet supported."): cuDNN unusable;
* CMake's "Could NOT find NCCL (missing: ...)": a library missing (the find-module catch-all no longer leaves NCCL out);
* an extension's own "error in <kernel>: invalid device function": no kernel for this GPU;
* a cuBLAS/cuBLASLt/cuSPARSE/cuSOLVER/cuFFT/cuRAND name the toolkit's headers do not declare (g++'s and nvcc's
  wordings, both run here): a CUDA toolkit older than the code;
* CMake's config-mode "package configuration file provided by "X"" for a package no other row owns: a library
  missing (the real cmake's message too);
* setuptools' "building 'X' extension" is a package build, so distutils' "[WinError 2]" after it is the compiler
  that could not be started.

After round A's measurement, from its held-out misses (listed as such in the rows' sources): pip's own line under
the PEP 668 refusal, a quoted nvcc path cut before "No such file", a program's own "Error: invalid device function",
crypt.h, pycocotools' _mask.c that Cython writes, and "two conflicting CUDA installs" of one version.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import assert_dev_log, diagnose_text, named_below_sure, run_tool


def test_arch_specific_name_read_as_an_integer_is_an_arch_torch_cannot_read(tmp_path: Path):
    """pytorch/pytorch#144037 (batch 550 dev): on a GH200 the aarch64 CUDA wheel lists sm_90a, and torch 2.6's
    _get_cuda_arch_flags parses every sm_ name as an int.  The same comprehension, run here by the real Python with
    that arch list, prints the same ValueError (and '100a' for Blackwell's arch-specific name)."""
    script = tmp_path / "arch.py"
    script.write_text(
        "import sys\n"
        "arch_list = ['sm_80', sys.argv[1]]\n"
        "supported_sm = [int(arch.split('_')[1])\n"
        "                for arch in arch_list if 'sm_' in arch]\n"
    )
    for arch in ("sm_90a", "sm_100a"):
        p = subprocess.run([sys.executable, str(script), arch], capture_output=True, text=True, check=False)
        assert p.returncode == 1 and "invalid literal for int()" in p.stderr
        root = diagnose_text(p.stderr).root
        assert (root.cause_id, root.signature) == ("arch_unknown_to_torch", "cpp-extension-arch-suffix-int-parse")
        assert arch in root.explanation and "TORCH_CUDA_ARCH_LIST" in root.fix
    assert_dev_log("ext-pytorch-gh200-arch-90a-int-parse.log", 550, "arch_unknown_to_torch", 0.55)


def test_an_integer_that_is_no_arch_is_not_read_as_one():
    """The row reads an arch-shaped value only: a plain word or a number with another suffix is another failure."""
    for line in (
        "ValueError: invalid literal for int() with base 10: 'abc'",
        "ValueError: invalid literal for int() with base 10: '12px'",
    ):
        assert diagnose_text(line).root.cause_id != "arch_unknown_to_torch", line


def test_a_dependency_setup_py_refusing_this_python_is_a_version_conflict():
    """cocodataset/cocoapi#468 (batch 548 dev): pycocotools' setup_requires fetched numpy 1.20.0rc1 on Python 3.6,
    and numpy's setup.py stopped with its own check.  Below the sure bar: one thread."""
    root = named_below_sure(
        """
        File "/tmp/easy_install-i3fx38y0/numpy-1.20.0rc1/setup.py", line 30, in <module>
        RuntimeError: Python version >= 3.7 required.
        """,
        "dependency_version_conflict",
        "setup-py-python-version-required",
    )
    assert "3.7" in root.explanation
    assert_dev_log("pip-pycocotools-py36-setup-requires-numpy-rc.log", 548, "dependency_version_conflict", 0.5)


def test_a_project_cmake_refusing_a_newer_cudnn_is_cudnn_unusable():
    """gnina/gnina#133 (batch 559 dev): the bundled Caffe's CMake found cuDNN 8.3.1 and stopped with its own message;
    the maintainer said the cuDNN 8 API is not supported yet (use cuDNN 7).  The found version is in the explanation."""
    d = assert_dev_log("build-gnina-cmake-cudnn8-not-supported.log", 559, "cudnn_unusable", 0.6)
    assert d.root.signature == "cmake-cudnn-version-not-yet-supported"
    assert "cuDNN 8" in d.root.explanation and "CUDNN" in d.root.fix


def test_cmake_not_finding_nccl_is_a_library_missing():
    """NVIDIA/FasterTransformer#676 (batch 560 dev): FindNCCL.cmake found no NCCL headers or library (only the NCCL
    inside torch's wheel was installed); the answer was to point NCCL_INCLUDE_DIR / NCCL_LIB_DIR at an NCCL install.
    The catch-all row for find modules no longer leaves NCCL out (no other row names it)."""
    d = assert_dev_log("build-fastertransformer-cmake-could-not-find-nccl.log", 560, "system_library_missing", 0.55)
    assert d.root.signature == "cmake-could-not-find-any-package" and "NCCL" in d.root.explanation


def test_an_extension_printing_invalid_device_function_after_its_kernel_name_has_no_kernel_for_the_gpu():
    """NVIDIA/flownet2-pytorch#33 (batch 572 dev): the correlation kernel was compiled only for the -arch hard-coded in
    make.sh; its own check printed the runtime's string after the kernel's name, in the middle of a progress bar."""
    d = assert_dev_log("runtime-flownet2-correlation-invalid-device-function.log", 572, "no_kernel_image", 0.55)
    assert d.root.signature == "thc-invalid-device-function"
    root = diagnose_text("error in modulated_deformable_im2col_cuda: invalid device function").root
    assert root.cause_id == "no_kernel_image" and root.confidence < 0.7


def test_a_cuda_math_library_name_the_toolkit_lacks_is_a_toolkit_too_old(tmp_path: Path):
    """NVIDIA/FasterTransformer#556 (batch 574 dev): CUDA 11.3's cublasLt lacks
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST.  The real g++ and the real nvcc (CUDA 13.0's, whose minimal
    toolkit here has no math-library headers at all) print their wordings of a name nothing declares.  g++'s is read
    as the toolkit older than the code, below the sure bar; nvcc's, since session 52, as unknown with that reading
    second (of the seen logs with nvcc's wording, 6 of 8 were labelled unknown: names removed by a newer CUDA).  A
    name of another library is not."""
    src = tmp_path / "a.cpp"
    src.write_text(
        "int f() { return (int)CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST + cusparseCsrSetStridedBatch(0); }\n"
    )
    gxx = shutil.which("g++")
    assert gxx, "g++ is part of this project's machine"
    out = run_tool([gxx, "-c", str(src), "-o", str(tmp_path / "a.o")])
    assert "was not declared in this scope" in out.stderr
    root = diagnose_text(out.stderr).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_too_old", "cuda-math-library-api-undeclared")
    assert "CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST" in root.explanation and root.confidence < 0.7
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if Path(nvcc).exists():
        cu = tmp_path / "c.cu"
        cu.write_text("int f() { return (int)CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST; }\n")
        out = run_tool([nvcc, "-c", str(cu), "-o", str(tmp_path / "c.o")])
        assert (
            'identifier "CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST" is undefined' in out.stdout + out.stderr
        )
        d = diagnose_text(out.stdout + out.stderr)
        assert (d.root.cause_id, d.causes[1].cause_id) == ("unknown", "cuda_toolkit_too_old")
        assert d.causes[1].signature == "cuda-math-library-api-undefined-nvcc"
    assert_dev_log(
        "build-fastertransformer-cublaslt-pointer-mode-undeclared-cuda113.log", 574, "cuda_toolkit_too_old", 0.5
    )
    other = diagnose_text("x.cpp:3:5: error: 'my_local_helper' was not declared in this scope").root
    assert other.cause_id != "cuda_toolkit_too_old"


def test_cmake_not_finding_a_package_configuration_file_is_a_library_missing():
    """pytorch/pytorch#133089 (batch 549 dev): kineto's XPU plugin asked find_package for Intel PTI, which was not
    installed (the fix: install intel-pti-dev).  CMake's config-mode wording names the package; torch's own
    package is left to its row (the prefix path), and ROCm's and CUDA's packages to theirs."""
    d = assert_dev_log("source-build-pytorch-xpu-oneapi-kineto-pti-not-found.log", 549, "system_library_missing", 0.5)
    assert d.root.signature == "cmake-config-package-not-found" and "Pti" in d.root.explanation
    torch_line = '  Could not find a package configuration file provided by "Torch" with any of'
    assert diagnose_text(torch_line).root.signature != "cmake-config-package-not-found"
    hip_line = '  Could not find a package configuration file provided by "hip" with any of'
    assert diagnose_text(hip_line).root.signature != "cmake-config-package-not-found"


def test_cmake_config_mode_message_from_the_real_cmake(tmp_path: Path):
    """The real cmake here, asked for a package nobody installed (find_package(NoSuchPkg REQUIRED)), prints the same
    config-mode message; the row names that package."""
    cmake = shutil.which("cmake")
    assert cmake, "cmake is part of this project's machine"
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nfind_package(NoSuchPkg REQUIRED)\n"
    )
    out = run_tool([cmake, "-S", str(tmp_path), "-B", str(tmp_path / "b")])
    assert out.returncode != 0
    root = diagnose_text(out.stdout + out.stderr).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "cmake-config-package-not-found")
    assert "NoSuchPkg" in root.explanation


def test_setuptools_building_an_extension_is_a_package_build():
    """explosion/spaCy#2386 (batch 579 dev): pip built murmurhash on Windows without a C compiler; the log keeps only
    setuptools' "building 'murmurhash.mrmr' extension" and distutils' WinError 2.  That line is build_ext's own, so
    the log shows a package build and the program that could not start is the compiler (the rule read it so only
    after a "running build_ext" line, or after a real build's output printed before it)."""
    d = assert_dev_log("pip-spacy-murmurhash-windows-winerror-2-no-msvc.log", 579, "compiler_missing", 0.55)
    assert "cl.exe" in d.root.explanation
    alone = diagnose_text("error: [WinError 2] The system cannot find the file specified").root
    assert alone.cause_id == "unknown"


# ---- after round A's measurement, from its held-out misses (listed as such in the rows' sources) ----


def test_pips_own_line_under_the_pep_668_refusal_is_read_too():
    """raspiblitz/raspiblitz#4170 (batch 555 held-out, read after the measurement): the paste starts at pip's
    "× This environment is externally managed".  The real pip here renders its ExternallyManagedEnvironment the same
    way; both its lines name the PEP 668 refusal.  pip renders it in a process of its own: importing pip's
    internals here would swap setuptools' distutils shim under the rest of the suite (and warn that it did)."""
    render = (
        "import io\n"
        "from pip._internal.exceptions import ExternallyManagedEnvironment\n"
        "from pip._vendor.rich.console import Console\n"
        "console = Console(width=80, no_color=True, record=True, file=io.StringIO())\n"
        "console.print(ExternallyManagedEnvironment('To install Python packages system-wide, try apt install'))\n"
        "print(console.export_text(), end='')\n"
    )
    rendered = run_tool([sys.executable, "-c", render])
    assert rendered.returncode == 0, rendered.stderr
    text = rendered.stdout
    assert "This environment is externally managed" in text
    for cut in (text, text[text.index("×") :]):
        root = diagnose_text(cut).root
        assert root.cause_id == "permission_denied" and "PEP 668" in root.explanation


def test_a_quoted_nvcc_path_cut_before_no_such_file_is_the_toolkit_not_found():
    """open-mmlab/mmdetection#2113 (batch 576 held-out, read after the measurement): CUDA_HOME began with a colon,
    and the paste keeps only the end of Python's message, from the path's closing quote."""
    root = diagnose_text("/usr/local/cuda-9.0/bin/nvcc': No such file or directory").root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_not_found", "nvcc-missing")


def test_a_programs_own_invalid_device_function_print_has_no_kernel_for_the_gpu():
    """dhernandez0/stixels#4 (batch 572 held-out, read after the measurement): CMakeLists.txt's -gencode list did not
    hold the GTX 1070's arch; the program printed "Error: <cudaGetErrorString> <code>"."""
    root = diagnose_text("Error: invalid device function 8\nError: invalid device function 8").root
    assert root.cause_id == "no_kernel_image" and root.confidence < 0.7


def test_crypt_h_missing_is_a_system_library():
    """cortes-ciriano-lab/SComatic#89 (batch 564 held-out, read after the measurement): conda's compiler reached
    Python 3.7's Python.h, which includes <crypt.h>, in an env without libxcrypt (Debian: libcrypt-dev)."""
    line = "/x/envs/e/include/python3.7m/Python.h:44:10: fatal error: crypt.h: No such file or directory"
    root = diagnose_text(line).root
    assert root.cause_id == "system_library_missing" and "crypt.h" in root.explanation


def test_pycocotools_mask_c_missing_is_cython_missing():
    """cocodataset/cocoapi#221 (batch 548 held-out, read after the measurement) and the dev log of #417: _mask.c is
    written by Cython from _mask.pyx, so a compiler without it means Cython was absent."""
    root = diagnose_text("x86_64-linux-gnu-gcc: error: pycocotools/_mask.c: No such file or directory").root
    assert (root.cause_id, root.signature) == ("python_dependency_missing", "cocoapi-mask-c-not-generated")
    assert "cython" in root.fix
    assert_dev_log("make-pycocotools-cython-missing-mask-c.log", 548, "python_dependency_missing", 0.55)


def test_two_cuda_installs_of_one_version_are_no_version_conflict():
    """pytorch/pytorch#108931 (batch 568 held-out, read after the measurement) and #106971 (batch 568 dev): torch
    2.1's cuda.cmake compared include folders, so one CUDA reached by two paths failed "Found two conflicting CUDA
    installs" with the same version twice.  Different versions stay a version mismatch."""
    same = """
    CMake Error at cmake/public/cuda.cmake:65 (message):
      Found two conflicting CUDA installs:

      V12.1.66 in '/usr/local/cuda/include' and

      V12.1.66 in '/usr/local/cuda-12.1/include'
    """
    d = diagnose_text(same)
    assert d.root.cause_id == "unknown" and "CUDA_PATH" in d.root.fix
    assert [c.cause_id for c in d.causes][1] == "cuda_version_mismatch"
    other = diagnose_text(same.replace("V12.1.66 in '/usr/local/cuda-12.1", "V11.8.89 in '/usr/local/cuda-11.8"))
    assert other.root.cause_id == "cuda_version_mismatch"
    assert_dev_log("build-fbgemm-torch-cmake-two-conflicting-cuda-installs-symlink.log", 568, "unknown", 0.0)


def test_a_config_package_whose_name_starts_like_cudas_is_still_a_library_missing():
    """The row leaves CUDA's own packages to their rows by name (CUDAToolkit, cuDNN, cuBLAS...), not every name that
    starts with "cu": CURL's config package missing is a library missing like any other."""
    root = diagnose_text('  Could not find a package configuration file provided by "CURL" with any of').root
    assert (root.cause_id, root.signature) == ("system_library_missing", "cmake-config-package-not-found")
    cudnn = diagnose_text('  Could not find a package configuration file provided by "cuDNN" with any of').root
    assert cudnn.signature != "cmake-config-package-not-found"
