"""``torchbuild verify`` on real installs.

* the torch 2.13.0+cpu wheel of the Python running the tests (what ``sys.executable`` has);
* a tiny real extension, ``tb_tiny_ext``: a ``CppExtension`` that registers an operator
  with ``TORCH_LIBRARY`` (ATen/c10 symbols, libtorch from the installed torch), built
  with ``pip wheel --no-build-isolation --no-deps`` against that torch and installed into
  a venv that sees the suite's packages (``support.venvs.overlay_venv``: that torch, no
  torch of its own);
* a broken extension, ``tb_broken_ext``: a ``CppExtension`` that also links a
  ``libtorch_cuda.so`` (a stub built here, as an extension built for a CUDA torch
  would), installed against the CPU torch, so ``ldd`` reports ``libtorch_cuda.so => not
  found``;
* the CUDA wheel torch 2.14.1+cu130 in the session's ``cuda_torch_python`` venv
  (tests/conftest.py installs it); there is no GPU here.

Building the two extensions takes about 20-40 s on 2 cores (the ATen headers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.venvs import overlay_venv
from torchbuild.actions.verify import Expectations, arch_runs_on, verify_extension, verify_torch
from torchbuild.cli import main
from torchbuild.errors import UsageError

torch = pytest.importorskip("torch")
TORCH_LIB = os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib"))

TINY_SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
setup(name="tb_tiny_ext", version="0.1.0", packages=["tb_tiny_ext"],
      ext_modules=[CppExtension("tb_tiny_ext._C", ["csrc/twice.cpp"])],
      cmdclass={"build_ext": BuildExtension})
"""
TINY_CPP = r"""
#include <Python.h>
#include <ATen/core/Tensor.h>
#include <torch/library.h>

at::Tensor twice(const at::Tensor& x) { return x.mul(2); }

TORCH_LIBRARY(tb_tiny_ext, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(tb_tiny_ext, CPU, m) { m.impl("twice", &twice); }

extern "C" PyObject* PyInit__C(void) {
  static PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&def);
}
"""
BROKEN_SETUP = """
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
stub = os.environ["TB_STUB_DIR"]
setup(name="tb_broken_ext", version="0.1.0", packages=["tb_broken_ext"],
      ext_modules=[CppExtension("tb_broken_ext._C", ["csrc/mod.cpp"], library_dirs=[stub],
                                libraries=["torch_cuda"], extra_link_args=["-Wl,--no-as-needed"])],
      cmdclass={"build_ext": BuildExtension})
"""
BROKEN_CPP = r"""
#include <Python.h>
extern "C" int tb_cuda_stub(void);
extern "C" PyObject* PyInit__C(void) {
  static PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  tb_cuda_stub();
  return PyModule_Create(&def);
}
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture(scope="module")
def ext_python(tmp_path_factory) -> Path:
    """A venv that sees the suite's torch, with both extensions installed."""
    base = tmp_path_factory.mktemp("ext")
    tiny = _write(
        base / "tiny",
        {
            "setup.py": TINY_SETUP,
            "tb_tiny_ext/__init__.py": "import torch\nfrom . import _C\n",
            "csrc/twice.cpp": TINY_CPP,
        },
    )
    broken = _write(
        base / "broken",
        {
            "setup.py": BROKEN_SETUP,
            "tb_broken_ext/__init__.py": "import torch\nfrom . import _C\n",
            "csrc/mod.cpp": BROKEN_CPP,
        },
    )
    stub = base / "stub"
    stub.mkdir()
    (stub / "stub.c").write_text("int tb_cuda_stub(void) { return 0; }\n")
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-Wl,-soname,libtorch_cuda.so",
            "-o",
            str(stub / "libtorch_cuda.so"),
            str(stub / "stub.c"),
        ],
        check=True,
        timeout=60,
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(TB_STUB_DIR=str(stub), MAX_JOBS="2")
    dist = base / "dist"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            str(dist),
            str(tiny),
            str(broken),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    python = overlay_venv(base / "venv")
    wheels = sorted(str(p) for p in dist.glob("*.whl"))
    assert len(wheels) == 2
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", *wheels], check=True, timeout=300, capture_output=True
    )
    return python


def test_installed_torch_passes_with_matching_expectations():
    cfg_type = torch.__config__.show().split("BUILD_TYPE=")[1].split(",")[0]
    expect = Expectations(
        version=torch.__version__.split("+")[0],
        cuda=torch.version.cuda or "",
        cxx11_abi=torch._C._GLIBCXX_USE_CXX11_ABI,
        build_type=cfg_type.lower(),
    )
    report = verify_torch(sys.executable, expect)
    assert report.ok, report.failed
    ids = [c.id for c in report.checks]
    assert ids[:2] == ["import", "config"]
    assert {"version", "cuda", "cxx11_abi", "build_type", "op", "ldd"} <= set(ids)
    assert report.facts["version"] == torch.__version__
    assert report.facts["cuda"] == torch.version.cuda
    assert report.facts["cxx11_abi"] == torch._C._GLIBCXX_USE_CXX11_ABI
    assert report.facts["config"]["build_settings"]["TORCH_VERSION"] == torch.__version__.split("+")[0]
    files = report.facts["files"]
    assert any(os.path.basename(f).startswith("_C") for f in files)
    assert os.path.join(TORCH_LIB, "libtorch_cpu.so") in files
    for info in files.values():
        assert all(resolved for resolved in info["ldd"].values())
    assert json.loads(json.dumps(report.to_json_dict()))["ok"] is True


