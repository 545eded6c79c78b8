"""Errors that PyTorch 2.6.0's setup.py helpers and torch's extension builder print, produced by running their
real code (the function copied out of the real tree, or the installed torch), then diagnosed."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from torchbuild.api import diagnose


def _function(path: Path, name: str) -> str:
    """The source of the top-level function ``name`` of the Python file ``path``, as written there."""
    text = path.read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    segment = ast.get_source_segment(text, node)
    assert segment is not None
    return segment


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="as root, needs setpriv to run as another user"
)
def test_a_build_folder_the_user_cannot_create_is_a_permission_problem(orig_tree, tmp_path):
    """tools/setup_helpers/cmake.py's ``_mkdir_p`` (copied from the real tree) asked to create build/ in a
    folder the user cannot write (a checkout owned by root: run here as user nobody when the tests run as
    root): "RuntimeError: Failed to create folder ...: Permission denied" is ``permission_denied``."""
    code = _function(orig_tree / "tools" / "setup_helpers" / "cmake.py", "_mkdir_p")
    # a folder every user can reach (pytest's own tmp_path is private to its owner), read-only below
    top = Path(tempfile.mkdtemp(prefix="torchbuild-perm-"))
    try:
        top.chmod(0o755)
        locked = top / "checkout"
        locked.mkdir(mode=0o555)
        locked.chmod(0o555)
        cmd = [sys.executable, "-c", f"import os\n{code}\n_mkdir_p({str(locked / 'build')!r})\n"]
        if os.geteuid() == 0:
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(top)
    assert "RuntimeError: Failed to create folder" in proc.stderr and "Permission denied" in proc.stderr, proc.stderr
    log = tmp_path / "build.log"
    log.write_text(proc.stderr)
    root = diagnose(log).causes[0]  # the chained PermissionError is the first error
    assert root.cause_id == "permission_denied" and root.confidence >= 0.7
    assert str(locked / "build") in root.explanation
    # a paste of setup.py's last line alone (the traceback above it cut) names it too
    last = next(ln for ln in reversed(proc.stderr.splitlines()) if ln.startswith("RuntimeError: Failed to create"))
    log.write_text(last + "\n")
    root = diagnose(log).causes[0]
    assert (root.cause_id, root.signature) == ("permission_denied", "pytorch-setup-build-folder-permission")
    assert str(locked / "build") in root.explanation


def test_no_sycl_runtime_for_an_extension_is_a_missing_gpu_toolkit(tmp_path):
    """The installed torch's extension builder asked for the SYCL toolkit's path with none installed
    (``_join_sycl_home``, which an extension with SYCL sources calls): its OSError names the missing toolkit,
    ``cuda_toolkit_not_found`` (the GPU toolkit missing, as CUDA_HOME for CUDA)."""
    pytest.importorskip("torch")
    env = {k: v for k, v in os.environ.items() if k not in ("SYCL_HOME", "CMPLR_ROOT", "ONEAPI_ROOT")}
    proc = subprocess.run(
        [sys.executable, "-c", "import torch.utils.cpp_extension as c; c._join_sycl_home('bin')"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode != 0 and "OSError: SYCL" in proc.stderr, proc.stderr[-2000:]
    log = tmp_path / "build.log"
    log.write_text(proc.stderr)
    root = diagnose(log).causes[0]
    assert (root.cause_id, root.signature) == ("cuda_toolkit_not_found", "cpp-extension-sycl-home-not-set")
