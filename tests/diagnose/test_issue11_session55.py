"""Issue 11, session 55: rows written, before the session's measurement, from the dev logs of its blind batches
(1051 on) that the start's code (1f4705a) missed or named wrongly.

* Windows' "The procedure entry point cu... could not be located in the dynamic link library nvcuda.dll": nvcuda.dll
  is the NVIDIA driver's CUDA driver-API library, so a cu* entry point it lacks means a driver older than the CUDA
  the program was built with (trexminer/T-Rex#118), the Windows form of the Linux "undefined symbol: cu..." row.  The
  same message for another DLL stays a package built for another torch.  These are Windows loader messages; no
  Windows machine runs here, so the tests read the text recorded in the thread.
* dash's "cd: can't cd to <path>" (make's recipes run /bin/sh, dash on Debian and Ubuntu) for a path inside the
  tree's third_party folder: PyTorch's old NCCL step entering third_party/nccl/nccl, a submodule that was not there
  (pytorch/pytorch#12335).  The test runs the real dash through make.

After round A's measurement (held-out logs of batches 1051-1081, then read):

* Python 2's "ImportError: No module named Cython.Build" (brentp/quicksect#4) and "... Cython.Compiler.Main" (numpy's
  cythonize step, numpy/numpy#7959, a dev log of the same batch): Cython is not installed, not a package without one
  of its modules.  No Python 2 runs here: the Python 2 wording is the threads' text; Python 3's wording is the real
  interpreter's.
* "include_paths() got an unexpected keyword argument 'cuda'" (xlstm, mauricekraus/xLSTM-Mixer#5): the package calls
  torch.utils.cpp_extension's path helpers with the keyword older torch releases had; the test calls the installed
  torch's include_paths the same way.
* git's "fatal: reference is not a tree: <sha>" (markovmodel/PyEMMA#1446) is a submodule commit the clone lacks, not
  a network failure; git 2.39's "Fetched in submodule path ..., but it did not contain <sha>" is the same.  The test
  runs the real git on a superproject whose submodule lost the recorded commit.

After round B's measurement (batches 1082-1093): lto1 refusing an object whose LTO bytecode another GCC wrote
(rr-debugger/rr#2884, numba/llvmlite#898): objects left from a build before a compiler update.

From the whole corpus after the measurements (seen logs): DeepGEMM's JIT asserting "NVCC version should be >= 12.3"
(vllm-project/vllm#49051): the nvcc it found is older than the package needs.  cuDNN 9's
CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH / _LOADING_FAILED: parts of two cuDNN releases in one process (four dev logs,
pytorch/pytorch#187824, #188892, #185512, modelscope/ms-swift#6931).  CUDA-Q's "Invalid simulator requested:
custatevec_fp32": its GPU backend's CUDA libraries missing (NVIDIA/cuda-quantum#1096, #1393).  Both are run-time
messages of GPU machines: the tests read the logs recorded in the threads.  GroundingDINO's "UserWarning: Failed to
load custom C++ ops. Running on CPU mode Only!": installed without CUDA_HOME, so no CUDA op was built
(IDEA-Research/Grounded-Segment-Anything#53); the "NameError: name '_C' is not defined" after that warning is the
package's _C, not torch's (rule in decisions/diagnose_rules_runtime.py).
nvcc stopping in CUDA 8's cuda_fp16.h on an ambiguous "isinf" under GCC 6 (NVIDIA/nccl#40, batch 1078 dev, in the
dev table): a host compiler newer than that CUDA supports; no second CUDA/GCC pair runs here to reproduce it.

Two of the session's new dev logs broke the corpus-wide layout tests (tests/diagnose/test_structure.py), now fixed:
under LANG=es the line after ninja's FAILED: is GCC's "c++: error fatal: ..." (an ASCII translation), which was read
as the step's command (intel/compute-runtime's cc1plus killed); and cl's D8021 on a GCC flag ('/Wno-cpp', pycocotools)
printed after a real PyTorch build became an old Visual Studio too old for torch's headers: cl rejecting a GCC flag is
the package's flags whatever the log says about torch (rule in decisions/diagnose_rules_windows.py).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from support.git import git, git_out

from .conftest import assert_named_by, diagnose_text, named_below_sure, run_tool


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        (
            "runtime-t-rex-windows-nvcuda-dll-cudeviceprimaryctxreset-v2-entry-point.log",
            "cuda_driver_too_old",
            "nvcuda-dll-entry-point-missing",
        ),
        (
            "nccl-pytorch-cant-cd-third-party-nccl-nccl-submodule-absent.log",
            "submodule_missing",
            "third-party-path-not-found",
        ),
        (
            "nccl-nccl-gcc6-cuda8-isinf-overloaded-cuda-fp16.log",
            "host_compiler_unsupported",
            "cuda-header-isinf-ambiguous-newer-gcc",
        ),
    ],
)
def test_dev_misses_of_session_55(name: str, cause: str, signature: str | None):
    """Dev logs of batches 1051 on that the start's code named unknown or another cause."""
    assert_named_by(name, "dev", cause, signature)


