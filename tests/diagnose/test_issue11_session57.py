"""Issue 11, session 57: rows written, before the session's measurement, from the dev logs of its blind batches
(1162 on) that the start's code (052d7a6) missed or named wrongly.

* uv's "hint: You're on Linux (`manylinux_2_17_x86_64`), but `nvidia-cublas-cu12` (v12.8.4.1) only has wheels for the
  following platforms: `manylinux_2_27_aarch64`, `manylinux_2_27_x86_64`, ..." (astral-sh/uv#12597): the package has
  a wheel for this architecture under a newer glibc (PEP 600's manylinux_2_X tag), so this machine's glibc is too
  old.  uv resolves against PyPI, which this suite does not reach, so the tests read the recorded log and uv's hint
  text with other tags.
* unsloth's "NotImplementedError: Unsloth: No NVIDIA GPU found? Unsloth currently only supports GPUs!"
  (unslothai/unsloth#2024): torch.cuda.is_available() is False, most often a CPU-only torch; below the sure bar, and
  the driver rows still go first when torch warned that the driver is too old (unslothai/unsloth#2499).  unsloth is
  not installed here (it needs a GPU to import): the recorded logs.
* TensorFlow's "DNN library is not found." (apapiu/guided-diffusion-keras#8, Steffenhir/GraXpert#84): cuDNN could not
  start, another cuDNN than the one TensorFlow was built for; and TensorFlow's Bazel configure "Cuda Configuration
  Error: Cannot find cuda library libcublas.so.10.1" (BrainTwister/docker-devel-env#11): a toolkit without that
  library.  No TensorFlow here: the recorded logs.
* pybind11's "TypeError: causal_conv1d_fwd(): incompatible function arguments" (hustvl/Vim#34, Jiaxin-Ye/DepMamba#3,
  wurenkai/UltraLight-VM-UNet#34, Jiaxin-Ye/DepMamba#8): mamba_ssm calling causal-conv1d's binding with another
  release's arguments, a version pair that does not go together.  Both need a CUDA GPU to install: the recorded logs.
* A box's right border ("│") at the end of a line (rich's traceback panel around "ImportError: ..._C.so: undefined"
  / "symbol: _ZNR5torch7Library4_def...", NVIDIA/torch-harmonics#226) is a frame, like its left border: the wrapped
  undefined-symbol message is joined again.  The test draws the box around the real loader's message.
* torchvision's "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8." pasted without the sentence
  before it (nerdyrodent/AVeryComfyNerd#8): the extension built for another CUDA build of torch.  The recorded log.

After round A's measurement (held-out logs of batches 1162-1193, then read), with round B's dev logs:

* "ImportError: cannot import name 'TypeIs' from 'typing_extensions'" (pytorch/pytorch#134097, kubeflow/katib#2504,
  ostris/ai-toolkit#262) and the same message cut after "from" ("cannot import name 'ParamSpec' from",
  pytorch/pytorch#116945): typing_extensions older than torch needs, which causes.md files under
  python_dependency_missing.  The test imports from a real, old typing_extensions module (one without TypeIs).
* Windows' "DLL load failed: The paging file is too small for this operation to complete" (daigo0927/pwcnet#4): out of
  commit memory, not a missing DLL; the paging-file row had an anchor ("1455") that this text lacks.  Windows only:
  the recorded log.

After round B's measurement (batches 1194-1205):

* A torch name the installed torch lacks ("cannot import name 'wrap_triton' from 'torch.library'", "module
  'torch.utils._pytree' has no attribute 'register_pytree_node'") that a recent torch has is code released for a
  newer torch (dependency_version_conflict), not an API torch removed (rule in
  decisions/diagnose_rules_runtime.py, over knowledge/data/torch_names.toml: dir() of torch 2.13.0's modules,
  recorded by scripts/gen-torch-names).  The tests import from a real stand-in of an older torch.library (a module
  without custom_op) and from the installed torch, and regenerate the table from the installed torch 2.13.0.
* sympy's "AttributeError: module 'mpmath' has no attribute 'rational'" (sympy/sympy#26273,
  AUTOMATIC1111/stable-diffusion-webui#15103): an mpmath newer than the installed sympy supports.  The test imports
  sympy's line against a real mpmath stand-in without ``rational``.

After the log-only reading (held-out logs the reader named right and diagnose did not):

* torch's "NameError: name 'sympy' is not defined" (dbolya/yolact#813): torch installed without sympy.
* R's "download from '<url>' failed" after its 60-second timeout (mlverse/torch#437): the download failed.
* distutils' "error: unknown file type '.cu' (from '...')" (cupy/cupy#115): the CUDA build step did not run because no
  nvcc was found.  The test runs the real setuptools on a .cu source.
* nvcc's "Value 'sm_75' is not defined for option 'gpu-architecture'" pasted without its "nvcc fatal" prefix
  (inducer/pycuda#191): the line is examined now ("is not defined for option" joins the gate words).

Anchors that a pattern's own match need not hold (found by checking every row's examples after the paging-file
row): the OpenMP row's "mp" is not in GNU ld's "undefined reference to `GOMP_parallel'" (now "ndefined"); the
libpython row's "needed by" is not in make's "No rule to make target 'libpython3.8.so'.  Stop." (now "python"); MSVC's
C1060 row and the SSL row have no anchor (each pattern's text is its key).  The test runs the real gcc and ld; the
libpython line was already named by a rule (make's own line names the library), so no test tells the two anchors
apart.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from .conftest import assert_named_by, diagnose_text, run_tool


@pytest.mark.parametrize(
    ("name", "split", "cause", "signature"),
    [
        (
            "install-uv-jax-cuda12-nvidia-cublas-no-wheel-glibc217.log",
            "dev",
            "libc_too_old",
            "uv-no-wheel-older-manylinux",
        ),
        (
            "import-unsloth-windows-conda-cpu-only-torch-no-nvidia-gpu-found.log",
            "dev",
            "torch_cpu_only",
            "unsloth-no-nvidia-gpu-found",
        ),
        (
            "runtime-tensorflow-dnn-library-not-found-wrong-cudnn.log",
            "dev",
            "cudnn_unusable",
            "tensorflow-dnn-library-not-found",
        ),
        (
            "build-tensorflow-docker-cuda101-cublas-moved-not-in-lib64.log",
            "dev",
            "cuda_toolkit_incomplete",
            "tensorflow-configure-cuda-library-missing",
        ),
        (
            "runtime-vim-mamba-causal-conv1d-fwd-incompatible-args-windows.log",
            "dev",
            "dependency_version_conflict",
            "causal-conv1d-binding-incompatible-arguments",
        ),
        (
            "runtime-depmamba-causal-conv1d-fwd-incompatible-args-version-inconsistency.log",
            "dev",
            "dependency_version_conflict",
            "causal-conv1d-binding-incompatible-arguments",
        ),
        (
            "runtime-ultralight-vm-unet-causal-conv1d-fwd-wrong-version.log",
            "dev",
            "dependency_version_conflict",
            "causal-conv1d-binding-incompatible-arguments",
        ),
        (
            "import-torch-harmonics-wheel-undefined-symbol-newer-torch.log",
            "dev",
            "torch_extension_mismatch",
            "undefined-symbol-torch",
        ),
        (
            "import-comfyui-workflow-torchvision-cu118-with-torch-cu117.log",
            "dev",
            "torch_extension_mismatch",
            "extension-different-cuda",
        ),
        (
            "import-torch-typing-extensions-too-old-paramspec.log",
            "holdout",
            "python_dependency_missing",
            "typing-extensions-too-old",
        ),
        (
            "import-katib-ci-typing-extensions-typeis-torch26.log",
            "dev",
            "python_dependency_missing",
            "typing-extensions-too-old",
        ),
        (
            "import-windows-typing-extensions-typeis-python311.log",
            "dev",
            "python_dependency_missing",
            "typing-extensions-too-old",
        ),
        (
            "import-torch-nightly-typing-extensions-typeis-too-old-macos.log",
            "holdout",
            "python_dependency_missing",
            "typing-extensions-too-old",
        ),
        (
            "import-pwcnet-dll-load-failed-paging-file-torch-c.log",
            "holdout",
            "out_of_memory",
            "windows-paging-file-too-small",
        ),
        *[
            (name, split, "dependency_version_conflict", "reason:dependency_version_conflict")
            for name, split in [
                ("import-transformers-pytree-register-torch-below-2-2.log", "dev"),
                ("import-boltz-trifast-wrap-triton-torch-2-4.log", "dev"),
                ("import-qwen3vl-transformers-dev-pytree-register-old-torch.log", "holdout"),
                ("import-llama-moe-v2-scattermoe-custom-op-old-torch.log", "holdout"),
                ("import-norse-register-pytree-node-needs-torch-2.2.log", "dev"),
                ("import-opacus-1.5.4-needs-newer-torch-rmsnorm.log", "holdout"),
            ]
        ],
        (
            "import-sympy-mpmath-rational-torch-guards.log",
            "dev",
            "dependency_version_conflict",
            "sympy-mpmath-no-rational",
        ),
        (
            "import-webui-sympy-mpmath-1.4-no-rational.log",
            "holdout",
            "dependency_version_conflict",
            "sympy-mpmath-no-rational",
        ),
        (
            "import-yolact-torch-guards-sympy-not-defined.log",
            "holdout",
            "python_dependency_missing",
            "torch-sympy-not-installed",
        ),
        (
            "install-rtorch-libtorch-download-timeout-60s-macos.log",
            "holdout",
            "source_fetch_failed",
            "r-download-file-failed",
        ),
        (
            "cupy-sudo-pip-install-nvcc-not-in-path-unknown-file-type-cu.log",
            "holdout",
            "cuda_toolkit_not_found",
            "distutils-unknown-file-type-cu",
        ),
        ("runtime-pycuda-test-driver-sm75-cuda90.log", "holdout", "cuda_arch_unsupported", "nvcc-unsupported-gpu-arch"),
    ],
)
def test_logs_named_by_the_new_rows(name: str, split: str, cause: str, signature: str) -> None:
    """The corpus logs the session's rows were written from name their thread's cause through the new row: the dev
    logs of the blind batches (rows written before the measurement), the held-out logs read after their round's
    measurement or the reader's answers, and seen logs of the whole corpus that diagnose had left unknown."""
    assert_named_by(name, split, cause, signature)


