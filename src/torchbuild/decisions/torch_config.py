"""Parse the text of ``torch.__config__.show()`` (``torch._C._show_config()``).

Pure functions, no I/O.  The format (from ``aten/src/ATen/Version.cpp`` ``at::show_config``,
https://github.com/pytorch/pytorch/blob/v2.6.0/aten/src/ATen/Version.cpp, and observed outputs) is::

    PyTorch built with:
      - GCC 13.3
      - C++ Version: 202002
      - Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build ...
      - Intel(R) MKL-DNN v3.12.0 (Git Hash 80afa71...)
      - OpenMP 201511 (a.k.a. OpenMP 4.5)
      - CPU capability usage: AVX512
      - CUDA Runtime 12.8                      (only when CUDA is available at run time)
      - NVCC architecture flags: -gencode;arch=compute_80,code=sm_80;...   (idem)
      - CuDNN 91.0.2  (built against CUDA 12.9)                            (idem)
      - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, ..., USE_CUDA=0, ...,

Observed on torch 2.14.1+cu130 without a GPU (``tests/data/config``): the CUDA
bullets are absent, but ``Build settings`` still carries ``CUDA_VERSION``,
``CUDNN_VERSION`` and ``CUDA_FLAGS`` with the ``-gencode arch=compute_XY,code=sm_XY``
flags, so the arch list is read from there when the bullet is missing.  Values in
``Build settings`` are raw CMake strings (``ON`` but also ``0``/``1``, since PyTorch
forwards environment variables verbatim, §1b): use :func:`cmake_bool`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .cmake_cond import cmake_bool

__all__ = ["TorchConfig", "parse_torch_config", "cmake_bool", "arch_flags_to_list"]

_HEADER = "PyTorch built with:"
_SETTING_SPLIT = re.compile(r", (?=[A-Z][A-Z0-9_]*=)")
_ARCH_RE = re.compile(r"code=(sm|compute)_(\d+[af]?)")


def arch_flags_to_list(flags: list[str]) -> list[str]:
    """``["sm_80", "sm_90", "compute_90"]`` -> ``["8.0", "9.0+PTX"]`` (``TORCH_CUDA_ARCH_LIST`` form).

    ``sm_XY`` gives ``X.Y`` (the last digit is the minor: ``sm_100`` -> ``10.0``, suffix kept:
    ``sm_90a`` -> ``9.0a``); a ``compute_XY`` adds ``+PTX`` to the matching entry, or stands
    alone as ``X.Y+PTX`` when there is no ``sm_XY``.  Order: ascending by number.
    """

    def dotted(code: str) -> str:
        m = re.fullmatch(r"(\d+)(\d)([af]?)", code)
        if not m:
            return code
        return f"{m.group(1)}.{m.group(2)}{m.group(3)}"

    sass = {f[3:] for f in flags if f.startswith("sm_")}
    ptx = {f[8:] for f in flags if f.startswith("compute_")}
    codes = sorted(sass | ptx, key=lambda c: (int(re.match(r"\d+", c).group()), c))  # type: ignore[union-attr]
    return [dotted(c) + ("+PTX" if c in ptx else "") for c in codes]


@dataclass
class TorchConfig:
    """What ``torch.__config__.show()`` says about a build.

    :ivar compiler_kind: ``"gcc"``, ``"clang"``, ``"msvc"`` or None.
    :ivar compiler_version: as printed (``"13.3"``).
    :ivar cxx_version: the ``__cplusplus`` value (``"202002"``).
    :ivar cuda_runtime: ``"12.8"`` from the ``CUDA Runtime`` bullet, else the
        ``CUDA_VERSION`` build setting, else None (CPU build).
    :ivar nvcc_arch_flags: ``["sm_75", "sm_80", "compute_90"]`` from the ``NVCC
        architecture flags`` bullet, else from ``CUDA_FLAGS``; empty for a CPU build.
    :ivar cudnn: ``CUDNN_VERSION`` build setting (trusted over the bullet, which has been
        seen garbled: ``CuDNN 91.0.2``), else the bullet's version, else None.
    :ivar cpu_capability: ``"AVX512"``, ``"AVX2"``, ``"DEFAULT"``...
    :ivar openmp: ``"201511"``; :ivar mkl: the MKL bullet text; :ivar mkldnn: ``"3.12.0"``;
    :ivar magma: ``"2.6.1"``.
    :ivar build_settings: the raw ``Build settings`` key/values, in printed order.
    :ivar bullets: every bullet, without the ``  - `` prefix.
    """

    compiler_kind: str | None = None
    compiler_version: str | None = None
    cxx_version: str | None = None
    cuda_runtime: str | None = None
    nvcc_arch_flags: list[str] = field(default_factory=list)
    cudnn: str | None = None
    cpu_capability: str | None = None
    openmp: str | None = None
    mkl: str | None = None
    mkldnn: str | None = None
    magma: str | None = None
    build_settings: dict[str, str] = field(default_factory=dict)
    bullets: list[str] = field(default_factory=list)

    def setting(self, key: str) -> str | None:
        """Raw value of a build setting, or None when absent."""
        return self.build_settings.get(key)

    def flag(self, key: str) -> bool | None:
        """A build setting under CMake truthiness (``USE_CUDA=0`` -> False); None when absent."""
        return cmake_bool(self.build_settings.get(key))

    @property
    def build_type(self) -> str | None:
        """``BUILD_TYPE`` (``"Release"``, ``"Debug"``, ``"RelWithDebInfo"``)."""
        return self.build_settings.get("BUILD_TYPE")

    @property
    def torch_version(self) -> str | None:
        """``TORCH_VERSION`` (``"2.13.0"``, no local part)."""
        return self.build_settings.get("TORCH_VERSION")

    @property
    def commit_sha(self) -> str | None:
        """``COMMIT_SHA`` (seen from 2.8)."""
        return self.build_settings.get("COMMIT_SHA")

    @property
    def use_cuda(self) -> bool | None:
        """``USE_CUDA`` under CMake truthiness."""
        return self.flag("USE_CUDA")

    @property
    def arch_list(self) -> list[str]:
        """The compiled CUDA arches as ``TORCH_CUDA_ARCH_LIST`` entries (``["8.0", "9.0+PTX"]``)."""
        return arch_flags_to_list(self.nvcc_arch_flags)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict, with ``arch_list`` added."""
        d = asdict(self)
        d["arch_list"] = self.arch_list
        return d


