"""``verify --extension`` judges the extension's device code against the GPUs present
(``ext_gpu_arch``), and a failed smoke test is named with the diagnose knowledge.

This machine has no GPU.  The GPU side is a real run on a lent NVIDIA H200 (compute capability
9.0, driver 580.159.04, torch 2.11.0+cu130), recorded by ``tests/data/gpu/record.sh`` in
``tests/data/gpu/h200-2026-11-26/`` (its README says how): there torchbuild built the small CUDA
extension of ``tests/integration/test_cuda_extension.py`` for ``--arch 8.0`` and for the GPU
present, and verified each with a smoke test that launches its kernel.  The tests here replay
those records through the same decision code, and judge shared objects compiled here by the
real ``nvcc`` and read by the real ``cuobjdump`` against the recorded GPU.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from torchbuild.actions.verify import _add_device_code
from torchbuild.decisions.diagnose import diagnose_lines
from torchbuild.decisions.verify import VerifyReport, ext_gpu_arch_check, smoke_check
from torchbuild.facts.elf_deps import find_cuobjdump
from torchbuild.facts.gpu import parse_smi_query

REC = Path(__file__).resolve().parent.parent / "data" / "gpu" / "h200-2026-11-26"
KERNEL = '__global__ void k(float* x) { x[threadIdx.x] *= 2; }\nextern "C" void run(float* x) { k<<<1, 32>>>(x); }\n'


def _recorded_gpus() -> list[dict[str, str]]:
    """The GPUs of the recorded machine, read from its real ``nvidia-smi --query-gpu`` line."""
    text = (REC / "probes.txt").read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("0, NVIDIA"))
    _driver, gpus = parse_smi_query(line.replace(" MiB", "") + "\n")
    return [{"name": g.name, "capability": g.compute_capability or ""} for g in gpus]


def _report(name: str, target: str = "tiny_cuda") -> dict:
    """The report on ``target`` in a recorded ``verify --json`` output (torch's comes first)."""
    [rep] = [r for r in json.loads((REC / name).read_text())["reports"] if r["target"] == target]
    return rep


def _check(report: VerifyReport | dict, check_id: str):
    checks = report["checks"] if isinstance(report, dict) else [c.__dict__ for c in report.checks]
    return [c for c in checks if c["id"] == check_id]


def test_recorded_gpu_is_an_h200_of_compute_capability_9_0():
    assert _recorded_gpus() == [{"name": "NVIDIA H200", "capability": "9.0"}]


@pytest.mark.parametrize(
    ("record", "ok", "cause"), [("verify-ext-8.0.json", False, "no_kernel_image"), ("verify-ext-gpu.json", True, None)]
)
def test_recorded_run_replays_through_the_decision(record, ok, cause):
    """The H200 run's verdicts (``--arch 8.0``: sm_80 SASS only, fails; no ``--arch``: sm_90 +
    compute_90, passes) come out again from the recorded facts of that run."""
    rec = _report(record)
    [recorded] = _check(rec, "ext_gpu_arch")
    assert (recorded["ok"], recorded["cause_id"]) == (ok, cause)
    facts = rec["facts"]
    report = VerifyReport(target="tiny_cuda", python="python3")
    ext_gpu_arch_check(report, {"gpus": facts["gpus"], "cuda_available": True}, facts["files"], "tiny_cuda")
    [again] = _check(report, "ext_gpu_arch")
    assert (again["ok"], again["cause_id"]) == (ok, cause)
    assert again["message"].startswith("NVIDIA H200 (sm_90) " + ("can run" if ok else "cannot run"))
    assert again["message"].endswith(
        "(compute_90, sm_90)"
        if ok
        else "it holds only sm_80, so its kernels fail with 'no kernel image is available for execution on the device'"
    )


def test_recorded_smoke_failure_is_named_no_kernel_image():
    """The smoke test of the sm_80 build failed on the H200 with CUDA's own message; verify
    names it with the diagnose knowledge, as ``diagnose`` does for the same text as a log."""
    [smoke] = _check(_report("verify-ext-8.0.json"), "smoke")
    assert not smoke["ok"] and smoke["cause_id"] == "no_kernel_image"
    assert "no kernel image is available for execution on the device" in smoke["message"]
    error = smoke["message"].removeprefix("smoke test failed: ")
    report = VerifyReport(target="tiny_cuda", python="python3")
    smoke_check(report, {"smoke_ok": False, "errors": {"smoke": error}}, "tiny_cuda", "python3")
    [again] = _check(report, "smoke")
    assert again["cause_id"] == "no_kernel_image" and "TORCH_CUDA_ARCH_LIST" in again["fix"]
    log = (REC / "run-8.0.log").read_text()
    assert diagnose_lines(enumerate(log.splitlines(), 1)).root.cause_id == "no_kernel_image"


def test_smoke_failure_without_a_known_cause_keeps_the_generic_fix():
    report = VerifyReport(target="m", python="python3")
    smoke_check(report, {"smoke_ok": False, "errors": {"smoke": "AssertionError: [1.0, 2.0]"}}, "m", "python3")
    [c] = _check(report, "smoke")
    assert c["cause_id"] == "unknown" and c["fix"].startswith("run the snippet by hand")


def test_official_wheels_recorded_on_the_h200_run_there():
    """``verify`` of everything installed there: torchvision and torchaudio (official cu130 wheels)
    carry sm_75...sm_120 and PTX for 12.0, so the H200 runs them."""
    data = json.loads((REC / "verify-installed.json").read_text())
    seen = {}
    for rep in data["reports"]:
        for c in _check(rep, "ext_gpu_arch"):
            seen[rep["target"]] = (c["ok"], c["message"])
    assert set(seen) == {"torchvision", "torchaudio"}
    assert all(ok and "sm_90" in msg for ok, msg in seen.values())


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, str]:
    """Shared objects compiled here by the real nvcc for several ``-gencode`` choices."""
    nvcc = shutil.which("nvcc")
    if nvcc is None or find_cuobjdump() is None:
        pytest.skip("needs nvcc and cuobjdump")
    d = tmp_path_factory.mktemp("gencode")
    (d / "k.cu").write_text(KERNEL)
    variants = {
        "sm80": ["-gencode", "arch=compute_80,code=sm_80"],
        "sm80ptx": ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_80,code=compute_80"],
        "sm90a": ["-gencode", "arch=compute_90a,code=sm_90a"],
        "ptx100": ["-gencode", "arch=compute_100,code=compute_100"],
    }
    out = {}
    for name, flags in variants.items():
        so = d / f"lib{name}.so"
        subprocess.run(
            [nvcc, "-shared", "-Xcompiler", "-fPIC", *flags, str(d / "k.cu"), "-o", str(so)], check=True, timeout=300
        )
        out[name] = str(so)
    return out


