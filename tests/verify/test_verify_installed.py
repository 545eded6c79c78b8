"""``torchbuild verify`` finds and checks every installed extension of torch (issue 11),
and names the cause of a failure with the diagnose knowledge.  Real installs:

* ``tb_needs_dep``: a package with a compiled module linked against the installed
  torch's ``libc10.so`` (gcc, ``pip install --no-build-isolation``), whose
  ``__init__`` imports a runtime dependency that is not installed (``scipy`` when this
  Python has none);
* torchvision from PyPI (``pip install --no-deps``) made for another torch than the
  installed one (torch 2.13.0 here: torchvision 0.27.0, which requires torch==2.12.0;
  pip here offers torchvision 0.15.1 to 0.29.1).  Skipped when PyPI cannot be reached.

Each test makes a venv that sees the installed torch through a ``.pth`` file (no torch
of its own), so nothing is installed into the Python running the tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchbuild.actions.verify_installed import find_torch_extensions
from torchbuild.decisions.verify_causes import ExtensionInfo, explain_import_failure

torch = pytest.importorskip("torch")
TORCH_SITE = os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__)))
TORCH_LIB = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "lib")
DEP = "scipy" if importlib.util.find_spec("scipy") is None else "tb_absent_runtime_dep"


def _venv(path: Path) -> Path:
    # no pip of its own (ensurepip is slow on a loaded machine): pip --python installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=300)
    py = path / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "tb_torch_site.pth").write_text(TORCH_SITE + "\n")
    return py


def _pip(python: Path) -> list[str]:
    return [sys.executable, "-m", "pip", "--python", str(python)]


def _verify_json(python: Path, *extra: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "torchbuild", "verify", "--python", str(python), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def dep_python(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("needs-dep")
    pkg = base / "pkg"
    (pkg / "tb_needs_dep").mkdir(parents=True)
    (pkg / "tb_needs_dep" / "__init__.py").write_text(f"import {DEP}  # a runtime dependency\nfrom . import _C\n")
    (pkg / "tb_needs_dep" / "_C.c").write_text(
        textwrap.dedent("""
        #include <Python.h>
        static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
        PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&def); }
    """)
    )
    (pkg / "setup.py").write_text(
        textwrap.dedent(f"""
        from setuptools import setup, Extension
        lib = {TORCH_LIB!r}
        setup(name="tb-needs-dep", version="0.1.0", packages=["tb_needs_dep"],
              ext_modules=[Extension("tb_needs_dep._C", ["tb_needs_dep/_C.c"], library_dirs=[lib],
                                     runtime_library_dirs=[lib], extra_link_args=["-Wl,--no-as-needed", "-lc10"])])
    """)
    )
    py = _venv(base / "venv")
    proc = subprocess.run(
        [*_pip(py), "install", "-q", "--no-build-isolation", "--no-deps", str(pkg)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return py


def test_installed_extensions_are_found_by_what_they_link(dep_python):
    exts = find_torch_extensions(str(dep_python))
    assert [(e.name, e.module) for e in exts] == [("tb-needs-dep", "tb_needs_dep")]
    assert exts[0].files and all(f.endswith(".so") for f in exts[0].files)


def test_verify_without_extension_checks_it_and_names_the_missing_runtime_dependency(dep_python):
    doc = _verify_json(dep_python)
    assert doc["ok"] is False
    by_target = {r["target"]: r for r in doc["reports"]}
    assert by_target["torch"]["ok"] is True, [c for c in by_target["torch"]["checks"] if not c["ok"]]
    rep = by_target["tb_needs_dep"]
    imp = next(c for c in rep["checks"] if c["id"] == "ext_import")
    assert imp["ok"] is False
    assert imp["cause_id"] == "python_dependency_missing"
    assert f"pip install {DEP}" in imp["fix"]
    assert "install tb_needs_dep into this Python" not in imp["fix"]
    assert rep["facts"]["distribution"]["name"] == "tb-needs-dep"
    assert all(("cause_id" in c) and (c["cause_id"] is None) == c["ok"] for r in doc["reports"] for c in r["checks"])
    # --torch-only keeps the old behaviour: torch alone
    assert [r["target"] for r in _verify_json(dep_python, "--torch-only")["reports"]] == ["torch"]


def _torchvision_for_another_torch() -> str:
    minor = int(torch.__version__.split(".")[1])
    return "0.28.0" if minor == 12 else "0.27.0"  # 0.27.0 requires torch==2.12.0, 0.28.0 torch==2.13.0


@pytest.fixture(scope="module")
def tv_python(tmp_path_factory) -> Path:
    py = _venv(tmp_path_factory.mktemp("tv") / "venv")
    proc = subprocess.run(
        [*_pip(py), "install", "-q", "--no-deps", f"torchvision=={_torchvision_for_another_torch()}"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        pytest.skip("torchvision could not be installed from PyPI: " + proc.stderr[-500:])
    return py


def test_torchvision_built_for_another_torch_is_the_extension_mismatch(tv_python):
    doc = _verify_json(tv_python)
    rep = {r["target"]: r for r in doc["reports"]}["torchvision"]
    imp = next(c for c in rep["checks"] if c["id"] == "ext_import")
    assert imp["ok"] is False and imp["cause_id"] == "torch_extension_mismatch"
    want = rep["facts"]["distribution"]["requires_torch"]
    assert want and want.startswith("torch==") and torch.__version__.split("+")[0] not in want
    assert want in imp["message"] and torch.__version__ in imp["message"]  # the versions on both sides
    assert "pip install torchvision 'torch==" in imp["fix"] and "rebuild torchvision" in imp["fix"]
    assert not re.search(r"rebuild torch\b", imp["fix"])  # not "reinstall or rebuild torch" as before


def test_import_failures_are_named_by_the_diagnose_knowledge():
    ext = ExtensionInfo("torch_scatter", "torch-scatter", "2.1.2", "torch", ("libcudart.so.12",))
    f = explain_import_failure(
        "OSError: /x/site-packages/torch_scatter/_version_cuda.so: undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl",
        ext,
        torch_version="2.13.0+cpu",
        torch_cuda=None,
        torch_abi=True,
    )
    assert f.cause_id == "torch_extension_mismatch"
    assert "torch-scatter 2.1.2" in f.message and "torch 2.13.0+cpu" in f.message
    f = explain_import_failure(
        "ModuleNotFoundError: No module named 'scipy'", ext, torch_version="2.13.0", torch_cuda=None, torch_abi=True
    )
    assert f.cause_id == "python_dependency_missing" and "pip install scipy" in f.fix
    f = explain_import_failure(
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
        ext,
        torch_version="2.13.0",
        torch_cuda=None,
        torch_abi=True,
    )
    # an extension built for CUDA 12 under a CPU-only torch: undecided in a log alone between another CUDA and the
    # loader's path, and the CUDA mismatch first since session 28 (diagnose_rules_libraries._library_of_other_build)
    assert f.cause_id == "cuda_version_mismatch"
    assert "built for another CUDA than torch" in f.message and "(CPU-only)" in f.message
    assert "torch==2.13.0" in f.fix