def test_nvcuda_entry_point_is_the_driver_and_another_dll_is_not():
    """The loader's message for nvcuda.dll (bare or with its System32 path) names the driver; the same message for a
    package's DLL (torchcodec's, the existing row's example) still names a package built for another torch."""
    root = named_below_sure(
        "The procedure entry point cuGetProcAddress_v2 could not be located in the dynamic link library "
        "C:\\WINDOWS\\SYSTEM32\\nvcuda.dll.",
        "cuda_driver_too_old",
        "nvcuda-dll-entry-point-missing",
    )
    assert "cuGetProcAddress_v2" in root.explanation
    other = diagnose_text(
        "The procedure entry point torch_from_blob could not be located in the dynamic link library "
        "E:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torchcodec\\libtorchcodec_core8.dll."
    ).root
    assert (other.cause_id, other.signature) == ("torch_extension_mismatch", "dll-entry-point-not-found")


def test_make_recipe_cd_into_an_empty_third_party_folder_with_the_real_dash(tmp_path: Path):
    """make runs a recipe that enters third_party/nccl/nccl (as PyTorch's old NCCL step did) through /bin/sh; with the
    submodule not checked out dash prints "cd: can't cd to ...", which names the submodule.  The same failure for a
    folder outside third_party is not this row's."""
    make, dash = shutil.which("make"), shutil.which("dash")
    if make is None or dash is None:
        pytest.skip("needs make and dash")
    (tmp_path / "third_party" / "nccl").mkdir(parents=True)
    (tmp_path / "Makefile").write_text(
        f"SHELL := {dash}\nall:\n\tcd {tmp_path}/third_party/nccl/nccl && $(MAKE) src.build\n"
        f"other:\n\tcd {tmp_path}/tools/gen && ./gen.sh\n"
    )
    run = run_tool([make, "-C", str(tmp_path)])
    assert run.returncode != 0 and "can't cd to" in run.stderr
    root = named_below_sure(run.stdout + run.stderr, "submodule_missing", "third-party-path-not-found")
    assert "third_party/nccl/nccl" in root.explanation

    other = run_tool([make, "-C", str(tmp_path), "other"])
    assert "can't cd to" in other.stderr
    assert diagnose_text(other.stdout + other.stderr).root.signature != "third-party-path-not-found"


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        ("pip-quicksect-no-module-cython-build.log", "python_dependency_missing", "cython-not-installed"),
        (
            "xlstm-xlstm-mixer-include-paths-cuda-kwarg.log",
            "torch_api_removed",
            "cpp-extension-paths-cuda-keyword-removed",
        ),
        (
            "git-pyemma-pybind11-submodule-reference-not-a-tree.log",
            "submodule_missing",
            "git-submodule-commit-not-in-clone",
        ),
    ],
)
def test_held_out_misses_of_round_a(name: str, cause: str, signature: str):
    """Held-out logs of round A (batches 1051-1081) that the measured code missed, read after the measurement."""
    assert_named_by(name, "holdout", cause, signature)


