"""``torchbuild doctor`` as a user runs it: exit codes, --json, --save-facts, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild.decisions.doctor import CHECK_IDS
from torchbuild.facts.model import Facts

DATA = Path(__file__).resolve().parents[1] / "data" / "facts"


def doctor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "torchbuild", "doctor", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_json_on_stdout_and_exit_1_on_error():
    p = doctor("--facts", str(DATA / "cuda118_gcc12.json"), "--cuda", "--arch", "8.9", "--json")
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert set(out) == {"facts", "findings"}
    for f in out["findings"]:
        assert set(f) == {"check", "severity", "message", "fix"} and f["check"] in CHECK_IDS
    assert any(f["check"] == "host_compiler" and f["severity"] == "error" for f in out["findings"])


def test_human_output_has_fact_table_and_fixes_on_stderr():
    p = doctor("--facts", str(DATA / "ubuntu1804_gtx1660ti.json"), "--cuda", "--arch", "7.5")
    assert p.returncode == 0 and p.stdout == ""
    assert "NVIDIA GeForce GTX 1660 Ti (compute capability 7.5" in p.stderr and "target        PyTorch 1.12" in p.stderr
    assert "[cmake] CMake 3.10.2" in p.stderr and "fix: " in p.stderr


def test_probe_save_facts_round_trip(tmp_path):
    out = tmp_path / "me.json"
    p = doctor("--save-facts", str(out), "--json", cwd=tmp_path)
    assert p.returncode in (0, 1)
    saved = Facts.load(out)
    assert saved.origin == "probed" and saved.python.executable == sys.executable
    assert json.loads(p.stdout)["facts"] == saved.to_dict()
    again = doctor("--facts", str(out), "--json")
    assert json.loads(again.stdout)["findings"] == json.loads(p.stdout)["findings"]


def test_assume_turns_this_machine_into_a_failing_one(tmp_path):
    p = doctor(
        "--facts", str(DATA / "h100_server.json"), "--assume", "cuda=11.8", "--assume", "gcc=12.2", "--cuda", "--json"
    )
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["facts"]["assumed"] == ["cuda=11.8", "gcc=12.2"]
    assert [f["severity"] for f in out["findings"] if f["check"] == "host_compiler"] == ["error"]


@pytest.mark.parametrize(
    "args,words",
    [
        (["/nonexistent/tree"], "does not exist"),
        (["--facts", "/nonexistent/facts.json"], "cannot read it"),
        (["--assume", "cdua=11.8"], "Did you mean 'cuda'"),
        (["--target", "two.four"], "not a version"),
        (["--arch", "sm_xx"], "not a compute capability"),
    ],
)
def test_bad_input_exit_2_one_line_nothing_written(tmp_path, args, words):
    out = tmp_path / "facts.json"
    p = doctor(*args, "--save-facts", str(out))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]
    assert not out.exists() and p.stdout == ""


def test_not_a_source_tree_exit_2(tmp_path):
    p = doctor(str(tmp_path))
    assert p.returncode == 2 and "neither a PyTorch tree" in p.stderr


def test_bad_facts_file_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"resources": {"cpu_count": "many"}}')
    p = doctor("--facts", str(bad))
    assert p.returncode == 2 and "resources.cpu_count" in p.stderr


@pytest.mark.parametrize("arch", ["Ampere", "Hopper;9.0", "sm_89,compute_90"])
def test_doctor_accepts_every_arch_list_that_plan_accepts(arch):
    """doctor and plan read --arch with the same parser (doctor refused named arches such as
    Ampere that plan accepted)."""
    from torchbuild.decisions.plan import parse_arch_list

    parse_arch_list(arch)  # plan accepts it
    p = doctor("--facts", str(DATA / "ubuntu1804_gtx1660ti.json"), "--cuda", "--arch", arch, "--json")
    assert p.returncode in (0, 1) and "is not a compute capability" not in p.stderr
    json.loads(p.stdout)


@pytest.mark.parametrize("arch", ["8", "foo", ";"])
def test_doctor_refuses_what_plan_refuses_with_the_same_message(arch):
    from torchbuild.decisions.plan import parse_arch_list
    from torchbuild.errors import UsageError

    with pytest.raises(UsageError) as exc:
        parse_arch_list(arch)
    p = doctor("--facts", str(DATA / "ubuntu1804_gtx1660ti.json"), "--cuda", "--arch", arch)
    assert p.returncode == 2 and exc.value.message in p.stderr
