"""NVIDIA driver and GPUs: NVML first, then ``nvidia-smi``, then ``/proc/driver/nvidia``.

Formats (NVML: https://docs.nvidia.com/deploy/nvml-api/; ``nvidia-smi``: its manual page,
https://docs.nvidia.com/deploy/nvidia-smi/; recorded outputs in ``tests/facts/test_gpu_formats.py``):

* NVML (``pip install nvidia-ml-py``, ``import pynvml``): ``nvmlSystemGetDriverVersion()``
  -> ``"580.95.05"``; ``nvmlSystemGetCudaDriverVersion()`` -> ``13000`` (major = v // 1000,
  minor = v % 1000 // 10); per device ``nvmlDeviceGetName``, ``nvmlDeviceGetCudaComputeCapability``
  -> ``(9, 0)``, ``nvmlDeviceGetMemoryInfo(h).total`` (bytes).
* ``nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version
  --format=csv,noheader,nounits`` -> ``0, NVIDIA H100 80GB HBM3, 9.0, 81559, 580.159.04``
  (older drivers reject ``compute_cap``: asked again without it); the newest CUDA the driver
  supports is the ``CUDA Version: 13.0`` of plain ``nvidia-smi``'s header.
* ``/proc/driver/nvidia/version`` line 1: ``NVRM version: NVIDIA UNIX x86_64 Kernel Module
  550.135 ...`` (driver version only).

No NVIDIA driver: ``(None, [])``.  Where no sign of a driver exists (no ``/dev/nvidiactl``,
``/proc/driver/nvidia``, WSL's ``/dev/dxg``, no ``nvidia-smi`` on PATH) NVML is not loaded
at all: importing and initialising it costs tens of milliseconds on every build of a
machine without a GPU.  The user-space driver loads the kernel module and creates the
``/dev/nvidia*`` device files itself when needed (nvidia-modprobe(1)), so a missing device
file alone does not rule a driver out; an installed driver always brings ``nvidia-smi``.
"""

from __future__ import annotations

import contextlib
import os
import re

from ._util import first_match, read_text, run, which
from .model import GPU, Driver

__all__ = ["probe_gpus", "parse_smi_query", "parse_smi_header_cuda", "parse_procfs_version", "SMI_QUERY"]

#: The ``nvidia-smi`` query used when NVML does not load.
SMI_QUERY = ["--query-gpu=index,name,compute_cap,memory.total,driver_version", "--format=csv,noheader,nounits"]
_SMI_QUERY_OLD = ["--query-gpu=index,name,memory.total,driver_version", "--format=csv,noheader,nounits"]


def _s(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _probe_nvml() -> tuple[Driver | None, list[GPU]] | None:
    try:
        import pynvml  # nvidia-ml-py
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # NVMLError_LibraryNotFound, DriverNotLoaded, mismatch...
        return None
    try:
        drv = Driver(version=_s(pynvml.nvmlSystemGetDriverVersion()), found_by="nvml")
        try:
            v = int(pynvml.nvmlSystemGetCudaDriverVersion())
            drv.cuda_version = f"{v // 1000}.{(v % 1000) // 10}"
        except Exception:
            pass
        gpus = []
        for i in range(int(pynvml.nvmlDeviceGetCount())):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            gpu = GPU(index=i, name=_s(pynvml.nvmlDeviceGetName(h)))
            try:
                major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(h)
                gpu.compute_capability = f"{major}.{minor}"
            except Exception:
                pass
            with contextlib.suppress(Exception):
                gpu.memory_mib = int(pynvml.nvmlDeviceGetMemoryInfo(h).total) // (1 << 20)
            gpus.append(gpu)
        return drv, gpus
    except Exception:
        return None
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def parse_smi_query(text: str, with_cc: bool = True) -> tuple[str | None, list[GPU]]:
    """(driver version, GPUs) from the CSV of :data:`SMI_QUERY` (or the query without
    ``compute_cap`` when ``with_cc`` is False)."""
    gpus: list[GPU] = []
    driver = None
    for line in text.strip().splitlines():
        cols = [c.strip() for c in line.split(",")]
        if with_cc and len(cols) >= 5:
            idx, name, cc, mem, drv = cols[:5]
        elif not with_cc and len(cols) >= 4:
            idx, name, mem, drv = cols[:4]
            cc = ""
        else:
            continue
        driver = drv or driver
        gpus.append(
            GPU(
                index=int(idx) if idx.isdigit() else len(gpus),
                name=name,
                compute_capability=cc if re.fullmatch(r"\d+\.\d+", cc) else None,
                memory_mib=int(float(mem)) if re.fullmatch(r"\d+(\.\d+)?", mem) else None,
            )
        )
    return driver, gpus


def parse_smi_header_cuda(text: str) -> str | None:
    """``13.0`` from ``CUDA Version: 13.0`` in plain ``nvidia-smi`` output."""
    return first_match(r"CUDA Version:\s*(\d+\.\d+)", text)


def parse_procfs_version(text: str) -> str | None:
    """Driver version from ``/proc/driver/nvidia/version`` line 1 (first ``\\d+.\\d+(.\\d+)?``
    after "Module")."""
    return first_match(r"Module.*?\s(\d+\.\d+(?:\.\d+)?)(?:\s|$)", text.splitlines()[0] if text else "")


def _probe_smi() -> tuple[Driver | None, list[GPU]] | None:
    smi = which("nvidia-smi")
    if smi is None:
        return None
    out = run([smi, *SMI_QUERY])
    with_cc = True
    if out is not None and out.returncode != 0 and "compute_cap" in out.text:
        out = run([smi, *_SMI_QUERY_OLD])
        with_cc = False
    if out is None or out.returncode != 0:
        return None
    version, gpus = parse_smi_query(out.stdout, with_cc=with_cc)
    header = run([smi])
    cuda = parse_smi_header_cuda(header.stdout) if header else None
    return Driver(version=version, cuda_version=cuda, found_by="nvidia-smi"), gpus


#: Files whose presence means an NVIDIA driver may be there (Linux, containers, WSL 2).
DRIVER_SIGNS = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg")


def driver_may_exist() -> bool:
    """True unless this machine shows no sign of an NVIDIA driver: none of
    :data:`DRIVER_SIGNS` exists and ``nvidia-smi`` is not on PATH (always True on Windows)."""
    if os.name == "nt":
        return True
    return any(os.path.exists(p) for p in DRIVER_SIGNS) or which("nvidia-smi") is not None


def probe_gpus() -> tuple[Driver | None, list[GPU]]:
    """(driver, GPUs): NVML when it loads, else nvidia-smi, else the kernel module's version
    from procfs (no GPU list), else ``(None, [])`` (at once when :func:`driver_may_exist` is
    False)."""
    if not driver_may_exist():
        return None, []
    for probe in (_probe_nvml, _probe_smi):
        got = probe()
        if got is not None:
            return got
    text = read_text("/proc/driver/nvidia/version")
    if text:
        v = parse_procfs_version(text)
        if v:
            return Driver(version=v, found_by="procfs"), []
    return None, []
