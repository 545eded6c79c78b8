"""``torchbuild plan`` through the CLI on small real trees: user profiles read from the
tree's files, ``--explain`` provenance and ``--export`` scripts that run."""

from __future__ import annotations

import subprocess

from test_bad_input import _ext_tree


def test_profile_from_pyproject_tool_table(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\n\n'
        '[tool.torchbuild.profile.ci]\ninherits = "release"\njobs = 1\nset = { FORCE_CUDA = "0" }\n'
    )
    r = cli("plan", str(tree), "--profile", "ci", "--json")
    assert r.returncode == 0, r.stderr
    plan = r.json
    assert plan["profile"] == "ci" and plan["jobs"] == {"value": 1, "source": "profile ci"}
    assert plan["env"]["FORCE_CUDA"]["value"] == "0" and plan["mode"]["value"] == "wheel"


def test_torchbuild_toml_profile_and_explain(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "torchbuild.toml").write_text('[profile.fast]\ninherits = "release"\njobs = 2\n')
    r = cli("plan", str(tree), "--profile", "fast", "--explain", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "jobs            1    <- --jobs" in r.stderr  # the flag beats the profile, and says so
    assert "CUDA            off    <- source tree: no CUDA sources" in r.stderr


def test_export_sh_runs_and_output_file_is_never_overwritten(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    out = tmp_path / "plan.sh"
    r = cli("plan", str(tree), "--export", "sh", "--output", str(out), "--jobs", "3")
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "export MAX_JOBS=3" in text and "pip wheel . -v --no-build-isolation" in text
    # the exported environment is what a shell really gets (syntax check + evaluation of the exports)
    exports = "\n".join(line for line in text.splitlines() if line.startswith("export "))
    shown = subprocess.run(
        ["sh", "-c", exports + '\nprintf %s "$MAX_JOBS"'], capture_output=True, text=True, check=True
    )
    assert shown.stdout == "3"
    assert subprocess.run(["sh", "-n", str(out)]).returncode == 0
    before = out.read_bytes()
    again = cli("plan", str(tree), "--export", "sh", "--output", str(out))
    assert again.returncode == 2 and "does not overwrite" in again.stderr and out.read_bytes() == before
    dotenv = cli("plan", str(tree), "--export", "dotenv", "--jobs", "3")
    assert "MAX_JOBS=3\n" in dotenv.stdout