@pytest.mark.parametrize(
    "hint",
    [
        # only macOS wheels for a Linux machine: another platform, not an old glibc
        "hint: You're on Linux (`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has wheels for the following "
        "platforms: `macosx_11_0_arm64`, `win_amd64`",
        # a manylinux wheel for another architecture only
        "hint: You're on Linux (`manylinux_2_17_x86_64`), but `foo` (v1.0) only has wheels for the following "
        "platforms: `manylinux_2_28_aarch64`",
    ],
)
def test_uv_hint_without_a_wheel_for_this_arch_is_not_glibc(hint: str) -> None:
    """The row needs a manylinux wheel of the machine's own architecture: a hint listing only other platforms or
    another architecture is not read as an old glibc."""
    d = diagnose_text("error: Distribution `foo` can't be installed\n\n" + hint)
    assert all(c.cause_id != "libc_too_old" for c in d.causes)


def test_unsloth_message_after_a_driver_warning_is_the_driver() -> None:
    """The same unsloth message under torch's "NVIDIA driver on your system is too old" warning (unslothai/unsloth#2499)
    stays the driver's: the unsloth row is a likely cause, the driver's message a finding."""
    name = "runtime-unsloth-pip-pulls-torch-cu124-driver-520-too-old.log"
    d = assert_named_by(name, "dev", "cuda_driver_too_old", "cuda-driver-too-old")
    assert d.root.confidence >= 0.7


