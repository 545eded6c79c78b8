"""``package inspect`` on the real files of the installed torch wheels.

torch 2.13.0 (CPU) is the test interpreter's own.  torch 2.14.1+cu130 cannot run here (no
GPU) but its files are read as they are (see ``conftest.py``).  Expectations are cross-checked
against facts the wheels state themselves (their ``WHEEL`` platform tag, their
``torch.__config__.show()`` arch flags), not written down from a previous run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchbuild.actions.package.inspect import inspect_path
from torchbuild.decisions.torch_config import parse_torch_config
from torchbuild.facts.elf_deps import find_cuobjdump, ldconfig_cache, read_elf

DATA = Path(__file__).resolve().parents[1] / "data" / "config"


def _wheel_platform(torch_dir: Path) -> str:
    """The platform tag the wheel's own ``WHEEL`` file declares (``manylinux_2_28_x86_64``)."""
    info = next(torch_dir.parent.glob("torch-*.dist-info"))
    tag = re.search(r"^Tag:\s*\S+-\S+-(\S+)", (info / "WHEEL").read_text(), re.MULTILINE).group(1)
    return tag


def test_cpu_wheel_library_rpaths_needed_and_policy(cpu_torch, cli):
    lib = cpu_torch / "lib" / "libtorch_cpu.so"
    rep = inspect_path(lib)
    f = rep.files[0]
    assert rep.kind == "file" and f.path == "libtorch_cpu.so"
    assert f.rpath + f.runpath and all(e.startswith("$ORIGIN") for e in f.rpath + f.runpath)
    assert "libc10.so" in f.needed and f.needed["libc10.so"] == str(cpu_torch / "lib" / "libc10.so")
    assert not rep.unresolved
    assert rep.versions["GLIBC"] and rep.versions["GLIBCXX"]
    assert rep.cuda_sass == [] and f.cuda["reason"].startswith("no CUDA device code")
    # the JSON of the CLI says the same
    r = cli("package", "inspect", str(lib), "--json", "--no-arches")
    assert r.returncode == 0, r.stderr
    assert r.json["files"][0]["needed"]["libc10.so"] == str(cpu_torch / "lib" / "libc10.so")


def test_cpu_torch_tree_fits_the_policy_its_wheel_declares(cpu_torch):
    rep = inspect_path(cpu_torch, arches=False)
    names = {f.path for f in rep.files}
    assert "lib/libtorch_cpu.so" in names and any(re.fullmatch(r"_C\.cpython-\d+.*\.so", n) for n in names)
    # the libraries and the Python module have $ORIGIN entries only; the official wheel's C++ test
    # executables in bin/ and test/ keep MKL's absolute /lib/intel64 entries (seen in 2.13.0)
    assert not [p for p in rep.absolute_rpaths if p.startswith("lib/") or p.startswith("_C.")]
    assert all(p.startswith(("bin/", "test/")) for p in rep.absolute_rpaths), rep.absolute_rpaths
    c = next(f for f in rep.files if f.path.startswith("_C."))
    assert c.needed["libtorch_python.so"] == "lib/libtorch_python.so"  # found through $ORIGIN/lib, inside the tree
    declared = _wheel_platform(cpu_torch)
    assert f"{rep.manylinux['policy']}_x86_64" == declared, (rep.manylinux, rep.versions)
    assert rep.manylinux["external"] == [], rep.manylinux  # the wheel bundles what it needs (libgomp)
    assert rep.sizes["lib libtorch_cpu.so"] > 50 * 2**20 and rep.sizes["headers"] > 0 and rep.sizes["python"] > 0
    assert rep.sizes["executables"] > 0  # bin/ and test/ programs


def test_cuda_wheel_libraries_driver_library_and_rpaths_to_nvidia_wheels(cuda_torch):
    rep = inspect_path(cuda_torch / "lib" / "libtorch_cuda.so", arches=False)
    f = rep.files[0]
    info = read_elf(str(cuda_torch / "lib" / "libtorch_cuda.so"))
    assert info.fatbin_bytes > 0  # it carries device code
    assert all(e.startswith("$ORIGIN") for e in f.rpath + f.runpath)
    assert any("nvidia" in e for e in f.rpath + f.runpath)  # the PyPI CUDA wheels, relative to $ORIGIN
    cudart = next(n for n in f.needed if n.startswith("libcudart.so"))
    if (cuda_torch.parent / "nvidia").is_dir():  # installed with the nvidia-* wheels beside it
        assert f.needed[cudart] and "/nvidia/" in f.needed[cudart]
    else:  # read from the wheel file alone: the RPATH folders are absent, so ld.so falls back to its cache
        assert f.needed[cudart] == ldconfig_cache().get(cudart)
        assert (f.needed[cudart] is None) == (cudart in rep.unresolved)
    if f.needed.get("libcuda.so.1", "x") is None:  # needed and not found: no NVIDIA driver on this machine
        assert "libcuda.so.1" in rep.driver_libs and "libcuda.so.1" not in rep.unresolved
    declared = _wheel_platform(cuda_torch)
    tree = inspect_path(cuda_torch / "lib", arches=False)
    assert f"{tree.manylinux['policy']}_x86_64" == declared, (tree.manylinux, tree.versions)


def test_cuda_arches_match_the_wheels_own_config(cuda_torch):
    """With cuobjdump (CUDA toolkit or ``pip install nvidia-cuda-cuobjdump``) the SASS arches of
    libtorch_cuda.so are those of the -gencode flags torch.__config__.show() prints for
    2.14.1; without it the report says why, naming how to get it."""
    rep = inspect_path(cuda_torch / "lib" / "libtorch_cuda.so")
    if find_cuobjdump() is None:
        assert rep.cuda_sass == [] and any("cuobjdump was not found" in n for n in rep.cuda_notes)
        pytest.skip("cuobjdump not installed: the fallback message was checked instead")
    cfg = parse_torch_config((DATA / "torch-2.14.1+cu130.nogpu.show.txt").read_text())
    expected = sorted({a for a in cfg.nvcc_arch_flags if a.startswith("sm_")}, key=lambda a: int(a[3:]))
    assert rep.cuda_sass == expected, rep.cuda_notes


def test_bad_input_is_one_clear_error(tmp_path, cli):
    r = cli("package", "inspect", str(tmp_path / "missing.whl"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    txt = tmp_path / "notes.txt"
    txt.write_text("hello")
    r = cli("package", "inspect", str(txt))
    assert r.returncode == 2 and "neither a wheel" in r.stderr
