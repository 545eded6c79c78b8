"""Issue 11, session 30: rows and a rule written from the dev logs of batches 214-229, each checked against the
real program that prints the message (setuptools from PyPI, pip, the interpreter, NVIDIA's cuda-python run on this
machine, which has no NVIDIA driver)."""

from __future__ import annotations

import ctypes.util
import shutil
import subprocess
import sys
import textwrap

import pytest

from .conftest import assert_dev_log, causes_of
from .conftest import diagnose_list as _diag


def _venv(path) -> str:
    """A venv without pip (pip of the running Python installs into it with --python); its python's path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=300)
    return str(path / "bin" / "python")


def _pip_install(py: str, *reqs: str) -> None:
    """Install ``reqs`` into the venv of ``py``; skips the test where pip cannot fetch them."""
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", py, "install", "-q", *reqs],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        pytest.skip(f"pip could not install {' '.join(reqs)} here: {pip.stderr[-300:]}")


def test_setuptools_67_refuses_an_invalid_requirement_specifier_that_66_accepted(tmp_path):
    """gym 0.21's extras_require ("opencv-python>=3.") under setuptools 67.0.0, from PyPI: `setup.py egg_info`
    fails with the message of mani-skill/ManiSkill#89, which names the setuptools/package conflict; under
    setuptools 66.1.1 the same setup.py passes (the version in the row's explanation)."""
    py = _venv(tmp_path / "venv")
    src = tmp_path / "gym"
    src.mkdir()
    (src / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='gym', version='0.21.0', extras_require={'other': ['lz4>=3.1.0', 'opencv-python>=3.']})\n"
    )
    _pip_install(py, "setuptools==67.0.0")
    run = subprocess.run([py, "setup.py", "-q", "egg_info"], cwd=src, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith("error in gym setup command: 'extras_require' must be a dictionary"), run.stderr
    d = _diag(["  × python setup.py egg_info did not run successfully.", f"      {line}"])
    assert d.root.cause_id == "dependency_version_conflict" and d.root.confidence >= 0.7, causes_of(d)
    assert d.root.signature == "setuptools-invalid-requirement-specifier"
    assert "setuptools 67.0.0 and later" in d.root.explanation and "gym" in d.root.fix
    _pip_install(py, "setuptools==66.1.1")
    ok = subprocess.run([py, "setup.py", "-q", "egg_info"], cwd=src, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr


def test_pip_refuses_a_wheel_for_a_newer_glibc_with_or_without_its_error_prefix(tmp_path):
    """The real pip on a wheel tagged manylinux_2_99 (no glibc is that new) prints "ERROR: <wheel> is not a
    supported wheel on this platform."; the line is examined with or without "ERROR: " (google-deepmind/lab2d#30
    pasted it without), and names the glibc."""
    wheel = tmp_path / f"dmlab2d-1.0-cp3{sys.version_info.minor}-cp3{sys.version_info.minor}-manylinux_2_99_x86_64.whl"
    wheel.write_bytes(b"not read: pip refuses the tags first")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--dry-run", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    line = next(ln for ln in run.stderr.splitlines() if "is not a supported wheel" in ln)
    assert line == f"ERROR: {wheel.name} is not a supported wheel on this platform."
    for text in (line, line.removeprefix("ERROR: ")):
        d = _diag([text, "ERROR: No matching distribution found for dmlab2d"])
        assert d.root.cause_id == "libc_too_old" and d.root.values.get("glibc") == "99", causes_of(d)


@pytest.mark.skipif(
    ctypes.util.find_library("cuda") is not None, reason="an NVIDIA driver's libcuda is here: cuda-python loads it"
)
@pytest.mark.parametrize(
    ("req", "code", "wanted"),
    [
        (
            "cuda-python==12.3.0",
            "from cuda import cuda\ncuda.cuInit(0)",
            "RuntimeError: Failed to dlopen libcuda.so.1",
        ),
        (
            "cuda-python==13.4.4",
            "from cuda.bindings import driver\ndriver.cuInit(0)",
            '"cuda" is an NVIDIA driver library and can only be found via system search',
        ),
    ],
)
def test_cuda_python_without_the_drivers_libcuda(tmp_path, req, code, wanted):
    """NVIDIA's cuda-python, installed from PyPI, calling cuInit on this machine (no NVIDIA driver): 12.3.0 raises
    the RuntimeError of NVIDIA/cuda-python#17 (there: WSL's libcuda outside the loader's path), 13.4.4 the
    DynamicLibNotFoundError of cuda.pathfinder; both name the driver's library not found."""
    py = _venv(tmp_path / "venv")
    _pip_install(py, req)
    run = subprocess.run([py, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert wanted in last, run.stderr[-600:]
    d = _diag(run.stderr.splitlines())
    assert d.root.cause_id == "shared_library_not_found" and d.root.signature == "cuda-python-libcuda-not-loaded"
    assert d.root.confidence >= 0.7 and "/usr/lib/wsl/lib" in d.root.fix


def test_a_package_without_one_of_its_modules_is_unknown_first(tmp_path):
    """The real interpreter importing a module a present package lacks (HRNet's never-built nms.cpu_nms, as in
    leoxiaobin/deep-high-resolution-net.pytorch's thread): the log cannot tell an unbuilt compiled part, a source
    folder in the way and another release of the package apart, so the answer is unknown with those checks, and
    the missing dependency comes second; a missing top-level distribution stays a missing dependency."""
    (tmp_path / "nms").mkdir()
    (tmp_path / "nms" / "__init__.py").write_text("")
    run = subprocess.run(
        [sys.executable, "-c", "import nms.cpu_nms"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    d = _diag(run.stderr.splitlines())
    assert [c.cause_id for c in d.causes[:2]] == ["unknown", "python_dependency_missing"], causes_of(d)
    assert "Python found the package 'nms' but not its module 'nms.cpu_nms'" in d.root.explanation
    assert "print(nms.__file__)" in d.root.fix and d.causes[1].confidence <= 0.55
    run = subprocess.run(
        [sys.executable, "-c", "import nms_not_installed_here"], cwd=tmp_path, capture_output=True, text=True
    )
    d = _diag(run.stderr.splitlines())
    assert d.root.cause_id == "python_dependency_missing" and d.root.signature == "module-not-found-other"


DEV_LOGS = [
    ("install-dmlab2d-wheel-manylinux-2-35-ubuntu18-wsl.log", 222, "libc_too_old", 0.6),
    ("install-mani-skill2-gym-extras-require-setuptools-too-new.log", 222, "dependency_version_conflict", 0.7),
    ("import-cuda-python-wsl-dlopen-libcuda-so-usr-lib-wsl.log", 224, "shared_library_not_found", 0.7),
    ("import-hrnet-nms-cpu-nms-module-not-built.log", 227, "unknown", 0.0),
    # xformers' "xFormers wasn't build with CUDA support" (xformers/ops/fmha/common.py), torch upgraded under it
    ("runtime-runpod-a1111-xformers-no-cuda-ops-torch-upgraded.log", 229, "torch_extension_mismatch", 0.55),
]


@pytest.mark.parametrize(("name", "batch", "cause", "least"), DEV_LOGS)
def test_the_dev_logs_rows_were_written_from_name_their_cause(name, batch, cause, least):
    """Each dev log of batches 214-229 that a row or rule of this session was written from names its cause."""
    assert_dev_log(name, batch, cause, least)


# ------------------------------------------------ rows from the held-out misses, read after the measurement


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_library_of_another_build_without_the_version_node_its_user_needs(tmp_path):
    """The real dynamic loader: a module linked against libfoo.so.1 whose symbols carry the version node
    "libfoo.so.1" (as Red Hat's libssl.so.10 does, huggingface/transformers#21805), then given a libfoo.so.1 of
    another build (Ubuntu's: soname libssl.so.1.0.0, its symbols under other version nodes; here libfoo.so.1.0.0
    and FOO_1.0), fails with "version `libfoo.so.1' not found (required by ...)": the library found
    is another build (shared_library_not_found), named in the explanation."""
    (tmp_path / "foo.c").write_text("int foo(void) { return 1; }\n")
    (tmp_path / "foo.map").write_text("libfoo.so.1 { global: foo; local: *; };\n")
    (tmp_path / "other.map").write_text("FOO_1.0 { global: foo; local: *; };\n")
    (tmp_path / "user.c").write_text("int foo(void);\nint user(void) { return foo(); }\n")
    versioned = tmp_path / "versioned"
    other = tmp_path / "other"
    versioned.mkdir()
    other.mkdir()

    def gcc(*args: str) -> None:
        run = subprocess.run(["gcc", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr

    gcc(
        "-shared",
        "-fPIC",
        "foo.c",
        "-Wl,--version-script=foo.map",
        "-Wl,-soname,libfoo.so.1",
        "-o",
        f"{versioned}/libfoo.so.1",
    )
    (versioned / "libfoo.so").symlink_to("libfoo.so.1")
    gcc("-shared", "-fPIC", "user.c", f"-L{versioned}", "-lfoo", "-o", "libuser.so")
    gcc(
        "-shared",
        "-fPIC",
        "foo.c",
        "-Wl,--version-script=other.map",
        "-Wl,-soname,libfoo.so.1.0.0",
        "-o",
        f"{other}/libfoo.so.1",
    )
    code = f"import ctypes; ctypes.CDLL({str(tmp_path / 'libuser.so')!r})"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={"LD_LIBRARY_PATH": str(other)}
    )
    assert f"version `libfoo.so.1' not found (required by {tmp_path / 'libuser.so'})" in run.stderr, run.stderr
    d = _diag(run.stderr.splitlines())
    assert d.root.cause_id == "shared_library_not_found", causes_of(d)
    assert d.root.signature == "library-version-node-not-found" and "libfoo.so.1" in d.root.explanation


@pytest.mark.parametrize("tool", ["setuptools-rust", "maturin==1.8.0"])
def test_a_rust_extension_build_without_cargo_on_path(tmp_path, tool):
    """setuptools-rust's build_rust and maturin 1.8.0's PEP 517 backend, from PyPI, run with no Rust toolchain on PATH
    (PATH=/usr/bin:/bin; this machine's cargo is elsewhere): each prints its own message (huggingface/tokenizers#1393,
    The-Vibe-Company/quivr#900), which names the missing compiler."""
    py = _venv(tmp_path / "venv")
    _pip_install(py, tool, "setuptools")
    src = tmp_path / "pkg"
    src.mkdir()
    (src / "Cargo.toml").write_text('[package]\nname = "demo"\nversion = "0.1.0"\n[lib]\ncrate-type = ["cdylib"]\n')
    if tool == "setuptools-rust":  # maturin 1.8.0: 1.16 would fetch Rust itself (puccinialin)
        (src / "setup.py").write_text(
            "from setuptools import setup\nfrom setuptools_rust import RustExtension\n"
            "setup(name='demo', version='0.1', rust_extensions=[RustExtension('demo._demo', 'Cargo.toml')])\n"
        )
        argv = [py, "setup.py", "build_rust"]
    else:
        argv = [py, "-c", f"import maturin; maturin.prepare_metadata_for_build_wheel({str(tmp_path / 'meta')!r})"]
    run = subprocess.run(argv, cwd=src, capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode != 0
    d = _diag((run.stdout + run.stderr).splitlines())
    assert d.root.cause_id == "compiler_missing" and d.root.signature == "rust-toolchain-missing", run.stderr[-500:]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_cmake_does_not_recognize_a_sub_command(tmp_path):
    """The real cmake configuring a project that calls a file() sub-command it does not have (pytorch/pytorch#140894:
    torch-xpu-ops' file(REAL_PATH) under CMake 3.18; here a sub-command no CMake has, as REAL_PATH is to 3.18): its
    error names a CMake older than the build files."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\nfile(REAL_PATH_OF_A_NEWER_CMAKE a b)\n"
    )
    run = subprocess.run(
        ["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode != 0 and "file does not recognize sub-command REAL_PATH_OF_A_NEWER_CMAKE" in run.stderr
    d = _diag(run.stderr.splitlines())
    assert d.root.cause_id == "cmake_too_old" and d.root.signature == "cmake-unknown-sub-command", causes_of(d)
    assert "file(REAL_PATH_OF_A_NEWER_CMAKE ...)" in d.root.explanation
