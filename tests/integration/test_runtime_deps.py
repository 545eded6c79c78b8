"""An extension's own runtime requirements, installed with torch held fixed (issue 10, item 1).

A local package index, a folder of wheels that pip reads with ``--find-links`` and
``--no-index`` (``PIP_FIND_LINKS``/``PIP_NO_INDEX``): ``tbdep-helper 1.0`` (pure Python,
needs nothing) and ``tbdep-newtorch 1.0`` (needs ``torch==2.14.1``).  The extension
``tb_deps_ext`` (a real ``CppExtension`` built with torch's ``BuildExtension``) declares
``tbdep-helper>=1.0`` and imports it, so verification fails without it.  Built with the
real CLI into a venv that sees the suite's torch 2.13.0 and installs into itself.  The
wheels of the index are written here (a wheel is a zip with ``.dist-info`` metadata), so
nothing is fetched from the network.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support.venvs import overlay_venv
from support.wheels import make_wheel
from torchbuild.actions import runtime_deps
from torchbuild.errors import RuntimeRequirementsError

pytestmark = pytest.mark.slow

SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
setup(name="tb_deps_ext", version="0.1", packages=["tb_deps_ext"], install_requires=[{req!r}],
      ext_modules=[CppExtension("tb_deps_ext._C", ["csrc/mod.cpp"])], cmdclass={{"build_ext": BuildExtension}})
"""
MOD = (
    '#include <Python.h>\nextern "C" PyObject* PyInit__C(void) {\n'
    '  static PyModuleDef d = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};\n  return PyModule_Create(&d);\n}\n'
)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("local-index")
    make_wheel(d, "tbdep-helper", "1.0", [], "VALUE = 42\n")
    make_wheel(d, "tbdep-newtorch", "1.0", ["torch==2.14.1"], "VALUE = 1\n")
    return d