def test_pybind11_incompatible_arguments_of_another_module_is_not_a_pin() -> None:
    """The causal-conv1d row reads causal-conv1d's functions only: the same pybind11 message between two modules
    built with other pybind11 internals (torch-mlir's, a log the threads left without a listed cause) stays so."""
    d = diagnose_text(
        "TypeError: get_dialect_registry(): incompatible function arguments. The following argument types are "
        "supported:\n    1. (self: torch_mlir._mlir_libs._mlir.ir.Context) -> None"
    )
    assert all(c.cause_id != "dependency_version_conflict" for c in d.causes)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_real_loader_message_in_a_box_is_joined(tmp_path: Path) -> None:
    """The real loader's undefined-symbol message for a module that needs a c10 symbol libc10 lacks, drawn in a box as
    rich's traceback panel draws it (the message broken after "undefined", a "│" on both sides of every line), names
    the extension/torch mismatch as the same message without the box does."""
    src = tmp_path / "ext.c"
    sym = "_ZN3c106detail19torchbuild_missingEv"  # c10::detail::torchbuild_missing(), in no libc10
    src.write_text(f"extern int {sym}(void);\nint f(void) {{ return {sym}(); }}\n")
    so = tmp_path / "_C.so"
    run_tool(["gcc", "-shared", "-fPIC", str(src), "-o", str(so)])
    proc = run_tool([sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(so)!r})"])
    message = proc.stderr.strip().splitlines()[-1]
    assert ": undefined symbol: " in message
    head, tail = message.split(" symbol: ", 1)
    plain = diagnose_text(message).root
    boxed = diagnose_text(f"│ {head}        │\n│ symbol: {tail}        │").root
    assert plain.cause_id == boxed.cause_id == "torch_extension_mismatch"
    assert boxed.signature == plain.signature


def _import_error(code: str, path: Path | None = None) -> str:
    """The standard error of the real Python running ``code``, with ``path`` (a folder of stand-in modules) first on
    its import path."""
    env = {"PATH": "/usr/bin:/bin"}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return run_tool([sys.executable, "-c", code], env=env).stderr