def _arches(text: str) -> list[str]:
    seen: list[str] = []
    for kind, code in _ARCH_RE.findall(text):
        flag = f"{kind}_{code}"
        if flag not in seen:
            seen.append(flag)
    return seen


def parse_torch_config(text: str) -> TorchConfig:
    """Parse ``torch.__config__.show()`` output into a :class:`TorchConfig`.

    :param text: the whole text (leading/trailing blank lines are fine).
    :raises ValueError: the text has no ``PyTorch built with:`` header.
    """
    lines = text.strip("\n").splitlines()
    if not lines or lines[0].strip() != _HEADER:
        raise ValueError("not torch.__config__.show() output: it must start with 'PyTorch built with:'")
    cfg = TorchConfig()
    cudnn_bullet: str | None = None
    for raw in lines[1:]:
        stripped = raw.strip()
        if not stripped.startswith("- "):
            continue
        bullet = stripped[2:].strip()
        cfg.bullets.append(bullet)
        if bullet.startswith("Build settings:"):
            body = bullet[len("Build settings:") :].strip().rstrip(",").strip()
            for item in _SETTING_SPLIT.split(body) if body else []:
                key, sep, value = item.partition("=")
                if sep:
                    cfg.build_settings[key.strip()] = value.strip()
            continue
        if m := re.match(r"(GCC|clang|MSVC)\s+(\S+)", bullet):
            cfg.compiler_kind = m.group(1).lower()
            cfg.compiler_version = m.group(2)
        elif m := re.match(r"C\+\+ Version:\s*(\S+)", bullet):
            cfg.cxx_version = m.group(1)
        elif m := re.match(r"CUDA Runtime\s+(\S+)", bullet):
            cfg.cuda_runtime = m.group(1)
        elif bullet.startswith("NVCC architecture flags:"):
            cfg.nvcc_arch_flags = _arches(bullet)
        elif m := re.match(r"CuDNN\s+(\S+)", bullet):
            cudnn_bullet = m.group(1)
        elif m := re.match(r"CPU capability usage:\s*(\S+)", bullet):
            cfg.cpu_capability = m.group(1)
        elif m := re.match(r"OpenMP\s+(\d+)", bullet):
            cfg.openmp = m.group(1)
        elif "Math Kernel Library" in bullet:
            cfg.mkl = bullet
        elif m := re.match(r"Intel\(R\) MKL-DNN v(\S+)", bullet):
            cfg.mkldnn = m.group(1)
        elif m := re.match(r"Magma\s+(\S+)", bullet):
            cfg.magma = m.group(1)
    if cfg.cuda_runtime is None and cfg.build_settings.get("CUDA_VERSION"):
        cfg.cuda_runtime = cfg.build_settings["CUDA_VERSION"]
    if not cfg.nvcc_arch_flags and cfg.build_settings.get("CUDA_FLAGS"):
        cfg.nvcc_arch_flags = _arches(cfg.build_settings["CUDA_FLAGS"])
    cfg.cudnn = cfg.build_settings.get("CUDNN_VERSION") or cudnn_bullet
    return cfg
