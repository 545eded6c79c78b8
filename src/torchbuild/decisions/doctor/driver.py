"""Checks of the NVIDIA driver against the CUDA versions in play, and of each GPU's compute
capability against the toolkit."""

from __future__ import annotations

from ...facts.model import Driver, Facts
from ...knowledge import compat
from ...knowledge.compat import major_minor, sm, version_lt, vkey
from .base import Finding, _gpu_cc, _unc_text, _uncertain
from .cuda import _arch_fix, _arch_support


def _check_driver_gpus(facts: Facts, out: list[Finding], cuda: bool) -> None:
    tk, drv = facts.cuda, facts.driver
    if not cuda:
        return
    if drv is None or not drv.version:
        out.append(
            Finding(
                "driver",
                "note",
                "No NVIDIA driver found (no NVML, no nvidia-smi, no /proc/driver/nvidia): a CUDA build still "
                "compiles (libcuda stubs), but nothing can run or be tested on this machine.",
                None,
            )
        )
    else:
        for label, cver in (
            ("the CUDA toolkit", tk.version if tk else None),
            ("the installed torch", facts.torch.cuda if facts.torch else None),
        ):
            if not cver:
                continue
            _driver_vs(facts, out, drv, cver, label)
    support = _arch_support(tk) if tk else None
    for gpu in facts.gpus:
        cc, how = _gpu_cc(gpu)
        if cc is None:
            out.append(
                Finding(
                    "gpu_arch",
                    "warning",
                    f"GPU {gpu.index} ({gpu.name}): compute capability unknown (the driver did not report it "
                    "and it is not in torchbuild's GPU table).",
                    "look it up at https://developer.nvidia.com/cuda-gpus and pass --arch X.Y",
                )
            )
            continue
        if tk is not None and support is not None and not support.supports(cc):
            sev = _uncertain("error", support)
            out.append(
                Finding(
                    "gpu_arch",
                    sev,
                    f"GPU {gpu.index} ({gpu.name}) is compute capability {cc} ({sm(cc)}), but nvcc "
                    f"{tk.version} compiles only for {support.describe()}: nothing built here would run on it "
                    f"(nvcc fatal   : Unsupported gpu architecture '{sm(cc)}'){_unc_text(sev != 'error')}.",
                    _arch_fix(cc, tk),
                )
            )


def _driver_vs(facts: Facts, out: list[Finding], drv: Driver, cver: str, label: str) -> None:
    if not drv.version:  # the caller checks it
        return
    mm = major_minor(cver) or cver
    if drv.cuda_version and not version_lt(drv.cuda_version, mm):
        return  # the driver itself says it supports this CUDA
    need = compat.driver_minimum(mm)
    floor = compat.driver_family_floor(mm)
    if need is None and floor is None:
        out.append(
            Finding(
                "driver",
                "note",
                f"No minimum driver is known for CUDA {mm} ({label}); driver {drv.version} is not checked.",
                None,
            )
        )
        return
    least = need if need is not None else floor
    assert least is not None  # both None returned above
    if need is not None and not version_lt(drv.version, need.min_driver):
        return
    fix = (
        f"install NVIDIA driver {need.min_driver} or newer"
        if need
        else f"install an NVIDIA driver >= {least.min_driver}"
    )
    if floor is not None and not version_lt(drv.version, floor.min_driver):
        out.append(
            Finding(
                "driver",
                "warning",
                f"Driver {drv.version} is older than CUDA {mm} ({label}) asks for ({need.min_driver if need else '?'})"
                f" but within CUDA {vkey(mm)[0]}.x minor-version compatibility (>= {floor.min_driver}): "
                "programs run with a limited feature set and PTX JIT fails (error 222, 'the provided PTX was "
                "compiled with an unsupported toolchain').",
                fix,
            )
        )
        return
    sev = _uncertain("error", need)
    out.append(
        Finding(
            "driver",
            sev,
            f"Driver {drv.version} is too old for CUDA {mm} ({label}), which needs "
            f">= {least.min_driver}: CUDA calls fail with 'CUDA driver version is "
            f"insufficient for CUDA runtime version' (error 35){_unc_text(sev != 'error')}.",
            fix + (f", or use a CUDA {vkey(mm)[0]}.x that this driver supports" if floor else ""),
        )
    )
