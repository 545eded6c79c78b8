"""``torchbuild build`` on a PyTorch-kind tree, for real.

The tree is minitorch (tests/support/minitorch.py): a generated git repository with
PyTorch's setuptools-era build interface (setup.py forwarding USE_*/BUILD_*/CMAKE_*
to CMake + Ninja, two shared libraries and the ``torch._C`` extension, a submodule
that is a local git repository).  It is built in develop mode into a venv that has no
other torch, through the real CLI, so progress, log, record and verify are the real ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support.git import git
from support.minitorch import INJECTED_ERROR, SUBMODULE_PATH, make_build_venv
from support.minitorch import make_minitorch as _make_minitorch

# minitorch says it is PyTorch 2.8.0: the release whose needs (CMake >= 3.18, GCC >= 9,
# Python 3.9-3.13; pytorch-build-facts.md §3-4) this machine meets, as the tree's own
# CMakeLists.txt does.  (2.10 and later need CMake 3.27; this machine has 3.25.)
VERSION = "2.8.0"


def make_minitorch(dest, **kw):
    return _make_minitorch(dest, version=VERSION, **kw)


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory) -> Path:
    return make_build_venv(tmp_path_factory.mktemp("mt-venv") / "venv")


@pytest.fixture(scope="module")
def built(tmp_path_factory, venv_python, cli):
    tree = make_minitorch(tmp_path_factory.mktemp("mt") / "pytorch")
    r = cli("build", str(tree), "--python", str(venv_python), "--no-cuda", "--cache", "none", "--json")
    return tree, r


def test_develop_build_succeeds_with_progress_log_record_and_verify(built, venv_python):
    tree, r = built
    assert r.returncode == 0, r.stderr[-5000:]
    res = r.json
    assert res["status"] == "ok" and res["plan"]["mode"]["value"] == "develop"
    # progress: plain ninja [N/M] lines when not on a terminal
    assert re.search(r"^\[compile\] \d+/\d+ \(", r.stderr, re.M) or re.search(r"^\[(compile|link)\] ", r.stderr, re.M)
    assert "+ " in r.stderr and "pip install -e . -v --no-build-isolation" in r.stderr  # the command is echoed
    log = Path(res["log"])
    assert log.parent == tree / ".torchbuild" / "logs"
    text = log.read_text(errors="replace")
    assert re.search(r"^\s*\[\d+/\d+\] ", text, re.M) and "-GNinja" in text
    rec = json.loads(Path(res["record"]).read_text())
    assert (
        rec["outcome"] == "ok" and rec["source"]["git_sha"] and rec["source"]["submodules"][0]["path"] == SUBMODULE_PATH
    )
    assert rec["verify"]["ok"] is True
    assert {"compile"} <= set(rec["phases"])
    # git status stays clean: .torchbuild ignores itself
    assert ".torchbuild" not in git("status", "--porcelain", cwd=tree).stdout


def test_changed_option_reconfigures_instead_of_being_ignored(built, venv_python, cli):
    tree, first = built
    assert first.returncode == 0
    r = cli(
        "build",
        str(tree),
        "--python",
        str(venv_python),
        "--no-cuda",
        "--cache",
        "none",
        "--set",
        "BUILD_TEST=1",
        "--json",
    )
    assert r.returncode == 0, r.stderr[-5000:]
    assert "reconfigure" in r.stderr and "BUILD_TEST" in r.stderr
    cache = (tree / "build" / "CMakeCache.txt").read_text()
    assert re.search(r"^BUILD_TEST:BOOL=(1|ON|TRUE|True)$", cache, re.M)
    assert list((tree / "build").glob("CMakeCache.txt.torchbuild-*"))  # old cache kept, not deleted
    logs = sorted((tree / ".torchbuild" / "logs").glob("*.log"))
    assert len(logs) >= 2  # the first log is still there


def test_rebuild_of_unchanged_tree_is_incremental_and_a_touched_file_recompiles_alone(built, venv_python, cli):
    tree, first = built
    assert first.returncode == 0
    args = (
        "build",
        str(tree),
        "--python",
        str(venv_python),
        "--no-cuda",
        "--cache",
        "none",
        "--set",
        "BUILD_TEST=1",
        "--json",
    )
    warm = cli(*args)  # same settings as the build before (or the first after a reconfigure)
    assert warm.returncode == 0, warm.stderr[-3000:]
    noop = cli(*args)
    assert noop.returncode == 0, noop.stderr[-3000:]
    plan = noop.json["plan"]
    assert plan["incremental"]["value"] is True
    assert plan["commands"][0]["argv"][:3] == ["cmake", "--build", str(tree / "build")]
    assert "pip install" not in noop.stderr and "verify: skipped" in noop.stderr
    src = tree / "c10" / "core" / "Allocator.cpp"
    src.write_text(src.read_text() + "\n// touched\n")
    again = cli(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    log = Path(again.json["log"]).read_text()
    assert "Allocator.cpp.o" in log and "Device.cpp.o" not in log  # only the touched file recompiled
    assert again.json["verify"]["ok"] is True and "skipped" not in again.json["verify"]
    full = cli(*args, "--full")
    assert (
        full.returncode == 0 and full.json["plan"]["incremental"]["value"] is False and "pip install -e" in full.stderr
    )


def test_injected_compile_error_names_file_line_and_message(tmp_path, venv_python, cli):
    tree = make_minitorch(tmp_path / "pytorch", inject_error=True)
    r = cli("build", str(tree), "--python", str(venv_python), "--no-cuda", "--cache", "none", "--json")
    assert r.returncode == 1, r.stderr[-3000:]
    assert f"{INJECTED_ERROR.file}:{INJECTED_ERROR.line}" in r.stderr
    assert "error:" in r.stderr
    res = r.json
    assert (
        res["status"] == "failed"
        and res["wheel"] is None
        and Path(res["log"]).is_file()
        and Path(res["record"]).is_file()
    )
    first = res["diagnosis"]["first_error"]
    assert INJECTED_ERROR.file in first["text"] and str(INJECTED_ERROR.line) in first["text"]
    logs = list((tree / ".torchbuild" / "logs").glob("*.log"))
    assert len(logs) == 1 and "FAILED" in logs[0].read_text(errors="replace")
    rec = json.loads(next((tree / ".torchbuild" / "records").glob("*.json")).read_text())
    assert rec["outcome"] == "failed" and rec["diagnosis"]["causes"]
    assert (tree / "build" / "build.ninja").exists()  # the tree is kept: a rerun resumes


def test_missing_submodule_is_stopped_by_doctor_before_compiling(tmp_path, venv_python, cli):
    tree = make_minitorch(tmp_path / "pytorch", init_submodule=False)
    r = cli("build", str(tree), "--python", str(venv_python), "--no-cuda", "--cache", "none")
    assert r.returncode == 1
    assert (
        "[submodules]" in r.stderr
        and "submodule update --init --recursive" in r.stderr
        and "third_party/minifmt" in r.stderr
    )
    assert "nothing was compiled" in r.stderr
    assert not (tree / "build").exists()
