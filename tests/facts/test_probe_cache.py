"""The probe cache: version answers of compiled executables are reused while the file is
unchanged (ccache's ``compiler_check = mtime`` idea), and never for scripts.

Real executables of this machine are copied into a temporary folder (``/usr/bin/echo``
and ``/usr/bin/env`` from coreutils, which answer ``--version`` differently), so the
tests can replace them without touching the system.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from torchbuild.facts import _util

ECHO = shutil.which("echo") and os.path.realpath(shutil.which("echo"))
ENV = shutil.which("env") and os.path.realpath(shutil.which("env"))
pytestmark = pytest.mark.skipif(not (ECHO and ENV), reason="coreutils echo/env not found")


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A private torchbuild cache folder and an empty in-memory memo."""
    monkeypatch.setenv("TORCHBUILD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_util, "_memo", None)
    return tmp_path / "cache"


def _entries(cache: Path) -> dict:
    return json.loads((cache / _util.PROBE_CACHE_FILE).read_text())


def test_binary_answer_is_remembered_and_reused(tmp_path, cache, monkeypatch):
    tool = tmp_path / "tool"
    shutil.copy2(ECHO, tool)
    first = _util.run_version([str(tool), "--version"])
    expected = subprocess.run([ECHO, "--version"], capture_output=True, text=True).stdout
    assert first is not None and first.stdout == expected
    assert len(_entries(cache)) == 1

    # a second process (memo reloaded from disk) answers without running anything
    monkeypatch.setattr(_util, "_memo", None)
    ran: list[list[str]] = []
    monkeypatch.setattr(_util, "run", lambda argv, **kw: ran.append(argv))
    again = _util.run_version([str(tool), "--version"])
    assert ran == [] and again == first


def test_replaced_or_touched_executable_is_asked_again(tmp_path, cache):
    tool = tmp_path / "tool"
    shutil.copy2(ECHO, tool)
    echo_answer = _util.run_version([str(tool), "--version"]).stdout
    tmp = tmp_path / "new"
    shutil.copy2(ENV, tmp)
    os.replace(tmp, tool)  # an upgrade: a new file under the same name
    env_answer = _util.run_version([str(tool), "--version"]).stdout
    assert env_answer == subprocess.run([ENV, "--version"], capture_output=True, text=True).stdout
    assert env_answer != echo_answer
    # rewritten in place (same inode, size and mtime put back): only the ctime differs,
    # and that is enough for the executable to be asked again
    st = tool.stat()
    tool.write_bytes(tool.read_bytes())
    os.utime(tool, ns=(st.st_atime_ns, st.st_mtime_ns))
    st2 = tool.stat()
    assert (st2.st_ino, st2.st_size, st2.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)
    before = len(_entries(cache))
    assert _util.run_version([str(tool), "--version"]).stdout == env_answer
    assert len(_entries(cache)) == before + 1


def test_other_arguments_are_other_entries(tmp_path, cache):
    tool = tmp_path / "tool"
    shutil.copy2(ECHO, tool)
    assert _util.run_version([str(tool), "a"]).stdout == "a\n"
    assert _util.run_version([str(tool), "b"]).stdout == "b\n"
    assert len(_entries(cache)) == 2


def test_scripts_are_always_run(tmp_path, cache):
    """A wrapper script (pyenv shims, /usr/local/bin/nvcc here) may answer for another
    binary that changes behind it, so it is never remembered."""
    script = tmp_path / "wrapper"
    script.write_text('#!/bin/sh\ncat "$0.answer"\n')
    script.chmod(0o755)
    Path(f"{script}.answer").write_text("one\n")
    assert _util.run_version([str(script), "--version"]).stdout == "one\n"
    Path(f"{script}.answer").write_text("two\n")
    assert _util.run_version([str(script), "--version"]).stdout == "two\n"
    assert not (cache / _util.PROBE_CACHE_FILE).exists()


def test_missing_program_is_none_and_not_remembered(tmp_path, cache):
    assert _util.run_version([str(tmp_path / "nope"), "--version"]) is None
    assert not (cache / _util.PROBE_CACHE_FILE).exists()


def test_corrupt_or_unwritable_cache_is_ignored(tmp_path, cache, monkeypatch):
    cache.mkdir(parents=True)
    (cache / _util.PROBE_CACHE_FILE).write_text("{not json")
    tool = tmp_path / "tool"
    shutil.copy2(ECHO, tool)
    assert _util.run_version([str(tool), "x"]).stdout == "x\n"
    assert len(_entries(cache)) == 1  # replaced by a valid file
    # a cache folder that cannot be created: the answer is still right
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TORCHBUILD_CACHE", str(blocker / "sub"))
    monkeypatch.setattr(_util, "_memo", None)
    assert _util.run_version([str(tool), "y"]).stdout == "y\n"