def test_wrong_cuda_expectation_fails_with_a_fix():
    if torch.version.cuda is not None:
        pytest.skip("needs a CPU-only torch")
    report = verify_torch(sys.executable, Expectations(cuda="12.8", version="1.0.0", arch_list=["8.6"]))
    assert not report.ok
    cuda = report.check("cuda")
    assert not cuda.ok and "12.8" in cuda.message and "CPU-only" in cuda.message
    assert "cu128" in cuda.fix and "USE_CUDA=1" in cuda.fix
    assert not report.check("version").ok and "1.0.0" in report.check("version").message
    assert not report.check("arch_list").ok and "8.6" in report.check("arch_list").message
    assert report.check("op").ok and report.check("ldd").ok  # the rest is still checked


def test_cli_exit_codes_and_json(capsys):
    assert main(["verify", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["reports"][0]["target"] == "torch"
    if torch.version.cuda is None:
        assert main(["verify", "--expect-cuda", "12.8"]) == 1
        captured = capsys.readouterr()
        assert "FAIL cuda" in captured.err and "fix:" in captured.err and captured.out == ""
    assert main(["verify", "--python", "/nonexistent/python"]) == 2
    assert main(["verify", "--expect-cuda", "twelve"]) == 2
    assert main(["verify", "--smoke", "pass"]) == 2


def test_missing_python_is_a_usage_error():
    with pytest.raises(UsageError, match="does not exist"):
        verify_torch("/nonexistent/python3")


def test_built_extension_passes(ext_python):
    smoke = "t = torch.ops.tb_tiny_ext.twice(torch.tensor([1.0, 2.5]))\nassert t.tolist() == [2.0, 5.0], t"
    report = verify_extension(
        str(ext_python), "tb_tiny_ext", smoke=smoke, expect=Expectations(cuda=torch.version.cuda or "")
    )
    assert report.ok, report.failed
    for check_id in ("import", "ext_import", "ext_ldd", "ext_libtorch", "ext_cuda", "ext_abi", "smoke"):
        assert report.check(check_id) is not None and report.check(check_id).ok, check_id
    files = report.facts["files"]
    assert len(files) == 1 and os.path.basename(next(iter(files))).startswith("_C.cpython")
    info = next(iter(files.values()))
    assert "libc10.so" in info["needed"]
    assert os.path.dirname(os.path.realpath(info["ldd"]["libc10.so"])) == TORCH_LIB
    assert report.facts["mapped_torch_libs"] and all(
        os.path.dirname(os.path.realpath(p)) == TORCH_LIB for p in report.facts["mapped_torch_libs"]
    )
    if torch._C._GLIBCXX_USE_CXX11_ABI:
        assert report.facts["ext_cxx11_symbols"] > 0  # it takes std::string (c10 schema strings)


def test_failing_smoke_is_reported(ext_python):
    report = verify_extension(
        str(ext_python),
        "tb_tiny_ext",
        smoke="assert torch.ops.tb_tiny_ext.twice(torch.tensor([1.0])).tolist() == [3.0]",
    )
    smoke = report.check("smoke")
    assert not report.ok and not smoke.ok and "AssertionError" in smoke.message
    assert report.check("ext_import").ok


def test_extension_with_missing_libtorch_dependency(ext_python):
    report = verify_extension(str(ext_python), "tb_broken_ext")
    assert not report.ok
    ldd = report.check("ext_ldd")
    assert not ldd.ok and "libtorch_cuda.so => not found" in ldd.message and ldd.fix
    imp = report.check("ext_import")
    assert not imp.ok and "libtorch_cuda.so" in imp.message
    if torch.version.cuda is None:
        cuda = report.check("ext_cuda")
        assert not cuda.ok and "CPU-only" in cuda.message
    assert report.check("import").ok  # torch itself is fine


def test_missing_extension_module(ext_python):
    report = verify_extension(str(ext_python), "tb_no_such_ext")
    check = report.check("ext_import")
    assert not check.ok and "No module named" in check.message and "install tb_no_such_ext" in check.fix


@pytest.mark.slow
def test_cuda_wheel_without_gpu(cuda_torch_python):
    """torch 2.14.1+cu130 from PyPI on this GPU-less machine: everything resolves (libcuda.so.1,
    the driver's, is only a note); a wrong CUDA and a missing PTX arch fail."""
    report = verify_torch(
        str(cuda_torch_python), Expectations(cuda="12.8", arch_list=["8.6", "9.0+PTX"], cxx11_abi=True)
    )
    assert report.facts["cuda"] == "13.0" and report.facts["cuda_available"] is False
    assert "8.6" in report.facts["config"]["arch_list"]
    assert not report.check("cuda").ok and "13.0" in report.check("cuda").message
    arch = report.check("arch_list")
    assert not arch.ok and "missing ['9.0+PTX']" in arch.message  # sm_90 is there, compute_90 is not
    assert {c.id for c in report.failed} == {"cuda", "arch_list"}
    assert report.check("ldd").ok and "libcuda.so.1" in report.check("driver_libs").message


@pytest.mark.parametrize(
    "flags,cap,expected",
    [
        (["sm_80"], "8.6", True),  # same major, newer minor runs the cubin
        (["sm_86"], "8.0", False),
        (["sm_80"], "9.0", False),  # no PTX: a new major cannot run it
        (["sm_80", "compute_80"], "9.0", True),  # PTX is JIT-compiled forward
        (["sm_90a"], "9.0", True),
        (["sm_90a"], "10.0", False),
        (["compute_100"], "9.0", False),
    ],
)
def test_arch_runs_on(flags, cap, expected):
    assert arch_runs_on(flags, cap) is expected
