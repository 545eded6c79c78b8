"""``replicate``'s decisions on real ``torch.__config__.show()`` texts.

The texts are real: ``tests/data/config/torch-2.13.0+cpu.show.txt`` and
``torch-2.14.1+cu130.nogpu.show.txt`` were printed by the installed wheels (2.14.1 on a
machine without a GPU: readable, the CUDA bullets are absent, CUDA_FLAGS carries the
arches), ``torch-1.8.0-seed003.repr.txt`` is the REPL line quoted in seed 003 (a CUDA 11.0
conda build).  The machine is given explicitly, so each finding is checked against a
known machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from torchbuild.cli.replicate import read_config_text
from torchbuild.decisions.plan import PROFILE_KEYS
from torchbuild.decisions.replicate import nvcc_flags_from, profile_toml, replicate
from torchbuild.decisions.torch_config import parse_torch_config

DATA = Path(__file__).resolve().parents[1] / "data" / "config"
MACHINE = dict(cuda_version=None, cudnn_version=None, compiler=("gcc", "12.2.0"), mkl=False, openblas=True)


def _cfg(name: str):
    return parse_torch_config(read_config_text(DATA / name))


def test_cpu_2_13_0_becomes_a_cpu_release_profile_with_mkl_and_use_flags():
    rep = replicate(_cfg("torch-2.13.0+cpu.show.txt"), **MACHINE)
    p = rep.profile
    assert rep.name == "replica-2.13.0-cpu" and rep.source == "pytorch@v2.13.0"
    assert rep.commit == "cf30153c4c131c8164ee7798e5022d810682e2cb"
    assert p["cuda"] is False and p["build_type"] == "Release" and p["mode"] == "wheel" and p["inherits"] == "release"
    assert "arch" not in p and "nvcc_flags" not in p
    s = p["set"]
    assert s["BLAS"] == "MKL" and s["USE_MKLDNN"] == "1" and s["USE_NCCL"] == "0" and s["USE_GLOO"] == "1"
    assert "PYTORCH_BUILD_VERSION" not in s and "USE_CUDA" not in s  # the version is the source's, not the profile's
    assert set(p) <= set(PROFILE_KEYS)
    checks = {(f.check, f.severity) for f in rep.findings}
    assert ("blas", "warning") in checks  # MKL absent here
    assert ("compiler", "note") in checks  # GCC 13.3 there, gcc 12 here
    assert not any(f.check.startswith("cuda") for f in rep.findings)


def test_cuda_2_14_1_keeps_arches_nvcc_flags_and_flags_the_missing_toolkit():
    rep = replicate(_cfg("torch-2.14.1+cu130.nogpu.show.txt"), **MACHINE)
    p = rep.profile
    assert rep.name == "replica-2.14.1-cu130"
    assert p["cuda"] is True and p["arch"] == "7.5;8.0;8.6;9.0;10.0;12.0"
    assert p["nvcc_flags"] == "-Xfatbin -compress-all --threads 2 -compress-mode=size"
    assert p["set"]["USE_CUDNN"] == "1" and p["set"]["USE_NCCL"] == "1"
    errors = {f.check for f in rep.findings if f.severity == "error"}
    assert errors == {"cuda_toolkit", "cudnn"}
    # the same text on a machine with CUDA 13.0 and cuDNN 9.24: nothing CUDA-related stands in the way
    rep2 = replicate(
        _cfg("torch-2.14.1+cu130.nogpu.show.txt"),
        **{**MACHINE, "cuda_version": "13.0", "cudnn_version": "9.24.0", "mkl": True},
    )
    assert not [f for f in rep2.findings if f.severity in ("error", "warning")]
    # another major CUDA is an error, another minor a warning
    rep3 = replicate(
        _cfg("torch-2.14.1+cu130.nogpu.show.txt"), **{**MACHINE, "cuda_version": "12.8", "cudnn_version": "9.24.0"}
    )
    assert ("cuda_version", "error") in {(f.check, f.severity) for f in rep3.findings}


def test_seed_003_pytorch_1_8_0_repr_text():
    cfg = _cfg("torch-1.8.0-seed003.repr.txt")
    rep = replicate(cfg, **{**MACHINE, "cuda_version": "13.0"})
    p = rep.profile
    assert rep.version == "1.8.0" and rep.name == "replica-1.8.0-cu110" and rep.commit is None
    assert p["arch"] == "6.1;7.0;7.5;8.0"  # from the NVCC architecture flags bullet
    assert p["set"]["USE_EXCEPTION_PTR"] == "1"  # kept: a 1.8 tree's plan applies it, a newer one skips it
    checks = {(f.check, f.severity) for f in rep.findings}
    assert ("cuda_version", "error") in checks  # CUDA 11.0 there, 13.0 here
    assert ("magma", "warning") in checks and ("cudnn", "error") in checks


def test_profile_toml_parses_back_to_the_same_profile():
    rep = replicate(_cfg("torch-2.14.1+cu130.nogpu.show.txt"), **MACHINE)
    doc = tomllib.loads(profile_toml(rep, origin="test"))
    assert doc["profile"][rep.name] == rep.profile


def test_nvcc_flags_from_cuda_flags():
    assert nvcc_flags_from("-DX -Xfatbin -compress-all -gencode arch=compute_80,code=sm_80") == "-Xfatbin -compress-all"
    assert nvcc_flags_from("-DX") is None
    assert (
        nvcc_flags_from("-Xfatbin -compress-all --threads 4 --compress-mode=default")
        == "-Xfatbin -compress-all --threads 4 --compress-mode=default"
    )


def test_abi_flag_in_cxx_flags_becomes_the_setup_py_variable():
    text = (
        (DATA / "torch-2.13.0+cpu.show.txt")
        .read_text()
        .replace("CXX_FLAGS= ", "CXX_FLAGS= -D_GLIBCXX_USE_CXX11_ABI=0 ")
    )
    rep = replicate(parse_torch_config(text), **MACHINE)
    assert rep.profile["set"]["_GLIBCXX_USE_CXX11_ABI"] == "0"
