"""``verify --libtorch`` and ``package libtorch`` for real: CMake ``find_package(Torch)``, Ninja,
g++, and the libtorch inside the installed torch 2.13.0 wheel (``torch/share/cmake/Torch``,
``torch/lib``, ``torch/include``).  Each check compiles a program that includes
``torch/torch.h`` (about a minute on 2 busy cores)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from torchbuild.actions.verify_libtorch import classify, verify_libtorch

pytestmark = pytest.mark.slow


def test_verify_libtorch_of_the_installed_wheel_builds_and_runs(cpu_torch, cli, tmp_path):
    r = cli("verify", "--libtorch", str(cpu_torch), "--json", cwd=tmp_path, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    rep = r.json
    assert rep["ok"] and rep["root"] == str(cpu_torch)
    assert [s["step"] for s in rep["steps"]] == ["configure", "build", "run"]
    assert "TORCHBUILD sum 9" in rep["output"] and rep["version"] == "2.13.0"
    assert rep["cuda_available"] is False
    assert "find_package" not in r.stderr or "ok:" in r.stderr


def test_wrong_prefix_path_is_the_seed_failure_with_its_cause(cpu_torch, tmp_path):
    rep = verify_libtorch(cpu_torch, workdir=str(tmp_path / "w"), cmake_prefix_path=str(tmp_path))
    assert not rep.ok and rep.steps[-1]["step"] == "configure"
    assert rep.cause == "torch_cmake_config_not_found"
    assert any('provided by "Torch"' in e for e in rep.evidence)
    assert rep.fix and str(cpu_torch) in rep.fix


def test_abi_mismatch_is_named(cpu_torch, tmp_path):
    """The program compiled with the other C++ ABI than libtorch (the flag added after
    TORCH_CXX_FLAGS, as a user's own CMAKE_CXX_FLAGS would) fails to link: cxx_abi_mismatch."""
    rep = verify_libtorch(cpu_torch, workdir=str(tmp_path / "w"), extra_cxx_flags="-D_GLIBCXX_USE_CXX11_ABI=0")
    assert not rep.ok and rep.steps[-1]["step"] == "build"
    assert rep.cause == "cxx_abi_mismatch", (rep.explanation, rep.evidence)


def test_package_libtorch_from_the_installed_wheel_is_laid_out_like_the_official_zip(cpu_torch, cli, tmp_path):
    r = cli("package", "libtorch", "--from", str(cpu_torch), "--output-dir", str(tmp_path), "--json", timeout=5400)
    assert r.returncode == 0, r.stderr[-3000:]
    res = r.json
    z = Path(res["zip"])
    assert z.name == "libtorch-cxx11-abi-shared-with-deps-2.13.0+cpu.zip"
    with zipfile.ZipFile(z) as zf:
        names = set(zf.namelist())
        assert zf.read("libtorch/build-version").decode().strip() == "2.13.0+cpu"
        assert len(zf.read("libtorch/build-hash").decode().strip()) == 40
    assert {
        "libtorch/lib/libtorch_cpu.so",
        "libtorch/lib/libc10.so",
        "libtorch/share/cmake/Torch/TorchConfig.cmake",
        "libtorch/include/torch/script.h",
    } <= names
    assert "libtorch/lib/libtorch_python.so" not in names
    v = cli("verify", "--libtorch", str(z), "--json", cwd=tmp_path, timeout=1800)
    assert v.returncode == 0, v.stdout[-3000:] + v.stderr[-3000:]
    assert v.json["root"].endswith("/libtorch")


def test_classify_real_messages():
    assert (
        classify('  Could not find a package configuration file provided by "Torch" with any of\n')[0]
        == "torch_cmake_config_not_found"
    )
    assert (
        classify(
            "./check: error while loading shared libraries: libc10.so: cannot open shared object file: "
            "No such file or directory"
        )[0]
        == "shared_library_not_found"
    )
    assert classify("all good") is None
    # the messages of a CUDA libtorch's CMake config without a toolkit (torch 2.14.1's
    # share/cmake/Caffe2/public/cuda.cmake and Caffe2Config.cmake, read from the wheel)
    assert (
        classify(
            "CMake Warning at .../Caffe2/public/cuda.cmake:40 (message):\n  PyTorch: CUDA cannot be found.  "
            "Depending on whether you are building\n"
        )[0]
        == "cuda_toolkit_not_found"
    )
    assert (
        classify("  Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries.  Please set the")[0]
        == "cuda_toolkit_not_found"
    )