@pytest.mark.parametrize(
    ("variant", "capability", "ok"),
    [
        ("sm80", "9.0", False),  # the recorded H200: no SASS of major 9, no PTX
        ("sm80", "8.6", True),  # same major, newer minor: the cubin runs
        ("sm80ptx", "9.0", True),  # PTX compute_80 is JIT-compiled for 9.0
        ("sm90a", "9.0", True),  # arch-specific cubin on exactly 9.0
        ("sm90a", "10.0", False),  # ... and nowhere else
        ("ptx100", "9.0", False),  # PTX for a newer arch cannot be JIT-compiled down
    ],
)
def test_real_device_code_against_a_gpu(built, variant, capability, ok):
    files: dict[str, dict] = {built[variant]: {}}
    _add_device_code(files)  # the real cuobjdump
    archs = files[built[variant]]["cuda_archs"]
    assert archs["sass"] or archs["ptx"], archs
    report = VerifyReport(target="ext", python="python3")
    gpu = {"name": "GPU", "capability": capability}
    ext_gpu_arch_check(report, {"gpus": [gpu], "cuda_available": True}, files, "ext")
    [c] = _check(report, "ext_gpu_arch")
    assert c["ok"] is ok
    if not ok:
        assert c["cause_id"] == "no_kernel_image" and f"TORCH_CUDA_ARCH_LIST={capability}" in c["fix"]


