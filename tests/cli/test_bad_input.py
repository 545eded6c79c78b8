"""Bad input: one-line error naming the problem and the fix, exit code 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest


def _assert_one_line_error(r):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = [line for line in r.stderr.strip().splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: "), r.stderr
    return lines[-1]


def _ext_tree(root: Path) -> Path:
    root.mkdir()
    (root / "setup.py").write_text(
        "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension\n"
        "WITH = os.getenv('FORCE_CUDA', '0')\n"
        "setup(name='tiny_ext', version='0.1', ext_modules=[CppExtension('tiny_ext._C', ['tiny.cpp'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    )
    (root / "tiny.cpp").write_text("#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n")
    return root


def test_source_that_does_not_exist(cli, tmp_path):
    line = _assert_one_line_error(cli("build", str(tmp_path / "nope")))
    assert "does not exist" in line and "Fix:" in line
    assert not (tmp_path / "nope").exists()


def test_source_that_is_not_a_tree(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    line = _assert_one_line_error(cli("build", str(tmp_path)))
    assert "not a source tree" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_pypi_name_that_does_not_exist(cli, tmp_path):
    r = cli("build", "torchbuild-no-such-package-x7q==1.0", env={"TORCHBUILD_CACHE": str(tmp_path / "cache")})
    line = _assert_one_line_error(r)
    assert "no such package" in line
    sdists = tmp_path / "cache" / "sdists"
    assert not sdists.exists() or not any(sdists.iterdir())


def test_unknown_set_option(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    line = _assert_one_line_error(cli("build", str(tree), "--set", "FORCE_CUDAA=1"))
    assert "unknown option 'FORCE_CUDAA'" in line and "FORCE_CUDA" in line
    assert not (tree / ".torchbuild").exists()


def test_conflicting_options(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    line = _assert_one_line_error(cli("build", str(tree), "--no-cuda", "--arch", "8.6"))
    assert "--arch 8.6 conflicts with CUDA off" in line
    line = _assert_one_line_error(cli("build", str(tree), "--mode", "develop", "--no-install"))
    assert "--no-install conflicts with develop mode" in line
    assert not (tree / ".torchbuild").exists()


@pytest.mark.parametrize("content", [b"[profile.mine\nmode = 'wheel'\n", None])
def test_unreadable_profile_file(cli, tmp_path, content):
    tree = _ext_tree(tmp_path / "ext")
    prof = tree / "torchbuild.toml"
    if content is None:
        prof.mkdir()  # a folder where the file should be: cannot be read
    else:
        prof.write_bytes(content)
    line = _assert_one_line_error(cli("build", str(tree), "--profile", "mine"))
    assert "torchbuild.toml" in line and ("not valid TOML" in line or "cannot read" in line)
    assert not (tree / ".torchbuild").exists()


def test_unknown_profile_name(cli, tmp_path):
    tree = _ext_tree(tmp_path / "ext")
    line = _assert_one_line_error(cli("plan", str(tree), "--profile", "relase"))
    assert "Did you mean: release" in line


def test_bad_flag_value_is_exit_2(cli):
    r = cli("build", "--mode", "fast")
    line = _assert_one_line_error(r)  # checked by the settings model: what is allowed, in one line
    assert "--mode 'fast' is not allowed; --mode must be one of develop, wheel, install, libtorch." in line