def test_real_old_typing_extensions(tmp_path: Path) -> None:
    """A real ImportError from an old typing_extensions (a module of that name without TypeIs, found first on the
    path, as a distribution's copy is) names python_dependency_missing through the typing_extensions row."""
    (tmp_path / "typing_extensions.py").write_text("from typing import Protocol, TypeVar\n")
    err = _import_error("from typing_extensions import TypeIs", tmp_path)
    assert "cannot import name 'TypeIs' from 'typing_extensions'" in err
    root = diagnose_text(err).root
    assert (root.cause_id, root.signature) == ("python_dependency_missing", "typing-extensions-too-old")


def test_real_name_of_a_newer_torch(tmp_path: Path) -> None:
    """A real ImportError of torch.library.custom_op from a torch whose torch.library lacks it (a stand-in package
    "torch" of an older release, found first on the path) names the version conflict first: torch 2.13.0 has
    custom_op, so the code needs a newer torch; the removed-API reading comes second."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("")
    (tmp_path / "torch" / "library.py").write_text("def impl(*args, **kwargs):\n    pass\n")
    err = _import_error("from torch.library import custom_op", tmp_path)
    assert "cannot import name 'custom_op' from 'torch.library'" in err
    causes = diagnose_text(err).causes
    assert [c.cause_id for c in causes[:2]] == ["dependency_version_conflict", "torch_api_removed"]
    assert "torch.library.custom_op, which torch 2.13.0 has" in causes[0].explanation


def test_real_name_no_torch_has_stays_removed() -> None:
    """A name that torch 2.13.0 does not have either (the real ImportError of the installed torch) stays an API torch
    removed: the rule only moves names a recent torch defines."""
    pytest.importorskip("torch")
    err = _import_error("from torch.library import torchbuild_no_such_name")
    assert "cannot import name 'torchbuild_no_such_name' from 'torch.library'" in err
    root = diagnose_text(err).root
    assert (root.cause_id, root.signature) == ("torch_api_removed", "torch-api-missing")


def test_torch_names_table_is_the_installed_torchs() -> None:
    """knowledge/data/torch_names.toml is what scripts/gen-torch-names prints from the installed torch, when that is
    the release the table was recorded from (2.13.0, the torch the suite installs)."""
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13.0"):
        pytest.skip(f"the table was recorded from torch 2.13.0, this is {torch.__version__}")
    root = Path(__file__).resolve().parents[2]
    gen = run_tool([sys.executable, str(root / "scripts" / "gen-torch-names")])
    assert gen.returncode == 0, gen.stderr
    assert gen.stdout == (root / "src" / "torchbuild" / "knowledge" / "data" / "torch_names.toml").read_text()


def test_real_mpmath_without_rational(tmp_path: Path) -> None:
    """sympy's own line (``mpmath.rational.mpq``) run against an mpmath that has no ``rational`` (a stand-in module
    of that name found first on the path, as mpmath 1.4's pre-release): the real AttributeError names the version
    conflict."""
    (tmp_path / "mpmath.py").write_text("mpf = float\n")
    err = _import_error("import mpmath\nmpmath.rational.mpq(1, 2)", tmp_path)
    assert "AttributeError: module 'mpmath' has no attribute 'rational'" in err
    root = diagnose_text(err).root
    assert (root.cause_id, root.signature) == ("dependency_version_conflict", "sympy-mpmath-no-rational")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_real_setuptools_with_a_cu_source(tmp_path: Path) -> None:
    """The real setuptools building a plain Extension with a .cu source (what a setup.py does when it skipped its CUDA
    build step for want of nvcc) fails with "unknown file type '.cu'", which names the CUDA toolkit not found."""
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "setup.py").write_text(
        "from setuptools import Extension, setup\nsetup(name='k', ext_modules=[Extension('k', ['k.cu'])])\n"
    )
    proc = run_tool([sys.executable, "setup.py", "build_ext"], cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert "unknown file type '.cu'" in out
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_not_found", "distutils-unknown-file-type-cu")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_real_openmp_code_linked_without_openmp(tmp_path: Path) -> None:
    """OpenMP code compiled with -fopenmp and linked without it: the real GNU ld's "undefined reference to
    `GOMP_parallel'", with relative file names (no "mp" anywhere on the line), names openmp_missing."""
    (tmp_path / "a.c").write_text("int main(void) {\n#pragma omp parallel\n  { }\n  return 0;\n}\n")
    run_tool(["gcc", "-fopenmp", "-c", "a.c", "-o", "a.o"], cwd=tmp_path)
    proc = run_tool(["gcc", "a.o", "-o", "a"], cwd=tmp_path)
    assert "undefined reference to `GOMP_parallel'" in proc.stderr
    root = diagnose_text(proc.stderr).root
    assert (root.cause_id, root.signature) == ("openmp_missing", "openmp-runtime-not-linked")
