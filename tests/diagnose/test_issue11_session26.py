"""Issue 11, session 26: rows written from the logs of batches 106 and later and from the held-out misses
read after session 25's measurement, each checked against the real tool's own output where it runs here,
and against the real logs they were read from."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import ROWS
from .conftest import causes_of as _causes
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag
from .conftest import run_tool as _run


@pytest.mark.parametrize(("module", "confidence"), [("graph_cpu", 0.6), ("voxel_ops", 0.6), ("roi_align_op", 0.6)])
def test_a_missing_module_named_like_a_compiled_extension_is_not_a_confident_missing_dependency(module, confidence):
    """``No module named 'graph_cpu'`` is a package's own compiled module that was never built (k-gnn,
    chrsmrrs/k-gnn#12, batch 88 held-out), not a PyPI package to install: below 0.7, as ``*_cuda``/``_k2``.
    The message is the real Python's."""
    msg = _run([sys.executable, "-c", f"import {module}"]).stderr.strip().splitlines()
    d = _diag(msg)
    assert d.root.cause_id == "python_dependency_missing" and d.root.confidence == confidence, _causes(d)
    assert d.root.values["module"] == module


def test_a_missing_pypi_module_stays_a_confident_missing_dependency():
    """The real Python's message for a plain PyPI module (yaml, packaging) keeps 0.8."""
    msg = _run([sys.executable, "-c", "import yaml_not_installed_here"]).stderr.strip().splitlines()
    d = _diag(msg)
    assert d.root.cause_id == "python_dependency_missing" and d.root.confidence == 0.8, _causes(d)


def test_the_k_gnn_log_itself():
    name = "import-k-gnn-graph-cpu-extension-not-built.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == "python_dependency_missing" and d.root.confidence < 0.7, _causes(d)
    assert ROWS[name]["cause"] == "unknown"


def test_yoloxs_setup_asking_for_torch_is_torch_missing_in_the_build_env():
    """YOLOX's setup.py asserts 'torch is required for pre-compiling ops' when the build cannot import torch
    (pip install -e . under a newer pip builds in isolation; Megvii-BaseDetection/YOLOX#1368, batch 111 dev)."""
    name = "yolox-pip-install-e-torch-required-precompiling-ops.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "torch_missing_in_build_env", _causes(d)
    assert d.root.confidence >= 0.7


def test_cupys_build_summary_naming_libraries_it_cannot_link():
    """CuPy's source build drops a module whose link test failed ('-> Cannot link libraries: [...]'); on WSL2
    libcuda is in /usr/lib/wsl/lib, off the link path (cupy/cupy#9950, batch 115 dev)."""
    name = next(f for f in ROWS if f.startswith("build-cupy-source-wsl2-jitify"))
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "system_library_missing", _causes(d)
    assert "'cuda'" in d.root.values["libs"] and "/usr/lib/wsl/lib" in d.root.fix


def test_dgl_1_sparse_library_missing_for_this_torch():
    """DGL 1.x ships libdgl_sparse_pytorch_<torch>.so per torch release, as DGL 2.x does graphbolt
    (dmlc/dgl#5442, batch 118 dev: DGL 1.0.1 beside torch 1.9.0)."""
    name = next(f for f in ROWS if f.startswith("import-dgl-101-cu113-sparse-library-missing"))
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "torch_extension_mismatch", _causes(d)
    assert d.root.values["torch"] == "1.9.0" and d.root.values["part"] == "sparse"
    assert "sparse library" in d.root.explanation


def test_pips_conflict_line_with_environment_markers(tmp_path):
    """pip prints a requirement with its environment markers ('torch 2.4.0 requires triton==3.0.0;
    platform_system == "Linux" ..., but you have triton 0.0.0', sasha0552/pascal-pkgs-ci#2, batch 119 dev). The
    line is the real pip's: a local package requiring a marker-qualified version of another, installed over it."""
    name = next(f for f in ROWS if f.startswith("install-pascal-pkgs-triton-000"))
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "dependency_version_conflict", _causes(d)
    assert d.root.values["req"] == "triton==3.0.0" and d.root.values["have"] == "triton 0.0.0"
    # the real pip: tbpkg_a needs tbpkg_b==2.0 on Linux; tbpkg_b 1.0 is installed afterwards (hand-made wheels:
    # a fresh venv has no setuptools to build an sdist)
    wheels = [
        _wheel(tmp_path, "tbpkg_b", "1.0", None),
        _wheel(tmp_path, "tbpkg_b", "2.0", None),
        _wheel(tmp_path, "tbpkg_a", "1.0", 'tbpkg_b==2.0; platform_system == "Linux"'),
    ]
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index"]
    assert _run([*pip, str(wheels[1]), str(wheels[2])]).returncode == 0
    out = _run([*pip, str(wheels[0])])
    d = _diag((out.stdout + out.stderr).splitlines())
    assert d.root.cause_id == "dependency_version_conflict", (out.stdout + out.stderr, _causes(d))
    assert 'requires tbpkg_b==2.0; platform_system == "Linux", but you have' in out.stdout + out.stderr
    assert d.root.values["req"] == "tbpkg_b==2.0" and d.root.values["have"] == "tbpkg-b 1.0", d.root.values


def _wheel(folder: Path, name: str, version: str, requires: str | None) -> Path:
    """A pure-Python wheel with no code, only metadata (``Requires-Dist: requires``): what pip needs to install it."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + (f"Requires-Dist: {requires}\n" if requires else ""),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: torchbuild-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for arc, text in files.items():
            z.writestr(arc, text)
        z.writestr(f"{info}/RECORD", "".join(f"{arc},,\n" for arc in files) + f"{info}/RECORD,,\n")
    return path
