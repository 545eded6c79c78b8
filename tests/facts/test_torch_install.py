"""The installed torch read from its files, checked against torch's own answers.

The expected values come from importing torch in a subprocess (the probe itself never
imports it).  Skipped when no torch is installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild.facts.python import python_info
from torchbuild.facts.torch_install import find_torch, parse_version_py, probe_torch, read_cxx11_abi


def _torch_says(python: str) -> dict | None:
    code = (
        "import json, torch; print(json.dumps({'v': torch.__version__, 'cuda': torch.version.cuda, "
        "'git': torch.version.git_version, 'abi': bool(torch._C._GLIBCXX_USE_CXX11_ABI), "
        "'loc': __import__('os').path.dirname(torch.__file__)}))"
    )
    p = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd="/")
    return json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else None


def test_installed_torch_matches_import():
    info = python_info()
    truth = _torch_says(sys.executable)
    if truth is None:
        pytest.skip("no torch in this interpreter")
    got = probe_torch(info.sys_path)
    assert got is not None
    assert (got.version, got.cuda, got.git_version, got.cxx11_abi) == (
        truth["v"],
        truth["cuda"],
        truth["git"],
        truth["abi"],
    )
    assert Path(got.location).resolve() == Path(truth["loc"]).resolve()


def test_collect_does_not_import_torch():
    code = "import sys, torchbuild.facts as f; x = f.collect(); print('torch' in sys.modules, x.torch is not None)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    imported, _found = p.stdout.split()
    assert imported == "False"


def test_version_py_old_and_new_forms():
    new = (
        "__version__ = '2.14.1+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
        "git_version = '5c4886908584029761b579af026dcfb627c84070'\nhip: Optional[str] = None\n"
    )
    old = "__version__ = '1.13.0+cu117'\ndebug = False\ncuda = '11.7'\ngit_version = '7c98e70d44ab'\nhip = None\n"
    a, b = parse_version_py(new), parse_version_py(old)
    assert (a.version, a.cuda, a.hip, a.debug) == ("2.14.1+cu130", "13.0", None, False)
    assert (b.version, b.cuda, b.git_version) == ("1.13.0+cu117", "11.7", "7c98e70d44ab")


def test_abi_from_cmake_flags_and_editable_finder(tmp_path):
    loc = tmp_path / "src" / "torch"
    (loc / "share" / "cmake" / "Caffe2").mkdir(parents=True)
    (loc / "share" / "cmake" / "Caffe2" / "Caffe2Config.cmake").write_text(
        'set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=0")\n'
    )
    (loc / "version.py").write_text("__version__ = '2.5.0a0+gitabc1234'\ncuda = None\n")
    assert read_cxx11_abi(str(loc)) is False
    site = tmp_path / "site"
    site.mkdir()
    (site / "__editable___torch_2_5_0a0_finder.py").write_text(f"MAPPING = {{'torch': '{loc}'}}\n")
    assert find_torch([str(site)]) == str(loc)
    t = probe_torch([str(site)])
    assert t.version == "2.5.0a0+gitabc1234" and t.cxx11_abi is False and t.cuda is None