def test_files_without_device_code_or_readable_arches_are_not_judged(tmp_path):
    report = VerifyReport(target="ext", python="python3")
    gpus = {"gpus": [{"name": "GPU", "capability": "9.0"}], "cuda_available": True}
    ext_gpu_arch_check(report, gpus, {"/x/_C.so": {"needed": []}}, "ext")
    assert not _check(report, "ext_gpu_arch")
    unread = {"/x/_C.so": {"cuda_archs": {"sass": [], "ptx": [], "reason": "cuobjdump was not found"}}}
    ext_gpu_arch_check(report, gpus, unread, "ext")
    assert not _check(report, "ext_gpu_arch")
    assert report.facts["ext_cuda_archs_note"] == {"/x/_C.so": "cuobjdump was not found"}


H100 = REC.parent / "h100-2026-11-27"


def test_recorded_torch_scatter_build_on_an_h100_replays_through_the_decision():
    """torch-scatter 2.1.2 from its PyPI sdist, built by torchbuild on a lent H100 (compute
    capability 9.0, torch 2.11.0+cu130, nvcc 13.0; ``tests/data/gpu/record.sh`` with
    ``--set FORCE_ONLY_CUDA=1``, ``tests/data/gpu/README.md``): the plan took ``9.0+PTX`` from the
    GPU, nvcc got the matching ``-gencode`` pair, and verify ran the row's smoke test on the GPU.
    The recorded device code of its three modules with device code, judged again here, runs on the H100 and would
    not run on an A100 (8.0): a build for the GPU present serves that GPU's major only."""
    build = json.loads((H100 / "build-torch_scatter-2.1.2.json").read_text())
    env = build["plan"]["env"]
    assert build["status"] == "ok"
    assert env["TORCH_CUDA_ARCH_LIST"] == {"value": "9.0+PTX", "source": "detected GPU: NVIDIA H100 80GB HBM3 (9.0)"}
    assert env["FORCE_ONLY_CUDA"]["source"] == "--set"
    log = (H100 / "build-torch_scatter-2.1.2.log").read_text()
    assert log.count("-gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90,code=sm_90") == 3
    rep = json.loads((H100 / "verify-torch_scatter-2.1.2.json").read_text())
    [scatter] = [r for r in rep["reports"] if r["target"] == "torch_scatter"]
    assert scatter["ok"] and {c["id"] for c in scatter["checks"]} >= {"smoke", "ext_gpu_arch", "op_cuda"}
    files = scatter["facts"]["files"]
    archs = {Path(f).name: v.get("cuda_archs") for f, v in files.items()}
    assert archs.pop("_version_cuda.so") is None  # no .cu source: no device code to read
    assert sorted(archs) == ["_scatter_cuda.so", "_segment_coo_cuda.so", "_segment_csr_cuda.so"]
    assert all(a == {"sass": ["sm_90"], "ptx": ["sm_90"], "reason": None} for a in archs.values())
    for gpu, ok in (
        ({"name": "NVIDIA H100 80GB HBM3", "capability": "9.0"}, True),
        ({"name": "A100", "capability": "8.0"}, False),
    ):
        report = VerifyReport(target="torch_scatter", python="python3")
        ext_gpu_arch_check(report, {"gpus": [gpu], "cuda_available": True}, files, "torch_scatter")
        [c] = _check(report, "ext_gpu_arch")
        assert c["ok"] is ok, c
        if not ok:
            assert c["cause_id"] == "no_kernel_image" and "TORCH_CUDA_ARCH_LIST=8.0" in c["fix"]
