"""``torchbuild verify --record RECORD``: the installed torch checked against what a build record's
plan built.  Runs the real verify on the torch 2.13.0 CPU wheel the suite installs (its
``torch.__config__.show()``: BUILD_TYPE=Release, USE_CUDA=0, USE_MKLDNN=ON, USE_GLOO=ON); the
record is written here in the format ``torchbuild build`` writes (plan env, facts.source.version)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")


def _record(tmp_path, env: dict[str, str], *, version: str = "2.13.0", build_type: str = "Release"):
    rec = {
        "plan": {
            "kind": "pytorch",
            "build_type": {"value": build_type, "source": "profile"},
            "cuda": {"value": False, "source": "--no-cuda"},
            "arch_list": {"value": None, "source": "off"},
            "env": {k: {"value": v, "source": "profile"} for k, v in env.items()},
        },
        "facts": {"source": {"version": version}},
    }
    p = tmp_path / "record.json"
    p.write_text(json.dumps(rec))
    return p


def _verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torchbuild", "verify", "--python", sys.executable, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )


def _check(out: str, cid: str) -> dict:
    return next(c for c in json.loads(out)["reports"][0]["checks"] if c["id"] == cid)


def test_record_that_matches_passes(tmp_path):
    rec = _record(
        tmp_path,
        {"USE_CUDA": "0", "USE_MKLDNN": "ON", "USE_GLOO": "1", "USE_SYSTEM_LIBS": "1"},
        version=torch.__version__.split("+")[0],
    )
    r = _verify("--record", str(rec))
    assert r.returncode == 0, r.stdout[-3000:]
    opts = _check(r.stdout, "options")
    assert opts["ok"] and "USE_MKLDNN=ON" in opts["message"] and "USE_SYSTEM_LIBS" not in opts["message"]


def test_record_that_differs_fails_and_names_the_option(tmp_path):
    rec = _record(tmp_path, {"USE_CUDA": "0", "USE_MKLDNN": "0"}, build_type="Debug")
    r = _verify("--record", str(rec))
    assert r.returncode == 1
    opts = _check(r.stdout, "options")
    assert not opts["ok"] and "USE_MKLDNN=ON (plan: OFF)" in opts["message"]
    assert not _check(r.stdout, "build_type")["ok"]


def test_bad_record_is_exit_2(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    r = _verify("--record", str(bad))
    assert r.returncode == 2 and "not a readable torchbuild build record" in r.stderr
