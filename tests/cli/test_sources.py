"""SOURCE as ``pytorch@<ref>``: a real ``git clone --recursive``.

GitHub is not reachable from this machine, which gives the real "no network" case; the
clone itself is tested against a local minitorch repository named as the mirror of
github.com/pytorch/pytorch with git's own ``url.<base>.insteadOf`` (set through
``GIT_CONFIG_*`` environment variables, so no git configuration file is touched).
"""

from __future__ import annotations

import subprocess

import pytest

from support.minitorch import SUBMODULE_PATH, make_minitorch


def test_clone_without_network_is_a_clear_fetch_error(cli, tmp_path):
    r = cli(
        "plan",
        "pytorch@v2.4.0",
        env={
            "TORCHBUILD_CACHE": str(tmp_path / "cache"),
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "url.https://torchbuild-test.invalid/.insteadOf",
            "GIT_CONFIG_VALUE_0": "https://github.com/",
        },
        timeout=300,
    )
    assert r.returncode == 3, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: cannot clone https://github.com/pytorch/pytorch") and "network" in last
    assert "insteadOf" in last  # the fix names the mirror mechanism


@pytest.mark.slow
def test_clone_with_submodules_through_a_mirror(cli, tmp_path):
    origin = make_minitorch(tmp_path / "mirror" / "pytorch")
    subprocess.run(["git", "-C", str(origin), "tag", "v9.9.9"], check=True)
    env = {
        "TORCHBUILD_CACHE": str(tmp_path / "cache"),
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": f"url.{origin}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://github.com/pytorch/pytorch",
        "GIT_CONFIG_KEY_1": "protocol.file.allow",
        "GIT_CONFIG_VALUE_1": "always",
    }
    r = cli("plan", "pytorch@v9.9.9", "--no-cuda", "--json", env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    tree = tmp_path / "cache" / "sources" / "pytorch-v9.9.9"
    assert r.json["source"] == str(tree) and r.json["kind"] == "pytorch"
    assert (tree / SUBMODULE_PATH / "CMakeLists.txt").exists()  # --recursive brought the submodule
    again = cli("plan", "pytorch@v9.9.9", "--no-cuda", "--json", env=env, timeout=300)
    assert again.returncode == 0 and "git clone" not in again.stderr  # reused, not cloned twice
