"""One settings model, every source: a bad value from a profile file, a flag, ``--set`` or an
environment variable torchbuild reads is one line naming where it came from, the value as
written and what is allowed (with "did you mean" for a name); exit 2; nothing written.
Run through the real command line (``python -m torchbuild``) on a small extension tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bad_input import _ext_tree


def _one_line(r) -> str:
    """The whole of stderr is one line ``error: ...``; exit 2."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def _untouched(tree: Path) -> None:
    assert not (tree / ".torchbuild").exists()


def test_bad_profile_value_names_file_profile_key_value_and_what_is_allowed(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "torchbuild.toml").write_text('[profile.p]\ninherits = "release"\njobs = "many"\n')
    line = _one_line(cli("plan", str(tree), "--profile", "p"))
    assert f"{tree / 'torchbuild.toml'}: profile 'p': jobs = 'many' is not allowed" in line
    assert "positive integer" in line and "TOML integer, without quotes" in line
    _untouched(tree)


def test_bad_profile_value_in_pyproject_tool_table(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "pyproject.toml").write_text('[tool.torchbuild.profile.ci]\ncuda = "false"\n')
    line = _one_line(cli("build", str(tree), "--profile", "ci"))
    assert "pyproject.toml: profile 'ci': cuda = 'false' is not allowed; cuda must be true or false" in line
    _untouched(tree)


def test_misspelt_profile_key_gets_did_you_mean(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "torchbuild.toml").write_text('[profile.p]\nbuild_typ = "Debug"\n')
    line = _one_line(cli("plan", str(tree), "--profile", "p"))
    assert "profile 'p' has unknown key 'build_typ'. Did you mean: build_type?" in line
    _untouched(tree)


def test_misspelt_profile_choice_gets_did_you_mean(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    (tree / "torchbuild.toml").write_text('[profile.p]\ncache = "scache"\n')
    line = _one_line(cli("plan", str(tree), "--profile", "p"))
    assert "cache = 'scache' is not allowed; cache must be one of auto, ccache, sccache, none." in line
    assert "Did you mean: sccache" in line


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--jobs", "abc", "--jobs 'abc' is not allowed; --jobs must be a positive integer"),
        ("--jobs", "0", "--jobs '0' is not allowed; --jobs must be a positive integer"),
        (
            "--mode",
            "wheell",
            "--mode 'wheell' is not allowed; --mode must be one of develop, wheel, install, libtorch.",
        ),
        ("--build-type", "debg", "Did you mean: Debug?"),
        ("--cache", "none2", "--cache must be one of auto, ccache, sccache, none"),
    ],
)
def test_bad_flag_value(cli, tmp_path, flag, value, expected):
    tree = _ext_tree(tmp_path / "ext")
    line = _one_line(cli("build", str(tree), flag, value))
    assert expected in line
    _untouched(tree)


def test_flag_value_is_case_insensitive_where_the_model_says_so(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    r = cli("plan", str(tree), "--build-type", "relwithdebinfo", "--json")
    assert r.returncode == 0, r.stderr
    assert r.json["build_type"]["value"] == "RelWithDebInfo"


@pytest.mark.parametrize("flag", ["--mode", "--build"])
def test_doctor_mode_flag_goes_through_the_model(cli, flag):
    """doctor's build mode is --mode, as for plan and build; --build, its old name, still works."""
    line = _one_line(cli("doctor", flag, "wheels"))
    assert "--mode 'wheels' is not allowed" in line and "Did you mean: wheel" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "{tree}", "--set", "MAX_JOBS=-3"],
        ["doctor", "{tree}", "--set", "MAX_JOBS=abc"],
        ["source", "check", "{tree}", "--set", "MAX_JOBS=abc"],
    ],
)
def test_bad_set_value_is_refused_the_same_way_by_every_command(cli, tmp_path, argv):
    tree = _ext_tree(tmp_path / "ext")
    line = _one_line(cli(*[a.replace("{tree}", str(tree)) for a in argv]))
    assert "--set MAX_JOBS=" in line and "is not allowed; MAX_JOBS must be a positive integer" in line
    _untouched(tree)


@pytest.mark.parametrize("command", [["plan"], ["build"], ["doctor"], ["source", "check"]])
def test_set_without_equals_is_the_same_error_in_every_command(cli, tmp_path, command):
    tree = _ext_tree(tmp_path / "ext")
    line = _one_line(cli(*command, str(tree), "--set", "USE_CUDA"))
    assert line == "error: --set 'USE_CUDA' is not KEY=VALUE. Write e.g. --set USE_CUDNN=0."


def test_bad_environment_variable(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    line = _one_line(cli("plan", str(tree), env={"TORCHBUILD_TRACEBACK": "yes"}))
    assert "environment variable TORCHBUILD_TRACEBACK='yes' is not allowed" in line
    assert "TORCHBUILD_TRACEBACK must be 0 or 1 (or unset)" in line
    _untouched(tree)
