"""Source archives as SOURCE: bad archives are refused with one line, exit 2 and nothing written;
a good one is unpacked beside the archive once and reused.  Small archives are made here with
the real tar/zip formats; the real 2.6.0 archive is exercised in tests/realtree/."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from torchbuild.actions.unpack import BadArchiveError, inspect_archive, parse_dsc, unpack_source


def _tar(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _pytorch_files(top: str, version: str) -> dict[str, str]:
    return {
        f"{top}/version.txt": version + "\n",
        f"{top}/setup.py": "# setup\n",
        f"{top}/c10/CMakeLists.txt": "",
        f"{top}/torch/__init__.py": "",
        f"{top}/CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\n",
    }


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torchbuild", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.mark.parametrize("kind", ["not-pytorch", "truncated", "unknown-version"])
def test_bad_archive_one_line_exit_2_nothing_written(tmp_path, kind):
    if kind == "not-pytorch":
        arc = _tar(
            tmp_path / "notes.tar.gz", {"notes/README": "hello", "notes/setup.py": "from setuptools import setup"}
        )
        want = "is not a PyTorch source archive"
    elif kind == "truncated":
        good = _tar(
            tmp_path / "full.tar.gz", _pytorch_files("pytorch-v2.6.0", "2.6.0") | {"pytorch-v2.6.0/big": "x" * 200000}
        )
        data = good.read_bytes()
        good.unlink()
        arc = tmp_path / "pytorch-v2.6.0.tar.gz"
        arc.write_bytes(data[: len(data) // 2])
        want = "truncated or corrupt"
    else:
        arc = _tar(tmp_path / "pytorch-v0.3.1.tar.gz", _pytorch_files("pytorch-v0.3.1", "0.3.1"))
        want = "not in torchbuild's release data"
    before = sorted(p.name for p in tmp_path.iterdir())
    for cmd in (["doctor", str(arc), "--no-cuda"], ["build", str(arc), "--no-cuda"], ["source", "check", str(arc)]):
        r = _cli(*cmd, cwd=tmp_path)
        assert r.returncode == 2, (cmd, r.stderr)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and want in lines[0], r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_inspect_accepts_extension_zip(tmp_path):
    arc = tmp_path / "ext-1.0.zip"
    with zipfile.ZipFile(arc, "w") as zf:
        zf.writestr("ext-1.0/setup.py", "from torch.utils.cpp_extension import BuildExtension\n")
    info = inspect_archive(arc, ["2.6"])
    assert (info.kind, info.top, info.version) == ("extension", "ext-1.0", None)


def test_unpacks_beside_the_archive_once_and_reuses_it(tmp_path):
    arc = _tar(tmp_path / "pytorch-v2.6.0.tar.gz", _pytorch_files("pytorch-v2.6.0", "2.6.0"))
    tree = unpack_source(arc, cache=tmp_path / "cache", known_releases=["2.6"])
    assert tree == tmp_path / "pytorch-v2.6.0" and (tree / "version.txt").read_text() == "2.6.0\n"
    (tree / "build-marker").write_text("kept")  # a resumed build finds its tree as it left it
    again = unpack_source(arc, cache=tmp_path / "cache", known_releases=["2.6"])
    assert again == tree and (tree / "build-marker").read_text() == "kept"
    assert not list(tmp_path.glob(".torchbuild-unpack-*"))


def test_read_only_folder_unpacks_into_the_cache(tmp_path, monkeypatch):
    """The archive's folder is not writable (as /work/shared/sources is for a user; root can
    write anywhere, so the permission check itself is replaced here): the tree goes to the cache."""
    import torchbuild.actions.unpack as unpack

    arc = _tar(tmp_path / "pytorch-v2.6.0.tar.gz", _pytorch_files("pytorch-v2.6.0", "2.6.0"))
    monkeypatch.setattr(unpack, "_writable", lambda folder: folder != tmp_path)
    tree = unpack_source(arc, cache=tmp_path / "cache", known_releases=["2.6"])
    assert tree == tmp_path / "cache" / "sources" / "pytorch-v2.6.0"
    assert not (tmp_path / "pytorch-v2.6.0").exists()


def test_existing_folder_not_made_by_torchbuild_is_never_touched(tmp_path):
    arc = _tar(tmp_path / "pytorch-v2.6.0.tar.gz", _pytorch_files("pytorch-v2.6.0", "2.6.0"))
    (tmp_path / "pytorch-v2.6.0").mkdir()
    (tmp_path / "pytorch-v2.6.0" / "mine.txt").write_text("user data")
    from torchbuild.errors import UsageError

    with pytest.raises(UsageError, match="exists and was not unpacked by torchbuild"):
        unpack_source(arc, cache=tmp_path / "cache", known_releases=["2.6"])
    assert (tmp_path / "pytorch-v2.6.0" / "mine.txt").read_text() == "user data"


def test_dsc_checksums_are_checked(tmp_path):
    orig = _tar(tmp_path / "pytorch_2.6.0.orig.tar.gz", _pytorch_files("pytorch-v2.6.0", "2.6.0"))
    dsc = tmp_path / "pytorch_2.6.0-1.dsc"
    dsc.write_text(
        "Format: 3.0 (quilt)\nSource: pytorch\nVersion: 2.6.0-1\nChecksums-Sha256:\n"
        f" {'0' * 64} {orig.stat().st_size} {orig.name}\n"
    )
    assert parse_dsc(dsc.read_text())[:2] == ("pytorch", "2.6.0-1")
    with pytest.raises(BadArchiveError, match="does not match the sha256"):
        unpack_source(dsc, cache=tmp_path / "cache", known_releases=["2.6"])
    assert not (tmp_path / "pytorch-2.6.0").exists()
