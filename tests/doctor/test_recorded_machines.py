"""Doctor on recorded facts of the machines issue 2 names, each finding as the user reads it.

Recorded files (tests/data/facts/): ``this_machine.json`` (saved here with
``torchbuild doctor --save-facts``), ``this_machine_cu130_venv.json`` (same, with
``--python`` pointing at a venv holding the CUDA ``torch==2.14.1``), ``h100_server.json``,
``ubuntu1804_gtx1660ti.json``, ``cuda118_gcc12.json`` (written from the issue's description;
their nvidia-smi/nvcc/gcc lines were parsed from the real output formats, see each file's
``origin``), and ``h200_device.json``: probed on a lent H200 machine by
``tests/data/gpu/record.sh`` (``doctor --cuda --save-facts``; NVML found the GPU and driver), and
``h100_device.json``: probed the same way on a lent H100 machine (``tests/data/gpu/h100-2026-11-27/``).
The expected numbers are read from the facts and the knowledge tables, not typed in.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchbuild.decisions.doctor import CHECK_IDS, SEVERITIES, check
from torchbuild.facts.model import Facts
from torchbuild.facts.source import probe_source
from torchbuild.knowledge import compat

DATA = Path(__file__).resolve().parents[1] / "data" / "facts"


def load(name: str) -> Facts:
    return Facts.load(DATA / f"{name}.json")


def by_check(findings, cid):
    return [f for f in findings if f.check == cid]


def errors(findings):
    return [f for f in findings if f.severity == "error"]


@pytest.mark.parametrize(
    "name",
    [
        "this_machine",
        "this_machine_cu130_venv",
        "h100_server",
        "ubuntu1804_gtx1660ti",
        "cuda118_gcc12",
        "h200_device",
        "h100_device",
    ],
)
def test_every_finding_is_well_formed(name):
    facts = load(name)
    for f in check(facts) + check(facts, wants_cuda=True, arch_list=["8.9"]):
        assert f.check in CHECK_IDS and f.severity in SEVERITIES
        assert f.message and f.message == f.message.strip() and f.message.endswith((".", ")"))
        if f.severity == "error":
            assert f.fix, f"error without a fix: {f}"


def test_this_machine_has_no_error():
    facts = load("this_machine")
    findings = check(facts)
    assert errors(findings) == []
    [mem] = by_check(findings, "memory")
    assert f"{facts.resources.cpu_count} cores" in mem.message


def test_h100_server_is_fine_for_a_cuda_build():
    facts = load("h100_server")
    assert facts.gpus[0].name == "NVIDIA H100 80GB HBM3" and facts.gpus[0].compute_capability == "9.0"
    findings = check(facts, wants_cuda=True)
    assert errors(findings) == []
    assert by_check(findings, "gpu_arch") == [] and by_check(findings, "driver") == []
    [mem] = by_check(findings, "memory")
    assert mem.message.startswith(f"Jobs: {facts.resources.cpu_count} jobs")


@pytest.mark.parametrize(
    ("name", "gpu", "build_log"),
    [
        ("h200_device", "NVIDIA H200", "h200-2026-11-26/build-gpu.log"),
        ("h100_device", "NVIDIA H100 80GB HBM3", "h100-2026-11-27/build-torch_scatter-2.1.2.log"),
    ],
)
def test_probed_gpu_machine_is_fine_for_a_cuda_build_and_plans_its_own_arch(name, gpu, build_log):
    """The real H200 and H100 machines: NVML's facts, no error for a CUDA build, and the arch list
    the plan takes from the GPU is the one the recorded build compiled (the small CUDA extension
    on the H200, torch-scatter on the H100: ``-gencode=arch=compute_90,code=compute_90
    -gencode=arch=compute_90,code=sm_90``)."""
    from torchbuild.decisions.plan.arches import _arches_from_gpus

    facts = load(name)
    assert facts.origin == "probed" and facts.driver.found_by == "nvml"
    assert [(g.name, g.compute_capability) for g in facts.gpus] == [(gpu, "9.0")]
    findings = check(facts, wants_cuda=True)
    assert errors(findings) == []
    assert by_check(findings, "gpu_arch") == [] and by_check(findings, "driver") == []
    arches, why = _arches_from_gpus(facts)
    assert arches == ["9.0+PTX"] and f"{gpu} (9.0)" in why
    log = (DATA.parent / "gpu" / build_log).read_text()
    assert "-gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90,code=sm_90" in log


def test_probed_h200_warns_about_an_arch_list_without_its_gpu_as_the_real_run_did():
    """doctor on the H200's facts with the arch list 8.0 gives the warning that the real build printed there
    (``build-8.0.err`` of the recorded run, before the build that then failed verify's ``ext_gpu_arch``)."""
    facts = load("h200_device")
    [f] = by_check(check(facts, wants_cuda=True, arch_list=["8.0"]), "arch_list")
    err = (DATA.parent / "gpu" / "h200-2026-11-26" / "build-8.0.err").read_text().splitlines()
    assert err[1].strip() == f"warning [{f.check}] {f.message}" and f.severity == "warning"
    assert err[2].strip() == f"fix: {f.fix}"


def test_h100_driver_too_old_for_cuda_13():
    """Same server with an R575 driver: below the 13.x minor-compatibility floor."""
    facts = load("h100_server")
    facts.driver.version, facts.driver.cuda_version = "575.57.08", "12.9"
    [f] = by_check(check(facts, wants_cuda=True), "driver")[:1]
    floor = compat.driver_family_floor("13.0").min_driver
    assert f.severity == "error" and "575.57.08" in f.message and compat.driver_minimum("13.0").min_driver in f.message
    assert "error 35" in f.message and floor <= compat.driver_minimum("13.0").min_driver
    assert f.fix.startswith("install NVIDIA driver 580.65.06 or newer")


def test_ubuntu_1804_box_flags_cmake_for_pytorch_1_12():
    facts = load("ubuntu1804_gtx1660ti")
    findings = check(facts, wants_cuda=True, arch_list=["7.5"])
    [f] = by_check(findings, "cmake")
    need = compat.torch_release("1.12").cmake["min"]
    assert f"CMake {facts.tools['cmake'].version}" in f.message and f">= {need}" in f.message
    assert f"'cmake>={need}'" in f.fix
    # the row is marked uncertain in the table, so it warns instead of failing the build
    assert f.severity == "warning" and compat.torch_release("1.12").cmake["uncertain"]
    # the rest of the box is fine for CUDA 11.7: GTX 1660 Ti (7.5), driver 515.76, gcc 7.5
    assert by_check(findings, "gpu_arch") == [] and by_check(findings, "driver") == []
    assert by_check(findings, "host_compiler") == []
    [ninja] = by_check(findings, "ninja")
    assert ninja.fix.endswith("pip install ninja")


def test_cuda_118_with_gcc_12_flags_the_host_compiler():
    facts = load("cuda118_gcc12")
    [f] = by_check(check(facts, wants_cuda=True, arch_list=["8.9"]), "host_compiler")
    limit = compat.host_compiler_limits("11.8").gcc_max
    assert f.severity == "error"
    assert f"nvcc 11.8 accepts GCC up to {limit}" in f.message and "GCC 12.2.0" in f.message
    assert f"gcc versions later than {limit} are not supported!" in f.message
    assert f.fix.startswith(
        f"sudo apt-get install g++-{limit} && export CC=gcc-{limit} CXX=g++-{limit} CUDAHOSTCXX=g++-{limit}"
    )
    # with gcc 11 assumed the same machine passes this check
    from torchbuild.decisions.assume import apply_assumptions

    ok = apply_assumptions(facts, ["gcc=11.4"])
    assert by_check(check(ok, wants_cuda=True, arch_list=["8.9"]), "host_compiler") == []


def _scatter_like(tmp_path: Path) -> Path:
    """A CUDA extension shaped like torch-scatter 2.1.2 (setup.py + cpp_extension + .cu)."""
    root = tmp_path / "ext"
    (root / "csrc" / "cuda").mkdir(parents=True)
    (root / "csrc" / "cuda" / "scatter_cuda.cu").write_text("#include <ATen/cuda/CUDAContext.h>\n")
    (root / "setup.py").write_text(
        textwrap.dedent("""\
        import os
        from setuptools import setup
        from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME
        suffices = ['cpu', 'cuda'] if (os.getenv('FORCE_CUDA', '0') == '1') else ['cpu']
        setup(name='torch_scatter', version='2.1.2', ext_modules=[],
              cmdclass={'build_ext': BuildExtension.with_options(no_python_abi_suffix=True, use_ninja=False)})
        """)
    )
    return root


def test_this_machine_cuda_extension_against_cuda_torch(tmp_path):
    """This machine with the CUDA torch 2.14.1 venv: the minimal toolkit lacks the cuBLAS/
    cuSPARSE/cuSOLVER headers that torch's ATen/cuda/CUDAContextLight.h includes; doctor
    names them and where they are (the nvidia-* wheels), and torch's CUDA_HOME trap."""
    facts = load("this_machine_cu130_venv")
    facts.source = probe_source(_scatter_like(tmp_path))
    findings = check(facts, wants_cuda=True, arch_list=["8.9"])
    assert errors(findings) == []  # torchbuild's build sets CUDA_HOME and CPATH itself
    [hdr] = by_check(findings, "cuda_headers")
    elsewhere = sorted({facts.cuda.headers[h] for h in ("cusparse.h", "cublas_v2.h", "cusolverDn.h")})
    assert all(h in hdr.message for h in ("cusparse.h", "cublas_v2.h", "cublasLt.h", "cusolverDn.h"))
    assert hdr.fix == f"export CPATH={':'.join(elsewhere)}${{CPATH:+:$CPATH}}"
    [home] = by_check(findings, "cuda_home")
    assert home.fix == f"export CUDA_HOME={facts.cuda.home}" and facts.cuda.torch_cuda_home in home.message
    assert [f.severity for f in by_check(findings, "torch_cuda")] == []  # 13.0 == 13.0


def test_cuda_extension_stops_when_headers_are_nowhere(tmp_path):
    facts = load("this_machine_cu130_venv")
    facts.source = probe_source(_scatter_like(tmp_path))
    for h in ("cusparse.h", "cublas_v2.h", "cublasLt.h", "cusolverDn.h"):
        facts.cuda.headers[h] = None
    [f] = [
        x for x in by_check(check(facts, wants_cuda=True, arch_list=["8.9"]), "cuda_headers") if x.severity == "error"
    ]
    assert "fatal error: cusparse.h: No such file or directory" in f.message
    assert "nvidia-cublas" in f.fix and "nvidia-cusparse" in f.fix and "nvidia-cusolver" in f.fix


def test_cuda_extension_without_gpu_or_arch_list_stops(tmp_path):
    facts = load("this_machine_cu130_venv")
    facts.source = probe_source(_scatter_like(tmp_path))
    facts.env.pop("TORCH_CUDA_ARCH_LIST", None)
    [f] = by_check(check(facts, wants_cuda=True), "arch_list")
    assert f.severity == "error" and "IndexError" in f.message and "--arch" in f.fix


def test_cpu_torch_cannot_build_cuda_extension(tmp_path):
    facts = load("this_machine")
    facts.source = probe_source(_scatter_like(tmp_path))
    assert facts.torch.cuda is None
    [f] = by_check(check(facts, wants_cuda=True, arch_list=["8.9"]), "torch_cuda")
    assert f.severity == "error" and facts.torch.version in f.message
    assert "--index-url https://download.pytorch.org/whl/cu130" in f.fix
    # left to itself (no --cuda), the same tree builds CPU-only: a note, not an error
    [n] = by_check(check(facts), "torch_cuda")
    assert n.severity == "note"
