"""The main job end to end on real input: ``torchbuild build torch-scatter==2.1.2``.

The sdist is fetched from PyPI with pip, compiled for real with gcc against the
installed torch 2.13.0+cpu, installed into a test venv, verified in a clean subprocess
(``import torch_scatter`` and a ``scatter`` call with a known result) and recorded.
One build serves every test here (the session fixture ``scatter_build``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_build_reports_success_with_wheel_record_and_log(scatter_build):
    res = scatter_build.result
    assert res["status"] == "ok"
    assert set(res) >= {"status", "source", "plan", "wheel", "record", "log", "seconds"}
    wheel = Path(res["wheel"])
    assert wheel.is_file() and wheel.name.startswith("torch_scatter-2.1.2-") and wheel.suffix == ".whl"
    assert wheel.parent == scatter_build.cache / "wheels"
    with zipfile.ZipFile(wheel) as zf:
        assert any(n.startswith("torch_scatter/_scatter_cpu") and n.endswith(".so") for n in zf.namelist())
    assert f"wheel: {wheel}" in scatter_build.run.stderr  # the summary says where the wheel is


def test_record_holds_plan_facts_artifact_hash_and_verify(scatter_build):
    rec = json.loads(Path(scatter_build.result["record"]).read_text())
    assert rec["outcome"] == "ok"
    art = rec["artifacts"][0]
    wheel = Path(scatter_build.result["wheel"])
    assert art["path"] == str(wheel) and art["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert rec["plan"]["kind"] == "extension" and rec["plan"]["cuda"]["value"] is False
    assert rec["facts"]["torch"]["version"].startswith("2.13.0")
    assert rec["verify"]["ok"] is True
    assert rec["source"]["sdist"].endswith("torch_scatter-2.1.2.tar.gz")
    assert rec["phases"] and all(v >= 0 for v in rec["phases"].values())


def test_parallel_build_ext_used_although_the_package_turns_ninja_off(scatter_build):
    plan = scatter_build.result["plan"]
    assert plan["env"]["DIST_EXTRA_CONFIG"]["value"].endswith("setup-extra.cfg")
    cfg = Path(plan["env"]["DIST_EXTRA_CONFIG"]["value"]).read_text()
    assert f"parallel = {plan['jobs']['value']}" in cfg
    build_base = Path(plan["setup_cfg"]["build"]["build_base"])
    assert f"build_base = {build_base}" in cfg
    assert list(build_base.glob("lib*/torch_scatter/_scatter_cpu*.so"))  # setuptools built there
    log = Path(scatter_build.result["log"]).read_text(errors="replace")
    assert "building 'torch_scatter._scatter_cpu' extension" in log
    assert "--no-build-isolation" in log


def test_installed_extension_works_from_a_clean_directory(scatter_build, tmp_path):
    code = (
        "import torch, torch_scatter; out = torch_scatter.scatter(torch.tensor([1., 2., 3., 4.]), "
        "torch.tensor([0, 0, 1, 1]), dim=0, reduce='max'); print(out.tolist())"
    )
    proc = subprocess.run(
        [str(scatter_build.python), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[2.0, 4.0]"


def test_second_resolve_reuses_the_unpacked_sdist(scatter_build, cli):
    r = cli(
        "plan",
        "torch-scatter==2.1.2",
        "--python",
        str(scatter_build.python),
        "--json",
        env={"TORCHBUILD_CACHE": str(scatter_build.cache)},
    )
    assert r.returncode == 0, r.stderr
    assert "pip download" not in r.stderr  # nothing fetched again
    assert r.json["source"] == scatter_build.result["source"]


def test_progress_shows_n_of_m_over_the_real_compiles(scatter_build):
    """torch-scatter turns ninja off: [N/M] counts setuptools' compiles, M from its setup.py."""
    import re

    prog = scatter_build.record["progress"]
    assert prog["sources_from"] == "setup.py" and prog["sources"] == prog["compiles"] > 1
    assert sum(e["sources"] for e in prog["extensions"]) == prog["sources"]
    seen = [(int(n), int(m)) for n, m in re.findall(r"\[python extensions\] \[(\d+)/(\d+)\]", scatter_build.run.stderr)]
    ns = [n for n, _ in seen]
    assert ns == sorted(ns) and seen[-1] == (prog["sources"], prog["sources"])


def test_record_lists_the_runtime_requirements_with_torch_pinned(scatter_build):
    from torchbuild.actions.runtime_deps import wheel_requirements

    deps = scatter_build.record["runtime_deps"]
    assert deps["requirements"] == wheel_requirements(Path(scatter_build.result["wheel"]))
    assert deps["constraint"] == f"torch=={scatter_build.record['facts']['torch']['version']}"


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="a CUDA plan needs nvcc")
def test_a_cuda_plan_of_the_real_torch_scatter_says_how_to_skip_its_cpu_twins(scatter_build, cli):
    """The real sdist's setup.py builds a CPU-only twin of every CUDA module, and its __init__.py loads the CUDA one
    whenever it exists (what extensions.toml's cuda_only row says, read here in the real tree): a CUDA plan says that
    --set FORCE_ONLY_CUDA=1 skips them; with it set, or for a CPU build, the note is gone."""
    tree = Path(scatter_build.result["source"])
    assert "spec = cuda_spec or cpu_spec" in (tree / "torch_scatter" / "__init__.py").read_text()
    setup = (tree / "setup.py").read_text()
    assert "suffices = ['cpu', 'cuda']" in setup and "os.getenv('FORCE_ONLY_CUDA', '0') == '1'" in setup
    env = {"TORCHBUILD_CACHE": str(scatter_build.cache)}
    base = ["plan", str(tree), "--python", str(scatter_build.python), "--json"]
    note = "--set FORCE_ONLY_CUDA=1 skips them"
    cuda = cli(*base, "--cuda", "--arch", "9.0", env=env)
    assert cuda.returncode == 0, cuda.stderr
    assert any(note in n for n in cuda.json["notes"]), cuda.json["notes"]
    only = cli(*base, "--cuda", "--arch", "9.0", "--set", "FORCE_ONLY_CUDA=1", env=env)
    assert only.returncode == 0, only.stderr
    assert only.json["env"]["FORCE_ONLY_CUDA"]["value"] == "1"
    assert not any(note in n for n in only.json["notes"])
    cpu = cli(*base, env=env)
    assert cpu.returncode == 0, cpu.stderr
    assert not any(note in n for n in cpu.json["notes"])
