"""The real PyTorch 2.6.0 source, unpacked once per test session.

``../shared/sources/`` (beside the repository, as CI lays it out) holds Debian's copy of the
upstream v2.6.0 archive (submodules removed) and Debian's packaging of it.  Two trees are made
from it, each once per session and each through torchbuild's own unpacking:

* ``orig_tree``: the upstream archive alone (``pytorch_2.6.0+dfsg.orig.tar.xz``);
* ``debian_tree``: the Debian source package (``.dsc``), unpacked by ``dpkg-source -x``, which
  applies Debian's 17 patches (pocketfft and kineto come from ``debian/``).

The tests skip, saying why, where ``../shared/sources`` is absent (a clone without it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCES = Path(__file__).resolve().parents[3] / "shared" / "sources"
ORIG = SOURCES / "pytorch_2.6.0+dfsg.orig.tar.xz"
DSC = SOURCES / "pytorch_2.6.0+dfsg-7.dsc"


def _need_sources() -> None:
    if not ORIG.is_file() or not DSC.is_file():
        pytest.skip(f"the real PyTorch 2.6.0 sources are not at {SOURCES} (CI puts shared/ beside the clone)")


@pytest.fixture(scope="session")
def real_sources() -> Path:
    """The folder with the archives."""
    _need_sources()
    return SOURCES


@pytest.fixture(scope="session")
def archives_copy(tmp_path_factory, real_sources) -> Path:
    """A writable folder with the three files (torchbuild unpacks next to an archive)."""
    d = tmp_path_factory.mktemp("pt26-archives")
    for f in real_sources.iterdir():
        if f.name.startswith("pytorch_2.6.0"):
            shutil.copy2(f, d / f.name)
    return d


def _unpack(archive: Path) -> Path:
    """Unpack through the real CLI (source check unpacks an archive SOURCE) and return the tree."""
    proc = subprocess.run(
        [sys.executable, "-m", "torchbuild", "source", "check", str(archive), "--json"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    import json

    return Path(json.loads(proc.stdout)["tree"])


@pytest.fixture(scope="session")
def orig_tree(archives_copy) -> Path:
    """The upstream 2.6.0 tree (no submodules), unpacked by torchbuild beside the archive."""
    return _unpack(archives_copy / ORIG.name)


@pytest.fixture(scope="session")
def debian_tree(archives_copy) -> Path:
    """The Debian source package's tree (patches applied by dpkg-source)."""
    if shutil.which("dpkg-source") is None:
        pytest.skip("dpkg-source is not installed (apt-get install dpkg-dev)")
    return _unpack(archives_copy / DSC.name)


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """``python -m torchbuild ARGS`` with this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "torchbuild", *args], capture_output=True, text=True, timeout=timeout, env=env
    )
