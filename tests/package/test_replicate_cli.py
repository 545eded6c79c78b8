"""``torchbuild replicate`` through the real CLI: saved texts, the live torch 2.13.0 of the test
interpreter, the profile written into torchbuild.toml, and that profile applied to a tree with
``plan --explain`` (minitorch, and the real PyTorch 2.6.0 source archive when it is at hand)."""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from support.minitorch import make_minitorch

DATA = Path(__file__).resolve().parents[1] / "data" / "config"
#: Debian's copy of the PyTorch 2.6.0 archive, beside the clone as CI lays it out (skipped where absent).
SOURCES = Path(__file__).resolve().parents[3] / "shared" / "sources" / "pytorch_2.6.0+dfsg.orig.tar.xz"


def test_from_config_writes_a_profile_and_reports_what_cannot_be_reproduced(cli, tmp_path):
    out = tmp_path / "torchbuild.toml"
    r = cli("replicate", "--from-config", str(DATA / "torch-2.14.1+cu130.nogpu.show.txt"), "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = tomllib.loads(out.read_text())
    prof = doc["profile"]["replica-2.14.1-cu130"]
    assert prof["arch"] == "7.5;8.0;8.6;9.0;10.0;12.0" and prof["cuda"] is True
    assert r.json["source"] == "pytorch@v2.14.1" and r.json["findings"]
    assert "build it: torchbuild build pytorch@v2.14.1 --profile replica-2.14.1-cu130" in r.stderr
    # a second run with the same name is refused and leaves the file alone
    before = out.read_text()
    r2 = cli("replicate", "--from-config", str(DATA / "torch-2.14.1+cu130.nogpu.show.txt"), "-o", str(out))
    assert r2.returncode == 2 and "already has a profile" in r2.stderr and out.read_text() == before
    # another text is appended beside it
    r3 = cli("replicate", "--from-config", str(DATA / "torch-1.8.0-seed003.repr.txt"), "-o", str(out))
    assert r3.returncode == 0, r3.stderr
    assert set(tomllib.loads(out.read_text())["profile"]) == {"replica-2.14.1-cu130", "replica-1.8.0-cu110"}


def test_from_installed_reads_the_live_torch(cli, tmp_path):
    out = tmp_path / "torchbuild.toml"
    r = cli("replicate", "--from-installed", "--python", sys.executable, "-o", str(out), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.json["version"] == "2.13.0" and r.json["name"] == "replica-2.13.0-cpu"
    assert r.json["profile"]["cuda"] is False and r.json["profile"]["set"]["BLAS"] == "MKL"
    assert "+ " in r.stderr and "torch.__config__.show()" in r.stderr  # the subprocess is echoed


def test_bad_inputs(cli, tmp_path):
    txt = tmp_path / "x.txt"
    txt.write_text("hello\n")
    r = cli("replicate", "--from-config", str(txt), "-o", str(tmp_path / "t.toml"))
    assert r.returncode == 2 and "PyTorch built with" in r.stderr and not (tmp_path / "t.toml").exists()
    r = cli("replicate", "--from-config", str(tmp_path / "missing.txt"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def _profile_file(cli, tmp_path: Path) -> Path:
    out = tmp_path / "torchbuild.toml"
    r = cli("replicate", "--from-config", str(DATA / "torch-2.13.0+cpu.show.txt"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_the_2_13_0_profile_applied_to_the_test_tree(cli, tmp_path):
    prof = _profile_file(cli, tmp_path)
    tree = make_minitorch(tmp_path / "pytorch", version="2.8.0")
    r = cli("plan", str(tree), "--profile", "replica-2.13.0-cpu", "--profile-file", str(prof), "--explain", "--json")
    assert r.returncode == 0, r.stderr
    plan = r.json
    assert plan["mode"] == {"value": "wheel", "source": "profile replica-2.13.0-cpu"}
    assert plan["cuda"]["value"] is False and plan["build_type"]["value"] == "Release"
    env = plan["env"]
    assert env["USE_CUDA"]["value"] == "0"
    # options the tree declares are applied; the others are named as skipped
    applied = {k for k, s in plan["options"].items() if s["source"] == "profile replica-2.13.0-cpu"}
    assert applied and applied <= set(plan["options"])
    assert any("skipped: this tree does not read" in n for n in plan["notes"])
    text = cli("plan", str(tree), "--profile", "replica-2.13.0-cpu", "--profile-file", str(prof), "--explain")
    assert text.returncode == 0 and "profile replica-2.13.0-cpu" in text.stderr + text.stdout


@pytest.mark.slow
@pytest.mark.skipif(not SOURCES.is_file(), reason=f"{SOURCES} (the real PyTorch 2.6.0 source archive) is not here")
def test_the_2_13_0_profile_applied_to_the_real_2_6_0_tree(cli, tmp_path):
    prof = _profile_file(cli, tmp_path)
    with tarfile.open(SOURCES) as tf:
        tf.extractall(tmp_path / "src", filter="data")
    tree = next((tmp_path / "src").iterdir())
    r = cli("plan", str(tree), "--profile", "replica-2.13.0-cpu", "--profile-file", str(prof), "--explain", "--json")
    assert r.returncode == 0, r.stderr
    plan = r.json
    opts = plan["options"]
    # options 2.6.0's CMakeLists.txt declares take the 2.13.0 values
    for k, v in {"USE_MKLDNN": "1", "USE_NNPACK": "1", "USE_GLOO": "1", "USE_NCCL": "0", "USE_MPI": "0"}.items():
        assert opts[k] == {"value": v, "source": "profile replica-2.13.0-cpu"}, k
    assert opts["BLAS"]["value"] == "MKL"
    assert plan["env"]["USE_CUDA"]["value"] == "0" and plan["mode"]["value"] == "wheel"
