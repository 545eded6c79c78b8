"""Parsing ``torch.__config__.show()`` on real recorded texts.

Recordings in ``tests/data/config/``:

* ``torch-2.13.0+cpu.show.txt``: ``torch.__config__.show()`` of the PyPI wheel
  torch 2.13.0+cpu installed in this development machine's global Python 3.11
  (Debian 12, x86_64, no GPU), written verbatim with ``open(...).write(show())``.
* ``torch-2.14.1+cu130.nogpu.show.txt``: the same call on the PyPI wheel torch 2.14.1
  (CUDA 13.0 build, ``pip install torch==2.14.1`` into a venv at ``/tmp/venv-cu``) on the
  same machine, which has no GPU: the ``CUDA Runtime``/``NVCC architecture flags``/
  ``CuDNN`` bullets are absent, the arches come from ``CUDA_FLAGS``.
* ``torch-2.11.0+cu130.h200.show.txt``: the same call on a lent H200 machine with its
  image's torch 2.11.0+cu130 (``tests/data/gpu/record.sh``, copied from
  ``tests/data/gpu/h200-2026-11-26/torch-config-show.txt``): with a GPU the bullets are there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from torchbuild.decisions.torch_config import arch_flags_to_list, cmake_bool, parse_torch_config

DATA = Path(__file__).resolve().parent.parent / "data" / "config"


def load(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_cpu_wheel_2_13():
    cfg = parse_torch_config(load("torch-2.13.0+cpu.show.txt"))
    assert (cfg.compiler_kind, cfg.compiler_version, cfg.cxx_version) == ("gcc", "13.3", "202002")
    assert cfg.cuda_runtime is None and cfg.nvcc_arch_flags == [] and cfg.arch_list == []
    assert cfg.cudnn is None
    assert cfg.build_settings["USE_CUDA"] == "0"  # raw value, forwarded verbatim from the env
    assert cfg.use_cuda is False and cfg.flag("USE_CUDNN") is False and cfg.flag("USE_GLOO") is True
    assert cfg.build_type == "Release" and cfg.torch_version == "2.13.0"
    assert cfg.commit_sha.startswith("cf30153c4c13")  # the v2.13.0 tag commit
    assert cfg.cpu_capability == "AVX512" and cfg.openmp == "201511" and cfg.mkldnn == "3.12.0"
    assert cfg.mkl and cfg.mkl.startswith("Intel(R) oneAPI Math Kernel Library")
    # CXX_FLAGS holds spaces; CUDA_FLAGS holds commas: both must stay whole
    assert cfg.setting("CXX_FLAGS").startswith("-fvisibility-inlines-hidden") and "-Wall -Wextra" in cfg.setting(
        "CXX_FLAGS"
    )
    assert cfg.setting("CUDA_FLAGS").endswith("-DC10_NODEPRECATED")
    assert list(cfg.build_settings)[0] == "BLAS_INFO" and list(cfg.build_settings)[-1] == "USE_XPU"
    assert "NNPACK is enabled" in cfg.bullets


def test_cuda_wheel_2_14_without_gpu():
    cfg = parse_torch_config(load("torch-2.14.1+cu130.nogpu.show.txt"))
    assert cfg.cuda_runtime == "13.0"  # from CUDA_VERSION: no CUDA Runtime bullet without a GPU
    assert not any(b.startswith("CUDA Runtime") for b in cfg.bullets)
    assert cfg.nvcc_arch_flags == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert cfg.arch_list == ["7.5", "8.0", "8.6", "9.0", "10.0", "12.0"]
    assert cfg.cudnn == "9.24.0"
    assert cfg.use_cuda is True and cfg.flag("USE_CUSPARSELT") is True and cfg.flag("USE_NCCL") is True
    assert cfg.torch_version == "2.14.1" and cfg.commit_sha.startswith("5c4886908584")
    assert "--diag_suppress=cc_clobber_ignored,--diag_suppress=field_without_dll_interface" in cfg.setting("CUDA_FLAGS")
    d = cfg.to_dict()
    assert d["arch_list"] == cfg.arch_list and d["build_settings"]["CUDNN_VERSION"] == "9.24.0"


def test_cuda_wheel_2_11_on_an_h200():
    """With a GPU, the CUDA bullets are printed; its cuDNN bullet reads ``CuDNN 91.9`` for cuDNN
    9.19.0 (the digits run together), so the version is taken from ``CUDNN_VERSION``."""
    text = load("torch-2.11.0+cu130.h200.show.txt")
    assert "  - CuDNN 91.9  (built against CUDA 13.1)" in text.splitlines()
    cfg = parse_torch_config(text)
    assert cfg.cuda_runtime == "13.0" and any(b == "CUDA Runtime 13.0" for b in cfg.bullets)
    assert cfg.nvcc_arch_flags == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert cfg.arch_list == ["7.5", "8.0", "8.6", "9.0", "10.0", "12.0"]
    assert cfg.cudnn == "9.19.0"
    assert cfg.torch_version == "2.11.0" and cfg.commit_sha.startswith("70d99e998b49")
    assert (cfg.compiler_kind, cfg.compiler_version, cfg.cxx_version) == ("gcc", "13.3", "201703")
    assert cfg.use_cuda is True and cfg.flag("USE_NCCL") is True and cfg.flag("USE_XPU") is False


def test_gpu_bullets_win_over_build_settings():
    """Bullet lines as §10 of pytorch-build-facts.md quotes them (2.10.0+cu128 on a GPU:
    ``CuDNN 91.0.2`` printed while ``CUDNN_VERSION=9.10.2``), around the real 2.14.1 text."""
    real = load("torch-2.14.1+cu130.nogpu.show.txt").splitlines()
    gpu = [
        "  - CUDA Runtime 12.8",
        "  - NVCC architecture flags: -gencode;arch=compute_80,code=sm_80;-gencode;arch=compute_90,code=sm_90;"
        "-gencode;arch=compute_90,code=compute_90",
        "  - CuDNN 91.0.2  (built against CUDA 12.9)",
        "  - Magma 2.6.1",
    ]
    text = "\n".join(real[:-1] + gpu + [real[-1].replace("CUDNN_VERSION=9.24.0", "CUDNN_VERSION=9.10.2")])
    cfg = parse_torch_config(text)
    assert cfg.cuda_runtime == "12.8"
    assert cfg.nvcc_arch_flags == ["sm_80", "sm_90", "compute_90"] and cfg.arch_list == ["8.0", "9.0+PTX"]
    assert cfg.cudnn == "9.10.2" and cfg.magma == "2.6.1"


def test_installed_torch_live():
    torch = pytest.importorskip("torch")
    cfg = parse_torch_config(torch.__config__.show())
    assert cfg.torch_version == torch.__version__.split("+")[0]
    assert cfg.use_cuda is (torch.version.cuda is not None)
    assert cfg.commit_sha == torch.version.git_version


@pytest.mark.parametrize(
    "value,expected",
    [
        ("ON", True),
        ("1", True),
        ("y", True),
        ("True", True),
        ("2", True),
        ("OFF", False),
        ("0", False),
        ("", False),
        ("n", False),
        ("CUDNN-NOTFOUND", False),
        ("NOTFOUND", False),
        (None, None),
        ("mkl", None),
    ],
)
def test_cmake_bool(value, expected):
    assert cmake_bool(value) is expected


def test_arch_flags_to_list_orders_and_marks_ptx():
    assert arch_flags_to_list(["sm_100", "sm_90a", "compute_120", "sm_86"]) == ["8.6", "9.0a", "10.0", "12.0+PTX"]


def test_rejects_other_text():
    with pytest.raises(ValueError, match="PyTorch built with"):
        parse_torch_config("Collecting environment information...\nPyTorch version: 2.13.0")
