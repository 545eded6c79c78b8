"""Where the real torch packages the packaging tests read are.

* torch 2.13.0 (CPU) is installed in the interpreter running the tests (the project's test
  environment installs ``torch==2.13.0``).
* torch 2.14.1 (CUDA 13.0) is a CUDA build that cannot run here (no GPU), but its files can be
  read: ``TORCHBUILD_TEST_CUDA_TORCH`` names its ``torch`` folder, else the first
  ``site-packages/torch`` of a venv under ``/work/venvs`` whose ``version.py`` names a CUDA
  (``python -m venv V && V/bin/pip install torch==2.14.1``), else the real wheel file
  (``TORCHBUILD_TEST_CUDA_WHEEL``, or pip's local copy in ``/opt/pypi-more/files``): its
  ``torch/lib``, ``version.py`` and ``.dist-info`` are unpacked into a temporary
  ``site-packages`` (without the ``nvidia-*`` wheels beside it).  Tests that need it are
  skipped, saying so, when there is none.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import zipfile
from pathlib import Path

import pytest


def _torch_dir() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@pytest.fixture(scope="session")
def cpu_torch() -> Path:
    """The ``torch`` folder of the installed torch 2.13.0 (CPU)."""
    d = _torch_dir()
    if d is None or not (d / "lib").is_dir():
        pytest.skip("torch is not installed in the test interpreter (pip install torch==2.13.0)")
    return d


@pytest.fixture(scope="session")
def cuda_torch(tmp_path_factory) -> Path:
    """The ``torch`` folder of a CUDA torch (2.14.1+cu130), read only."""
    cands = (
        [os.environ["TORCHBUILD_TEST_CUDA_TORCH"]]
        if os.environ.get("TORCHBUILD_TEST_CUDA_TORCH")
        else sorted(glob.glob("/work/venvs/*/lib/python3*/site-packages/torch"))
    )
    for c in cands:
        text = Path(c, "version.py").read_text() if Path(c, "version.py").is_file() else ""
        if (
            re.search(r"^cuda\s*(?::[^=\n]*)?=\s*['\"]\d", text, re.MULTILINE)
            and Path(c, "lib", "libtorch_cuda.so").is_file()
        ):
            return Path(c)
    wheels = (
        [os.environ["TORCHBUILD_TEST_CUDA_WHEEL"]]
        if os.environ.get("TORCHBUILD_TEST_CUDA_WHEEL")
        else sorted(glob.glob("/opt/pypi-more/files/torch-2.14.1-cp3*-manylinux_2_28_x86_64.whl"))
    )
    for w in wheels:
        if not zipfile.is_zipfile(w):
            continue
        site = tmp_path_factory.mktemp("cuda-wheel") / "site-packages"
        with zipfile.ZipFile(w) as zf:
            names = [
                n for n in zf.namelist() if n.startswith("torch/lib/") or n == "torch/version.py" or ".dist-info/" in n
            ]
            zf.extractall(site, members=names)
        return site / "torch"
    pytest.skip(
        "no CUDA torch to read (set TORCHBUILD_TEST_CUDA_TORCH to a torch 2.14.1+cu130 folder, or "
        "TORCHBUILD_TEST_CUDA_WHEEL to its wheel)"
    )
