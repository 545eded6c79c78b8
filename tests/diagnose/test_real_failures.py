"""Real failures produced here and diagnosed: nvcc with an unsupported -arch, a C++
extension with an injected compile error built by pip, and an sdist that imports torch
in setup.py built with pip's build isolation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchbuild.actions.diagnose_log import diagnose_file

from .conftest import write_sdist

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def _torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return True


def _run_to_log(cmd, cwd, log: Path, timeout=300, env=None) -> int:
    with open(log, "wb") as f:
        p = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, env=env)
    return p.returncode


@pytest.mark.skipif(NVCC is None, reason="no nvcc on this machine")
def test_nvcc_unsupported_arch_real(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    log = tmp_path / "nvcc.log"
    rc = _run_to_log([NVCC, "-arch=sm_70", "-c", str(cu), "-o", str(tmp_path / "k.o")], tmp_path, log)
    if rc == 0:
        pytest.skip("this nvcc still supports sm_70")
    d = diagnose_file(log)
    assert d.root.cause_id == "cuda_arch_unsupported", log.read_text()
    assert "70" in d.root.values.get("arch", "")
    assert d.root.confidence >= 0.7


@pytest.mark.skipif(not _torch_available(), reason="torch is not installed")
def test_cpp_extension_injected_error_real(tmp_path):
    pkg = tmp_path / "extpkg"
    pkg.mkdir()
    (pkg / "setup.py").write_text(
        textwrap.dedent("""
        from setuptools import setup
        from torch.utils.cpp_extension import BuildExtension, CppExtension
        setup(name="tb_ext_broken", version="0.0.1",
              ext_modules=[CppExtension("tb_ext_broken", ["broken.cpp"])],  # torch include/link flags
              cmdclass={"build_ext": BuildExtension})
    """)
    )
    # no torch header in the broken file: the compile fails in a second, not a minute
    (pkg / "broken.cpp").write_text(
        textwrap.dedent("""
        #include <cstdio>
        int add_one(int x) { return x + not_declared_anywhere; }
        int main() { std::printf("%d", add_one(1)); }
    """)
    )
    log = tmp_path / "pip.log"
    env = dict(os.environ, MAX_JOBS="1")
    rc = _run_to_log(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-v",
            "-w",
            str(tmp_path / "w"),
            str(pkg),
        ],
        tmp_path,
        log,
        timeout=600,
        env=env,
    )
    assert rc != 0
    d = diagnose_file(log)
    fe = d.first_error
    assert fe is not None, log.read_text()[-3000:]
    assert "broken.cpp:3" in fe.text and "not_declared_anywhere" in fe.text
    assert d.root.line == fe.line
    # the line number points at that text in the log
    assert log.read_text(errors="replace").splitlines()[fe.line - 1].strip().endswith(fe.text.strip()[-40:])


@pytest.mark.skipif(not _torch_available(), reason="torch is not installed")
def test_isolated_build_without_torch_real(tmp_path):
    pkg = write_sdist(
        tmp_path / "needs_torch",
        "import torch\nfrom setuptools import setup\nsetup(name='tb-needs-torch', version='0.0.1')\n",
    )
    log = tmp_path / "iso.log"
    rc = _run_to_log(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "w"), str(pkg)],
        tmp_path,
        log,
        timeout=300,
    )
    assert rc != 0
    text = log.read_text(errors="replace")
    if "No module named 'torch'" not in text:
        pytest.skip("pip could not set up the isolated build (no index reachable?)")
    d = diagnose_file(log)
    assert d.root.cause_id == "torch_missing_in_build_env", text[-2000:]
    assert d.root.confidence >= 0.7
