"""GPU and driver parsers on recorded output.

This machine has no GPU, no nvidia-smi and no libnvidia-ml, so the inputs below are the
real output formats recorded in shared/reference/cuda-compat-facts.md §6 (nvidia-smi
``--query-gpu ... --format=csv,noheader`` lines, the ``CUDA Version:`` header, and the
``/proc/driver/nvidia/version`` first lines of the proprietary and the open kernel module).
"""

from __future__ import annotations

from torchbuild.facts import gpu


def test_smi_query_lines():
    text = "0, NVIDIA H100 80GB HBM3, 9.0, 81559, 580.159.04\n1, NVIDIA B300 SXM6 AC, 10.3, 275040, 580.159.04\n"
    driver, gpus = gpu.parse_smi_query(text)
    assert driver == "580.159.04"
    assert [(g.index, g.name, g.compute_capability, g.memory_mib) for g in gpus] == [
        (0, "NVIDIA H100 80GB HBM3", "9.0", 81559),
        (1, "NVIDIA B300 SXM6 AC", "10.3", 275040),
    ]


def test_smi_query_without_compute_cap_field():
    driver, gpus = gpu.parse_smi_query("0, NVIDIA GeForce GTX 1660 Ti, 6144, 515.76\n", with_cc=False)
    assert driver == "515.76"
    assert gpus[0].compute_capability is None and gpus[0].memory_mib == 6144


def test_smi_header_cuda_version():
    line = "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |"
    assert gpu.parse_smi_header_cuda(line) == "13.0"
    assert gpu.parse_smi_header_cuda("no header here") is None


def test_procfs_proprietary_and_open_module():
    prop = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Tue Nov 12 2024\nGCC version:  gcc version 11.4.0\n"
    )
    open_ = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
        "(builder@host)  Thu Sep 18 2025\n"
    )
    assert gpu.parse_procfs_version(prop) == "550.135"
    assert gpu.parse_procfs_version(open_) == "580.95.05"


def test_no_gpu_here_gives_none_and_empty_list():
    """On this machine (no driver) the probe reports nothing instead of failing."""
    import os
    import shutil

    if shutil.which("nvidia-smi") or os.path.exists("/proc/driver/nvidia/version"):
        import pytest

        pytest.skip("a driver is present")
    assert gpu.probe_gpus() == (None, [])


def _no_driver(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu, "DRIVER_SIGNS", (str(tmp_path / "no-nvidiactl"), str(tmp_path / "no-procfs")))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


def test_no_sign_of_a_driver_tries_neither_nvml_nor_smi(monkeypatch, tmp_path):
    """No device file, no procfs entry, no nvidia-smi: NVML is not even imported."""
    _no_driver(monkeypatch, tmp_path)
    tried: list[str] = []
    monkeypatch.setattr(gpu, "_probe_nvml", lambda: tried.append("nvml"))
    monkeypatch.setattr(gpu, "_probe_smi", lambda: tried.append("smi"))
    assert gpu.driver_may_exist() is False
    assert gpu.probe_gpus() == (None, [])
    assert tried == []


def test_nvidia_smi_on_path_is_a_sign_and_is_used(monkeypatch, tmp_path):
    """A driver whose device files are not created yet (the user-space driver creates
    them on first use, nvidia-modprobe(1)) still brings nvidia-smi.  The fake nvidia-smi
    prints the recorded H100 lines of shared/reference/cuda-compat-facts.md §6; NVML does
    not load on this machine (no libnvidia-ml), so the probe falls back to it."""
    _no_driver(monkeypatch, tmp_path)
    bindir = tmp_path / "empty-bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        'case "$1" in\n'
        '  --query-gpu=*) echo "0, NVIDIA H100 80GB HBM3, 9.0, 81559, 580.159.04" ;;\n'
        '  *) echo "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |" ;;\n'
        "esac\n"
    )
    smi.chmod(0o755)
    monkeypatch.setattr(gpu, "_probe_nvml", lambda: None)
    assert gpu.driver_may_exist() is True
    driver, gpus = gpu.probe_gpus()
    assert (driver.version, driver.cuda_version, driver.found_by) == ("580.159.04", "13.0", "nvidia-smi")
    assert [(g.name, g.compute_capability) for g in gpus] == [("NVIDIA H100 80GB HBM3", "9.0")]


def test_a_device_file_sign_tries_nvml_first(monkeypatch, tmp_path):
    _no_driver(monkeypatch, tmp_path)
    sign = tmp_path / "nvidiactl"
    sign.write_text("")
    monkeypatch.setattr(gpu, "DRIVER_SIGNS", (str(sign),))
    tried: list[str] = []
    monkeypatch.setattr(gpu, "_probe_nvml", lambda: tried.append("nvml"))
    monkeypatch.setattr(gpu, "_probe_smi", lambda: tried.append("smi"))
    gpu.probe_gpus()
    assert tried == ["nvml", "smi"]
