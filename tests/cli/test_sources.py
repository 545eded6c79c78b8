"""SOURCE as ``pytorch@<ref>``: ``plan`` fetches nothing, ``build`` clones and checks every git step.

GitHub is not reachable from this machine, which gives the real "no network" case; the
clone itself is tested against a local minitorch repository (with a submodule) named as the
mirror of github.com/pytorch/pytorch with git's own ``url.<base>.insteadOf`` (set through
``GIT_CONFIG_*`` environment variables, so no git configuration file is touched).
"""

from __future__ import annotations

import pytest

from support.git import git, git_out
from support.minitorch import SUBMODULE_PATH, make_minitorch
from torchbuild.actions.fetch import pytorch_dest, resolve_source
from torchbuild.errors import GitRefError

NO_NETWORK = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "url.https://torchbuild-test.invalid/.insteadOf",
    "GIT_CONFIG_VALUE_0": "https://github.com/",
}


def _mirror_env(origin) -> dict[str, str]:
    url = f"file://{origin}"
    return {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": f"url.{url}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://github.com/pytorch/pytorch",
        "GIT_CONFIG_KEY_1": "protocol.file.allow",
        "GIT_CONFIG_VALUE_1": "always",
    }


def test_clone_without_network_is_a_clear_fetch_error(cli, tmp_path):
    r = cli("build", "pytorch@v2.4.0", env={"TORCHBUILD_CACHE": str(tmp_path / "cache"), **NO_NETWORK}, timeout=300)
    assert r.returncode == 3, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: cannot clone https://github.com/pytorch/pytorch") and "network" in last
    assert "insteadOf" in last  # the fix names the mirror mechanism


def test_plan_of_a_release_not_fetched_runs_nogit_out(cli, tmp_path):
    """``plan`` says "Nothing is run": it plans pytorch@v2.6.0 from the release data and says what
    ``build`` will fetch (it used to run ``git clone --recursive``, here: exit 3, no network)."""
    cache = tmp_path / "cache"
    r = cli("plan", "pytorch@v2.6.0", "--no-cuda", "--json", env={"TORCHBUILD_CACHE": str(cache), **NO_NETWORK})
    assert r.returncode == 0, r.stderr
    assert "git clone" not in r.stderr and not (cache / "sources").exists()
    fetch = r.json["fetch"]
    assert fetch["repo"] == "https://github.com/pytorch/pytorch" and fetch["ref"] == "v2.6.0"
    assert fetch["release"] == "2.6" and r.json["kind"] == "pytorch"
    subs = {s["path"]: s for s in fetch["submodules"]}
    assert subs["third_party/pybind11"]["url"].startswith("https://github.com/pybind/pybind11")
    assert all(s["sha"] is None or len(s["sha"]) == 40 for s in subs.values())
    text = cli("plan", "pytorch@v2.6.0", "--no-cuda", env={"TORCHBUILD_CACHE": str(cache), **NO_NETWORK})
    said = " ".join(text.stderr.split())  # the console writes to stderr and may wrap lines
    assert text.returncode == 0 and "will clone https://github.com/pytorch/pytorch at v2.6.0" in said


def test_plan_of_a_ref_without_release_data_is_bad_input(cli, tmp_path):
    r = cli("plan", "pytorch@main", env={"TORCHBUILD_CACHE": str(tmp_path / "cache"), **NO_NETWORK})
    assert r.returncode == 2, r.stderr
    assert "no release data" in r.stderr and "torchbuild build pytorch@main" in r.stderr
    assert not (tmp_path / "cache" / "sources").exists()


def test_build_of_a_commit_that_cannot_be_checked_out_stops(cli, tmp_path):
    """The clone succeeds, the commit is not in it: exit 3 naming the SHA, no tree left behind
    (the checkout's exit status was ignored and the build went on at the default branch)."""
    origin = make_minitorch(tmp_path / "mirror" / "pytorch")
    sha = "0123456789abcdef0123456789abcdef01234567"
    cache = tmp_path / "cache"
    r = cli("build", f"pytorch@{sha}", "--no-cuda", env={"TORCHBUILD_CACHE": str(cache), **_mirror_env(origin)})
    assert r.returncode == 3, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: commit {sha} cannot be checked out") and "Fix: check the SHA" in last
    assert not pytorch_dest(sha, cache).exists() and list((cache / "sources").iterdir()) == []


def test_fetch_checks_out_the_commit_with_its_submodule(tmp_path, monkeypatch):
    origin = make_minitorch(tmp_path / "mirror" / "pytorch")
    old = git_out("rev-parse", "HEAD", cwd=origin)
    git("commit", "--allow-empty", "-qm", "later", cwd=origin)
    for k, v in _mirror_env(origin).items():
        monkeypatch.setenv(k, v)
    got = resolve_source(f"pytorch@{old}", python="python3", cache=tmp_path / "cache")
    assert got.origin == "git" and git_out("rev-parse", "HEAD", cwd=got.path) == old
    assert (got.path / SUBMODULE_PATH / "CMakeLists.txt").exists()
    with pytest.raises(GitRefError, match=f"commit {'f' * 40} cannot be checked out"):
        resolve_source(f"pytorch@{'f' * 40}", python="python3", cache=tmp_path / "cache")


@pytest.mark.slow
def test_clone_with_submodules_through_a_mirror(cli, tmp_path, monkeypatch):
    origin = make_minitorch(tmp_path / "mirror" / "pytorch")
    git("tag", "v9.9.9", cwd=origin)
    env = {"TORCHBUILD_CACHE": str(tmp_path / "cache"), **_mirror_env(origin)}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tree = resolve_source("pytorch@v9.9.9", python="python3", cache=tmp_path / "cache").path  # what build does
    assert (tree / SUBMODULE_PATH / "CMakeLists.txt").exists()  # --recursive brought the submodule
    r = cli("plan", "pytorch@v9.9.9", "--no-cuda", "--json", env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.json["source"] == str(tree) and r.json["kind"] == "pytorch" and "fetch" not in r.json
    assert "git clone" not in r.stderr  # fetched already: plan reads the tree
