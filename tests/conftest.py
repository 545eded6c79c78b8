"""Fixtures shared across the test suite.

Real builds are slow on 2 cores (torch-scatter CPU: about 2.5 min), so one real build
serves every test that needs it: :func:`scatter_build` builds the real PyPI sdist
``torch-scatter==2.1.2`` once per session with the real CLI, into a venv that sees the
packages of the Python running the tests (torch 2.13.0; :mod:`support.venvs`) so nothing
is installed into that Python.  :func:`cuda_torch_python` installs the CUDA build of torch
2.14.1 into a venv of its own, once per session, for every test that needs it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.venvs import overlay_venv
from support.xdist import JOINED, xdist_groups

REPO = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config, items):
    """Mark every test with its :func:`support.xdist.xdist_groups` group (used by ``--dist loadgroup``) and move
    the groups that share a slow session fixture to the front, so that a worker starts each of them first and the
    quick tests fill the other worker meanwhile (a group handed out last would run alone at the end)."""
    groups = xdist_groups([(item.nodeid.split("::")[0], set(getattr(item, "fixturenames", ()))) for item in items])
    joined = set()
    for item, group in zip(items, groups, strict=True):
        item.add_marker(pytest.mark.xdist_group(group))
        if group.startswith(JOINED):
            joined.add(id(item))
    items.sort(key=lambda item: id(item) not in joined)  # a stable sort: each part keeps the collection order


@dataclass
class CliRun:
    """A finished ``torchbuild`` run: exit code, stdout, stderr, and stdout parsed as JSON
    when it is JSON."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


CACHE_PREFIXES = ("SCCACHE_", "CCACHE_", "DISTCC_")


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 900,
    clean_cache_env: bool = False,
) -> CliRun:
    """Run ``python -m torchbuild ARGS`` as a user would (a separate process, stdin closed,
    not a terminal) and return its result.  ``clean_cache_env`` drops the caller's
    ``SCCACHE_*``/``CCACHE_*``/``DISTCC_*`` variables before ``env`` is applied."""
    full_env = dict(os.environ)
    full_env.pop("TORCHBUILD_TRACEBACK", None)
    if clean_cache_env:
        full_env = {k: v for k, v in full_env.items() if not k.startswith(CACHE_PREFIXES)}
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "torchbuild", *args],
        cwd=str(cwd or REPO),
        env=full_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="session", autouse=True)
def _private_torchbuild_cache(tmp_path_factory):
    """Every test, in-process or through the CLI, uses a private torchbuild cache folder
    (fetched sources, wheels, the probe cache), never the user's ``~/.cache/torchbuild``;
    a test that needs its own sets ``TORCHBUILD_CACHE`` itself."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TORCHBUILD_CACHE", str(tmp_path_factory.mktemp("torchbuild-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def cli():
    """The :func:`run_cli` function."""
    return run_cli


@pytest.fixture(scope="session")
def ext_venv(tmp_path_factory) -> Path:
    """A venv that sees the packages of the Python running the tests (torch 2.13.0+cpu,
    setuptools, pip) but installs into itself; returns its python."""
    # the suite's pip, run as this venv's python, installs into the venv
    return overlay_venv(tmp_path_factory.mktemp("ext-venv") / "venv")


@pytest.fixture(scope="session")
def cuda_torch_python(tmp_path_factory) -> Path:
    """A venv of its own with the CUDA build ``torch==2.14.1`` (+cu130, several GB from the
    wheel files this machine's pip finds; a few minutes) and setuptools; returns its python.
    Skips, saying why, only where pip cannot install it."""
    d = tmp_path_factory.mktemp("cu-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(d)], check=True, timeout=300)
    py = d / "bin" / "python"
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "torch==2.14.1", "setuptools"],
        capture_output=True,
        text=True,
        timeout=3600,
    )  # took over 25 min on a loaded 2-core machine
    if r.returncode != 0:
        pytest.skip(f"cannot install the CUDA build torch==2.14.1 here: {r.stderr.strip().splitlines()[-1:]}")
    return py


@dataclass
class ScatterBuild:
    """The session's real build of ``torch-scatter==2.1.2``: the CLI run, its JSON, the
    venv python it installed into, the torchbuild cache folder, and the environment it
    ran with (private ccache/sccache folders and sccache server port), so a test can
    build again against the same compile cache."""

    run: CliRun
    result: dict[str, Any]
    python: Path
    cache: Path
    env: dict[str, str]

    @property
    def record(self) -> dict[str, Any]:
        return json.loads(Path(self.result["record"]).read_text())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def scatter_build(tmp_path_factory, ext_venv):
    """Build the real sdist ``torch-scatter==2.1.2`` from PyPI with ``torchbuild build``
    (CPU, against torch 2.13.0, default compile cache: sccache where installed), once per
    session; the sccache server it started is stopped at the end."""
    base = tmp_path_factory.mktemp("scatter")
    cache = base / "cache"
    env = {
        "TORCHBUILD_CACHE": str(cache),
        "CCACHE_DIR": str(base / "ccache"),
        "SCCACHE_DIR": str(base / "sccache"),
        "SCCACHE_SERVER_PORT": str(_free_port()),
        "SCCACHE_IDLE_TIMEOUT": "900",
        "PYTHONPATH": "",
    }
    r = run_cli(
        "build",
        "torch-scatter==2.1.2",
        "--python",
        str(ext_venv),
        "--json",
        env=env,
        timeout=1500,
        clean_cache_env=True,
    )
    assert r.returncode == 0, f"torch-scatter build failed:\n{r.stderr[-6000:]}"
    yield ScatterBuild(r, r.json, ext_venv, cache, env)
    from torchbuild.actions.compile_cache import find_tool

    sccache = find_tool("sccache")  # next to this interpreter (a dependency), else on PATH
    if sccache:
        stop_env = {k: v for k, v in os.environ.items() if not k.startswith(CACHE_PREFIXES)}
        stop_env.update(env)
        subprocess.run([sccache, "--stop-server"], env=stop_env, capture_output=True, timeout=60)