def test_cython_missing_in_python_2_and_3_wordings():
    """The dev log's Python 2 wording names Cython missing; so does the real Python 3 with no site-packages (-S), which
    names the top-level package; a real package's missing submodule is still not this row's."""
    assert_named_by(
        "setuptools-numpy-source-no-module-cython.log", "dev", "python_dependency_missing", "cython-not-installed"
    )
    run = run_tool([sys.executable, "-S", "-c", "from Cython.Build import cythonize"])
    assert "No module named 'Cython'" in run.stderr
    root = diagnose_text(run.stderr).root
    assert (root.cause_id, root.signature) == ("python_dependency_missing", "cython-not-installed")
    other = diagnose_text("ImportError: No module named warprnnt_pytorch.warp_rnnt").causes
    assert all(c.signature != "cython-not-installed" for c in other)


def test_include_paths_cuda_keyword_with_the_installed_torch():
    """The installed torch's include_paths, called as code written for older torch calls it (cuda=True), raises the
    TypeError the row reads."""
    pytest.importorskip("torch")
    code = "from torch.utils.cpp_extension import include_paths\ninclude_paths(cuda=True)\n"
    run = run_tool([sys.executable, "-c", code])
    assert "include_paths() got an unexpected keyword argument 'cuda'" in run.stderr
    named_below_sure(run.stderr, "torch_api_removed", "cpp-extension-paths-cuda-keyword-removed")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_submodule_commit_missing_with_the_real_git(tmp_path: Path):
    """A superproject records submodule commit B; the submodule's repository is then reset to A and B pruned.  The
    real git's `submodule update --init` in a fresh clone cannot fetch B, and `git checkout B` in the submodule's
    clone says "reference is not a tree": both name the submodule, neither the network."""
    sub, sup = tmp_path / "sub", tmp_path / "sup"
    git("init", "-q", str(sub), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "a", cwd=sub)
    git("commit", "-q", "--allow-empty", "-m", "b", cwd=sub)
    recorded = git_out("rev-parse", "HEAD", cwd=sub)
    git("init", "-q", str(sup), cwd=tmp_path)
    git("submodule", "add", "-q", str(sub), "third_party/sub", cwd=sup)
    git("commit", "-q", "-m", "s", cwd=sup)
    git("reset", "-q", "--hard", "HEAD~1", cwd=sub)
    git("reflog", "expire", "--expire=now", "--all", cwd=sub)
    git("gc", "-q", "--prune=now", cwd=sub)
    git("clone", "-q", str(sup), str(tmp_path / "clone"), cwd=tmp_path)

    update = git("submodule", "update", "--init", cwd=tmp_path / "clone", check=False)
    assert update.returncode != 0 and recorded in update.stderr
    root = named_below_sure(update.stderr, "submodule_missing", "git-submodule-commit-not-in-clone")
    assert recorded in root.explanation

    checkout = git("checkout", recorded, cwd=tmp_path / "clone" / "third_party" / "sub", check=False)
    assert f"reference is not a tree: {recorded}" in checkout.stderr
    named_below_sure(checkout.stderr, "submodule_missing", "git-submodule-commit-not-in-clone")


