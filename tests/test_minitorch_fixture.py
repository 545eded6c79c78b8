"""The minitorch fixture (tests/support/minitorch.py) builds for real and fails for real.

Everything here runs the real tools: git with a local submodule, plain ``pip install -e .
-v --no-build-isolation`` in a venv (never the global Python, which has the real torch),
CMake, Ninja and GCC.  A full build takes about 10 s on 2 cores.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from support.git import git, git_out
from support.minitorch import INJECTED_ERROR, SUBMODULE_PATH, build_env, make_build_venv, make_minitorch
from torchbuild.actions.verify import Expectations, verify_torch

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory) -> Path:
    return make_build_venv(tmp_path_factory.mktemp("venv") / "venv")


def pip_develop(python: Path, tree: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), "-m", "pip", "install", "-e", ".", "-v", "--no-build-isolation", "--no-deps"],
        cwd=tree,
        env=build_env(python, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_python(python: Path, code: str, cwd: Path) -> str:
    proc = subprocess.run([str(python), "-I", "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_tree_looks_like_pytorch(tmp_path):
    tree = make_minitorch(tmp_path / "pytorch", init_submodule=False, version="2.12.0a0")
    for rel in ["setup.py", "version.txt", "c10", "aten", "torch/__init__.py", ".gitmodules", "CMakeLists.txt"]:
        assert (tree / rel).exists(), rel
    assert (tree / "version.txt").read_text().strip() == "2.12.0a0"
    cmake = (tree / "CMakeLists.txt").read_text()
    assert re.search(r"^cmake_minimum_required\(VERSION 3\.\d+", cmake, re.M)
    assert re.search(r"^option\(USE_CUDA ", cmake, re.M)
    assert re.search(r'cmake_dependent_option\(\s*USE_CUDNN "Use cuDNN" ON\s+"USE_CUDA" OFF\)', cmake)
    assert f"path = {SUBMODULE_PATH}" in (tree / ".gitmodules").read_text()
    status = git("submodule", "status", cwd=tree)
    assert status.stdout.startswith("-") and SUBMODULE_PATH in status.stdout  # declared, not initialised
    assert list((tree / SUBMODULE_PATH).iterdir()) == []
    assert git("status", "--porcelain", cwd=tree).stdout == ""


def test_vendored_variant_has_no_gitmodules(tmp_path):
    tree = make_minitorch(tmp_path / "t", submodule=False)
    assert not (tree / ".gitmodules").exists()
    assert (tree / SUBMODULE_PATH / "CMakeLists.txt").is_file()


def test_develop_build_imports_and_runs_an_op(venv_python, tmp_path):
    tree = make_minitorch(tmp_path / "pytorch")
    proc = pip_develop(venv_python, tree)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    # PyTorch's interface: cmake configure with Ninja and forwarded -D values, ninja's progress
    configure = next(line for line in out.splitlines() if "-GNinja" in line)
    assert "-DCMAKE_BUILD_TYPE=Release" in configure and "-DBUILD_TEST=True" in configure
    assert f"-DCMAKE_INSTALL_PREFIX={tree}/torch" in configure
    progress = [tuple(map(int, m)) for m in re.findall(r"\[(\d+)/(\d+)\]", out)]
    assert len(progress) >= 15 and progress[-1][0] >= progress[-1][1] - 1
    assert "--build . --target install --config Release" in out
    assert (tree / "torch" / "lib" / "libc10.so").is_file() and (tree / "torch" / "lib" / "libtorch_cpu.so").is_file()

    sha = git_out("rev-parse", "HEAD", cwd=tree)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    got = run_python(
        venv_python,
        "import torch; print(torch.__file__); print(torch.__version__); print(torch.version.git_version);"
        "print(torch._C._add([1, 2.5], [3, 4])); print(torch.add(torch.tensor([1.0]), torch.tensor([2.0])).tolist());"
        "print(torch.version.cuda); print(torch._C._GLIBCXX_USE_CXX11_ABI)",
        elsewhere,
    ).splitlines()
    assert got[0] == str(tree / "torch" / "__init__.py")
    assert got[1] == f"2.13.0+git{sha[:7]}"
    assert got[2] == sha
    assert got[3] == "[4.0, 6.5]" and got[4] == "[3.0]"
    assert got[5] == "None" and got[6] == "True"

    show = run_python(venv_python, "import torch; print(torch.__config__.show(), end='')", elsewhere)
    assert show.startswith("PyTorch built with:\n  - GCC ")
    settings = show.splitlines()[-1]
    assert settings.startswith("  - Build settings: ") and settings.endswith(", ")
    assert "BUILD_TYPE=Release, " in settings and "TORCH_VERSION=2.13.0, " in settings and "USE_CUDA=OFF, " in settings
    assert f"COMMIT_SHA={sha}, " in settings
    assert "ATen/Parallel" in run_python(
        venv_python, "import torch; print(torch.__config__.parallel_info())", elsewhere
    )

    so = next((tree / "torch").glob("_C*.so"))
    ldd = subprocess.run(["ldd", str(so)], capture_output=True, text=True, timeout=30).stdout
    assert "not found" not in ldd and f"{tree}/torch/lib/libtorch_cpu.so" in ldd
    assert git("status", "--porcelain", cwd=tree).stdout == ""  # every build output is ignored

    # torchbuild verify on the develop build: passes with the plan's values, fails on another build type
    report = verify_torch(str(venv_python), Expectations(version="2.13.0", cuda="", build_type="Debug"))
    assert {c.id for c in report.failed} == {"build_type"}, report.failed
    assert report.facts["torch_dir"] == str(tree / "torch") and report.check("op").ok
    assert set(report.facts["files"]) == {
        str(so),
        str(tree / "torch/lib/libc10.so"),
        str(tree / "torch/lib/libtorch_cpu.so"),
    }

    # The stale-settings trap: with build/CMakeCache.txt present, a changed variable is ignored...
    again = pip_develop(venv_python, tree, USE_DISTRIBUTED="0", MAX_JOBS="1")
    out = again.stdout + again.stderr
    assert again.returncode == 0, out[-4000:]
    assert "-GNinja" not in out and "--config Release -j 1" in out
    show = run_python(venv_python, "import torch; print(torch.__config__.show())", elsewhere)
    assert "USE_DISTRIBUTED=ON, " in show
    # ... until the cache is deleted (CMAKE_FRESH=1): the value then reaches CMake verbatim.
    fresh = pip_develop(venv_python, tree, USE_DISTRIBUTED="0", CMAKE_FRESH="1")
    out = fresh.stdout + fresh.stderr
    assert fresh.returncode == 0, out[-4000:]
    assert "-DUSE_DISTRIBUTED=0" in out
    show = run_python(venv_python, "import torch; print(torch.__config__.show())", elsewhere)
    assert "USE_DISTRIBUTED=0, " in show and "USE_GLOO=OFF, " in show  # dependent option forced OFF


def test_injected_error_fails_at_its_file_and_line(venv_python, tmp_path):
    tree = make_minitorch(tmp_path / "pytorch", inject_error=True)
    proc = pip_develop(venv_python, tree, MAX_JOBS="2")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    location = f"{tree}/{INJECTED_ERROR.file}:{INJECTED_ERROR.line}:"
    errors = [line.strip() for line in out.splitlines() if location in line and "error:" in line]
    assert errors, out[-4000:]
    assert INJECTED_ERROR.identifier in errors[0] and INJECTED_ERROR.message in errors[0]
    assert "FAILED: " in out and "ninja: build stopped: subcommand failed." in out
    bad_line = (tree / INJECTED_ERROR.file).read_text().splitlines()[INJECTED_ERROR.line - 1]
    assert INJECTED_ERROR.identifier in bad_line


def test_missing_submodule_stops_the_build(venv_python, tmp_path):
    tree = make_minitorch(tmp_path / "pytorch", init_submodule=False)
    proc = pip_develop(venv_python, tree)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"in {SUBMODULE_PATH}" in out and "Could not find any of CMakeLists.txt" in out
    assert "git submodule update --init --recursive" in out
    assert not re.search(r"\[\d+/\d+\]", out)  # stopped before compiling
    # Without setup.py's check (USE_SYSTEM_LIBS skips it, as in PyTorch) CMake itself fails:
    # the submodule really is needed.
    proc = pip_develop(venv_python, tree, USE_SYSTEM_LIBS="1")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert re.search(r"third_party/minifmt\s+does not contain a CMakeLists.txt file", out), out[-3000:]