def pip_env(index: Path) -> dict[str, str]:
    return {"PIP_FIND_LINKS": str(index), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def torch_fingerprint(python: Path) -> dict[str, str]:
    """sha256 of torch's files that a reinstall or upgrade would change (its RECORD,
    version.py, __init__.py, _C) and where it is, as ``python`` imports it."""
    code = (
        "import hashlib, importlib.metadata as m, json, os, torch\n"
        "d = m.distribution('torch'); base = os.path.dirname(torch.__file__)\n"
        "files = [str(d.locate_file(f)) for f in d.files if f.name == 'RECORD']\n"
        "files += [os.path.join(base, 'version.py'), os.path.join(base, '__init__.py')]\n"
        "files += [os.path.join(base, n) for n in os.listdir(base) if n.startswith('_C.') and n.endswith('.so')]\n"
        "out = {f: hashlib.sha256(open(f, 'rb').read()).hexdigest() for f in files}\n"
        "out['location'] = base; out['version'] = torch.__version__\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([str(python), "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_ext(root: Path, req: str) -> Path:
    (root / "csrc").mkdir(parents=True)
    (root / "tb_deps_ext").mkdir()
    (root / "tb_deps_ext" / "__init__.py").write_text(
        "import tbdep_helper\nfrom . import _C\nVALUE = tbdep_helper.VALUE\n"
    )
    (root / "setup.py").write_text(SETUP.format(req=req))
    (root / "csrc" / "mod.cpp").write_text(MOD)
    return root


def test_built_extension_gets_its_requirements_and_torch_is_untouched(cli, index, tmp_path):
    python = overlay_venv(tmp_path / "venv")
    before = torch_fingerprint(python)
    tree = write_ext(tmp_path / "ext", "tbdep-helper>=1.0")
    r = cli("build", str(tree), "--python", str(python), "--cache", "none", "--json", env=pip_env(index), timeout=1500)
    assert r.returncode == 0, r.stderr[-5000:]
    assert r.json["verify"]["ok"] is True
    rec = json.loads(Path(r.json["record"]).read_text())
    deps = rec["runtime_deps"]
    assert deps["requirements"] == ["tbdep-helper>=1.0"]
    assert deps["constraint"] == f"torch=={before['version']}"
    assert deps["installed"] == [{"name": "tbdep-helper", "version": "1.0"}]
    assert "runtime requirements: tbdep-helper 1.0" in r.stderr
    site = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    assert (site / "tbdep_helper.py").is_file()  # into the build's venv
    assert not list(site.glob("torch*"))  # no torch of its own: the suite's torch, unchanged
    assert torch_fingerprint(python) == before
    proc = subprocess.run(
        [str(python), "-c", "import tb_deps_ext; print(tb_deps_ext.VALUE)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "42", proc.stderr


def test_no_deps_installs_the_wheel_alone(cli, index, tmp_path):
    python = overlay_venv(tmp_path / "venv")
    tree = write_ext(tmp_path / "ext", "tbdep-helper>=1.0")
    r = cli(
        "build",
        str(tree),
        "--python",
        str(python),
        "--cache",
        "none",
        "--no-deps",
        "--json",
        env=pip_env(index),
        timeout=1500,
    )
    assert r.returncode == 1  # verify: import tbdep_helper fails, as before this option existed
    assert "No module named 'tbdep_helper'" in r.stdout + r.stderr
    rec = json.loads(Path(r.json["record"]).read_text())
    assert rec["runtime_deps"] == {"skipped": "--no-deps"}
    site = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    assert not (site / "tbdep_helper.py").exists() and list(site.glob("tb_deps_ext-0.1.dist-info"))


def test_requirement_needing_another_torch_stops_before_installing(index, tmp_path):
    """``check`` on a wheel whose requirement needs torch 2.14.1 (through tbdep-newtorch):
    pip's dry run under the torch pin cannot resolve, nothing is installed."""
    python = overlay_venv(tmp_path / "venv")
    before = torch_fingerprint(python)
    wheels = tmp_path / "w"
    wheels.mkdir()
    whl = make_wheel(wheels, "tb-user", "0.1", ["tbdep-newtorch>=1.0", "tbdep-helper"], "")
    env = dict(os.environ, **pip_env(index))
    with pytest.raises(RuntimeRequirementsError) as exc:
        runtime_deps.check(str(python), whl, before["version"], tmp_path / "work", env)
    msg = exc.value.message
    assert "would need another torch" in msg and f"torch=={before['version']}" in msg and "nothing was installed" in msg
    assert "tbdep-newtorch" in msg
    site = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    assert not list(site.glob("tbdep*"))
    assert torch_fingerprint(python) == before
    # a direct requirement on another torch is refused without asking pip
    direct = make_wheel(wheels, "tb-direct", "0.1", ["torch>=2.14"], "")
    with pytest.raises(RuntimeRequirementsError, match=r"requires torch>=2.14, but it was built against"):
        runtime_deps.check(str(python), direct, before["version"], tmp_path / "work", env)


def test_develop_mode_installs_the_trees_requirements_with_torch_pinned(cli, index, tmp_path):
    """Develop mode leaves no wheel to read: the tree's own ``install_requires`` are read
    from its metadata before compiling and installed after the build, torch untouched."""
    python = overlay_venv(tmp_path / "venv")
    before = torch_fingerprint(python)
    tree = write_ext(tmp_path / "ext", "tbdep-helper>=1.0")
    r = cli(
        "build",
        str(tree),
        "--python",
        str(python),
        "--mode",
        "develop",
        "--cache",
        "none",
        "--json",
        env=pip_env(index),
        timeout=1500,
    )
    assert r.returncode == 0, r.stderr[-5000:]
    rec = json.loads(Path(r.json["record"]).read_text())
    assert rec["runtime_deps"]["requirements"] == ["tbdep-helper>=1.0"]
    assert rec["runtime_deps"]["installed"] == [{"name": "tbdep-helper", "version": "1.0"}]
    assert torch_fingerprint(python) == before
    proc = subprocess.run(
        [str(python), "-c", "import tb_deps_ext; print(tb_deps_ext.VALUE, tb_deps_ext.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    value, where = proc.stdout.split()
    assert value == "42" and where.startswith(str(tree))  # develop mode: imported from the tree itself


def test_install_mode_requirement_needing_another_torch_stops_before_compiling(cli, index, tmp_path):
    """Install mode, a requirement that needs torch 2.14.1: the build stops before the
    compiler runs (no build/ folder), nothing is installed, the record says why."""
    python = overlay_venv(tmp_path / "venv")
    before = torch_fingerprint(python)
    tree = write_ext(tmp_path / "ext", "tbdep-newtorch>=1.0")
    r = cli(
        "build",
        str(tree),
        "--python",
        str(python),
        "--mode",
        "install",
        "--cache",
        "none",
        env=pip_env(index),
        timeout=1500,
    )
    assert r.returncode != 0
    assert "would need another torch" in r.stdout + r.stderr
    assert not (tree / "build").exists()
    site = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    assert not list(site.glob("tbdep*")) and not list(site.glob("tb_deps_ext*"))
    assert torch_fingerprint(python) == before
    rec = json.loads(sorted((tree / ".torchbuild" / "records").glob("*.json"))[-1].read_text())
    assert rec["outcome"] == "failed" and rec["runtime_deps"]["requirements"] == ["tbdep-newtorch>=1.0"]