def test_lto_objects_of_another_gcc_with_the_real_gcc(tmp_path: Path):
    """Round B's held-out misses (rr-debugger/rr#2884, numba/llvmlite#898, read after the measurement): LTO objects
    written by another GCC.  One GCC is installed here, so the test compiles with -flto, rewrites the LTO bytecode
    major version in the object's .gnu.lto_.lto section to the one before (as an older GCC would have written it) and
    links with the real gcc, whose lto1 refuses the object: leftover objects, below the sure bar."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc")
    from elftools.elf.elffile import ELFFile

    (tmp_path / "a.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "m.c").write_text("int f(void);\nint main(void) { return f(); }\n")
    for name in ("a", "m"):
        assert run_tool([gcc, "-flto", "-c", f"{name}.c", "-o", f"{name}.o"], cwd=tmp_path).returncode == 0
    obj = tmp_path / "a.o"
    with obj.open("rb") as fh:
        section = next(s for s in ELFFile(fh).iter_sections() if s.name.startswith(".gnu.lto_.lto."))
        offset = section["sh_offset"]
    data = bytearray(obj.read_bytes())
    major = int.from_bytes(data[offset : offset + 2], "little")
    data[offset : offset + 2] = (major - 1).to_bytes(2, "little")
    obj.write_bytes(bytes(data))

    link = run_tool([gcc, "-flto", "a.o", "m.o", "-o", "m"], cwd=tmp_path)
    assert link.returncode != 0 and f"generated with LTO version {major - 1}." in link.stderr
    root = named_below_sure(link.stderr, "stale_build_dir", "lto-bytecode-version-mismatch")
    assert "a.o" in root.explanation
    for name in (
        "cmake-rr-lto-bytecode-version-stale-objects.log",
        "build-llvmlite-lld-wrap-lto-version-leftover-objects.log",
    ):
        assert_named_by(name, "holdout", "stale_build_dir", "lto-bytecode-version-mismatch")


def test_package_asserting_a_newer_nvcc():
    """DeepGEMM's assertion as the dev log has it (batch 998), and the same check written as a Python assert and run by
    the real interpreter, name the toolkit too old; a package asking for a newer Python is not this row's."""
    assert_named_by(
        "jit-deepgemm-nvcc-too-old-assertion.log", "dev", "cuda_toolkit_too_old", "package-asserts-newer-nvcc"
    )
    code = 'major, minor = 12, 1\nassert major > 12 or (major == 12 and minor >= 3), "NVCC version should be >= 12.3"\n'
    run = run_tool([sys.executable, "-c", code])
    assert "AssertionError: NVCC version should be >= 12.3" in run.stderr
    root = diagnose_text(run.stderr).root
    assert (root.cause_id, root.signature) == ("cuda_toolkit_too_old", "package-asserts-newer-nvcc")
    assert "12.3" in root.explanation
    other = diagnose_text("AssertionError: Python version should be >= 3.9").causes
    assert all(c.signature != "package-asserts-newer-nvcc" for c in other)


def test_spanish_compiler_error_right_after_failed_is_not_the_command():
    """GCC's Spanish catalogue (gcc-12-locales) prints "error fatal: " and glibc's strsignal "Terminado (killed)":
    right after ninja's FAILED: line that is the compiler's message (a log cut without the command), not the step's
    command, so the killed compiler is still read."""
    for line in (
        "c++: error fatal: Terminado (killed) signal terminated program cc1plus",
        "c++: fatal error: Killed signal terminated program cc1plus",
    ):
        d = diagnose_text(f"FAILED: unit_tests/CMakeFiles/t.dir/a.cpp.o\n{line}\ncompilation terminated.")
        assert (d.root.cause_id, d.root.line) == ("out_of_memory", 2)


