"""Issue 11, session 26: rows written from the logs of batches 106 and later and from the held-out misses
read after session 25's measurement, each checked against the real tool's own output where it runs here,
and against the real logs they were read from."""

from __future__ import annotations

import sys

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
