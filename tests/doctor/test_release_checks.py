"""Doctor on a PyTorch tree, by its release: the CUDA toolkit against the release, the Python and
GCC minimums the tree states itself, and third-party components (missing, too old with a known
failure, worked around).  Facts recorded on an H100 server (tests/data/facts/h100_server.json)
with a constructed 2.6.0 tree description; component rows from knowledge/data/pytorch_components.toml."""

from __future__ import annotations

from pathlib import Path

from torchbuild.decisions.doctor import check
from torchbuild.facts.model import Facts, SourceTree, SystemLibs

DATA = Path(__file__).resolve().parents[1] / "data" / "facts"
MINIMAL = {
    "USE_DISTRIBUTED": "0",
    "USE_MKLDNN": "0",
    "USE_FBGEMM": "0",
    "USE_NNPACK": "0",
    "USE_XNNPACK": "0",
    "USE_KINETO": "0",
    "USE_ITT": "0",
}


def facts(**tree) -> Facts:
    f = Facts.load(DATA / "h100_server.json")
    f.source = SourceTree(path="/src/pytorch", kind="pytorch", backend="setup.py", version="2.6.0", **tree)
    return f


def only(findings, cid, sev=None):
    return [x for x in findings if x.check == cid and (sev is None or x.severity == sev)]


def test_cuda_13_is_not_a_2_6_toolkit_and_12_4_is():
    f = facts()
    assert f.cuda is not None and f.cuda.version.startswith("13.0")
    errs = [
        x
        for x in only(check(f, wants_cuda=True, arch_list=["9.0"]), "cuda_toolkit", "error")
        if "not a toolkit PyTorch 2.6 supports" in x.message
    ]
    assert errs and "11.8, 12.4" in errs[0].message and "experimental: 12.6" in errs[0].message
    f.cuda.version = "12.4"
    assert not [
        x for x in only(check(f, wants_cuda=True, arch_list=["9.0"]), "cuda_toolkit") if "PyTorch 2.6" in x.message
    ]


def test_minimums_the_tree_states():
    f = facts(python_minimum="3.13.0", gcc_minimum="14.1")
    found = check(f, wants_cuda=False)
    assert [x for x in only(found, "python", "error") if "python_min_version 3.13.0" in x.message]
    assert [x for x in only(found, "compiler", "error") if "GCC-14.1 or newer" in x.message]
    ok = check(facts(python_minimum="3.9.0", gcc_minimum="9.3"), wants_cuda=False)
    assert not [x for x in ok if "python_min_version" in x.message or "GCC-9.3" in x.message]


def test_too_old_system_copy_with_a_known_failure_stops_the_build_unless_worked_around():
    libs = SystemLibs(
        debian={
            "libcpuinfo-dev": "0.0~git20220617.082deff-1+deb12u1",
            "libsleef-dev": "3.6.1-1",
            "pybind11-dev": "2.13.6-1",
            "libfp16-dev": "0.0~git20200514.4dfe081-3",
            "libpsimd-dev": "0.0~git20200517.072586a-2",
            "libfmt-dev": "9.1.0+ds1-2",
            "nlohmann-json3-dev": "3.11.2-2",
            "libcpp-httplib-dev": "0.11.4+ds-1",
            "libflatbuffers-dev": "2.0.8+dfsg1-2",
            "libonnx-dev": "1.14.1-1",
            "libprotobuf-dev": "3.21.12-3",
            "libeigen3-dev": "3.4.0-4",
            "libpthreadpool-dev": "0.0~git20210507.1787867-1",
            "libfxdiv-dev": "0.0~git20200417.b408327-3",
        },
        headers={"cpuinfo.h": "/usr/include/cpuinfo.h"},
    )
    # a Debian source package tree: fmt and pocketfft are patched away/embedded
    tree = dict(vendored=["debian/pocketfft"], cmake_refs=["third_party/cpuinfo", "third_party/pybind11"])
    f = facts(**tree)
    f.system_libs = libs
    stop = only(check(f, wants_cuda=False, system_libs=True, options=MINIMAL), "system_libs", "error")
    assert stop and "cpuinfo_has_x86_amx_fp16" in stop[0].message and "before compiling" in stop[0].message
    # the header lacks the symbol: the workaround is selected and the error becomes a warning
    libs.symbols["cpuinfo.h:cpuinfo_has_x86_amx_fp16"] = False
    found = check(f, wants_cuda=False, system_libs=True, options=MINIMAL)
    assert not only(found, "system_libs", "error")
    assert [x for x in only(found, "system_libs", "warning") if "old-libcpuinfo-amx" in x.message]
    assert not only(found, "submodules")


def test_missing_components_name_the_ways_out():
    found = check(facts(), wants_cuda=False, options=MINIMAL)
    err = only(found, "submodules", "error")
    assert len(err) == 1
    assert "third_party/pybind11" in err[0].message and "third_party/pocketfft" in err[0].message
    assert "--system-libs" in err[0].fix and "clone" in err[0].fix