def test_cl_rejecting_a_gcc_flag_is_not_an_old_visual_studio_after_torch():
    """pycocotools' D8021 under Visual Studio 14.0, alone and printed after the project's real PyTorch 2.6.0 build
    excerpt (torch versions in the log): unknown both ways, the old Visual Studio second below the sure bar."""
    log = assert_named_by("msvc-cocoapi-d8021-wno-cpp.log", "dev", "unknown", None)
    excerpt = Path(__file__).resolve().parent.parent / "data" / "pytorch-2.6.0-build-excerpt.log"
    lines = excerpt.read_text(encoding="utf-8").splitlines() + [
        "cl : Command line error D8021 : invalid numeric argument '/Wno-cpp'",
        "error: command 'C:\\\\Program Files (x86)\\\\Microsoft Visual Studio 14.0\\\\VC\\\\BIN\\\\x86_amd64"
        "\\\\cl.exe' failed with exit status 2",
    ]
    after = diagnose_text("\n".join(lines))
    assert after.root.cause_id == "unknown" and "GCC-only flag" in after.root.explanation
    second = after.causes[1]
    assert (second.signature, second.confidence < 0.7) == ("msvc-2015-or-older-compiler-failed", True)
    assert log.causes[1].signature == "msvc-2015-or-older-compiler-failed"


_SUBLIB = ("cudnn_unusable", "cudnn-sublibrary-mismatch", "two cuDNN releases")
_CUDAQ = ("shared_library_not_found", "cudaq-gpu-simulator-not-loadable", "custatevec_fp32")


@pytest.mark.parametrize(
    ("name", "split", "expected"),
    [
        ("runtime-ms-swift-conv3d-cudnn-sublibrary-loading-failed.log", "dev", _SUBLIB),
        ("runtime-pytorch-nightly-cu130-cudnn-sublibrary-version-mismatch.log", "dev", _SUBLIB),
        ("runtime-pytorch-2.12-cu130-cudnn-tensor-ir-missing-from-wheel.log", "dev", _SUBLIB),
        ("runtime-torch-cu130-cudnn-sublibrary-version-mismatch-system-cudnn.log", "dev", _SUBLIB),
        ("import-cudaq-colab-invalid-simulator-custatevec-fp32.log", "dev", _CUDAQ),
        ("linux-cuda-quantum-pip-import-custatevec-simulator-missing-cuda-libs.log", "holdout", _CUDAQ),
    ],
)
def test_gpu_machine_messages_from_the_whole_corpus(name: str, split: str, expected: tuple[str, str, str]):
    """cuDNN's sub-library statuses and CUDA-Q's simulator check, as real GPU machines printed them (recorded in the
    threads; no GPU here): the cause, the row, and a phrase its explanation must carry."""
    cause, signature, phrase = expected
    d = assert_named_by(name, split, cause, signature)
    assert phrase in d.root.explanation


def test_groundingdino_cpu_only_warning_with_the_real_python(tmp_path: Path):
    """GroundingDINO's import fallback, written as its ms_deform_attn.py has it and run by the real Python: the
    warning (with the source line Python prints under it) and the NameError after it name the CUDA toolkit missing at
    install time, the torch source-tree reading of the NameError second; the same source line pasted alone (the batch
    902 log, whose undefined libstdc++ symbol is the cause) does not."""
    (tmp_path / "ms_deform_attn.py").write_text(
        "import warnings\n"
        "try:\n"
        "    from groundingdino import _C\n"
        "except Exception:\n"
        '    warnings.warn("Failed to load custom C++ ops. Running on CPU mode Only!")\n'
        "def forward():\n"
        "    return _C.ms_deform_attn_forward()\n"
    )
    run = run_tool([sys.executable, "-c", "import ms_deform_attn; ms_deform_attn.forward()"], cwd=tmp_path)
    assert "UserWarning: Failed to load custom C++ ops" in run.stderr and "NameError" in run.stderr
    root = named_below_sure(run.stderr, "cuda_toolkit_not_found", "groundingdino-custom-ops-cpu-only")
    assert "CUDA_HOME" in root.explanation
    assert_named_by(
        "runtime-grounded-segment-anything-c-not-defined-cuda-home.log",
        "holdout",
        "cuda_toolkit_not_found",
        "groundingdino-custom-ops-cpu-only",
    )
    assert_named_by(
        "import-groundingdino-c-ext-exception-ptr-undefined-symbol.log",
        "dev",
        "glibcxx_too_old",
        "libstdcxx-symbol-undefined",
    )
