"""Parsers of the system-library probe, on real output of the real tools on this machine
(Debian 12: dpkg-query 1.21, flatc 2.0.8, libcpuinfo-dev 0.0~git20220617), and the probe itself."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from torchbuild.facts.system_libs import (
    SystemLibQuestions,
    header_declares,
    parse_dpkg_query,
    parse_flatc_version,
    probe_system_libs,
)

# `dpkg-query -W -f '${Package}\t${Version}\t${db:Status-Abbrev}\n' libcpuinfo-dev libsleef-dev libnope-dev`
# on this machine (a package that is not installed prints nothing; one removed but with config files left is "rc").
DPKG_REAL = (
    "libcpuinfo-dev:amd64\t0.0~git20220617.082deff-1+deb12u1\tii \n"
    "libsleef-dev:amd64\t3.5.1-3\tii \n"
    "libold-dev\t1.0-1\trc \n"
)


def test_parse_dpkg_query_keeps_installed_and_drops_arch():
    assert parse_dpkg_query(DPKG_REAL) == {
        "libcpuinfo-dev": "0.0~git20220617.082deff-1+deb12u1",
        "libsleef-dev": "3.5.1-3",
    }


def test_parse_flatc_version_real_output():
    assert parse_flatc_version("flatc version 2.0.8\n") == "2.0.8"
    assert parse_flatc_version("usage: flatc") is None


def test_header_declares_ignores_comments():
    text = "/* cpuinfo_has_x86_amx_fp16 is new */\n// cpuinfo_has_x86_amx_tile\nbool cpuinfo_has_x86_avx2(void);\n"
    assert header_declares(text, "cpuinfo_has_x86_avx2")
    assert not header_declares(text, "cpuinfo_has_x86_amx_fp16")
    assert not header_declares(text, "cpuinfo_has_x86_amx_tile")


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not a Debian-family machine")
def test_probe_answers_with_the_real_tools(tmp_path):
    inc = tmp_path / "inc"
    (inc / "demo").mkdir(parents=True)
    (inc / "demo" / "demo.h").write_text("int demo_new_api(void);\n")
    q = SystemLibQuestions(
        debian=["dpkg", "surely-not-a-package-xyz"],
        headers=["demo/demo.h", "nope.h"],
        symbols=[("demo/demo.h", "demo_new_api"), ("demo/demo.h", "demo_missing")],
        pypi=["pytest", "surely-not-a-dist-xyz"],
    )
    libs = probe_system_libs(q, sys.path, env={"CPATH": str(inc)})
    want = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "dpkg"], capture_output=True, text=True).stdout
    assert libs.debian == {"dpkg": want}
    assert libs.headers == {"demo/demo.h": str(inc / "demo" / "demo.h")}
    assert libs.symbols == {"demo/demo.h:demo_new_api": True, "demo/demo.h:demo_missing": False}
    import pytest as _p

    assert libs.pypi == {"pytest": _p.__version__}
    assert libs.package_manager == "apt-get"
