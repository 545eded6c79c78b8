"""Doctor rules, knowledge tables, choose_jobs and --assume on constructed facts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from torchbuild.decisions.assume import apply_assumptions
from torchbuild.decisions.doctor import check, normalise_arch
from torchbuild.decisions.resources import CUDA_JOB_BYTES, CXX_JOB_BYTES, RESERVE_BYTES, choose_jobs
from torchbuild.errors import FactsFileError
from torchbuild.facts.model import Facts, Resources, SourceTree, Submodule
from torchbuild.knowledge import available, compat, load, rows

DATA = Path(__file__).resolve().parents[1] / "data" / "facts"


def base() -> Facts:
    return Facts.load(DATA / "h100_server.json")


def only(findings, cid):
    return [f for f in findings if f.check == cid]


# ------------------------------------------------------------------ knowledge tables
def test_every_table_loads_and_every_row_is_cited():
    for name in ("cuda_host_compilers", "cuda_drivers", "cuda_archs", "gpus", "pytorch_releases"):
        assert name in available()
        doc = load(name)
        for table, value in doc.items():
            if isinstance(value, list):
                for row in value:
                    assert compat.cite(name, row), (name, table, row)


def test_gpu_examples_resolve_to_their_own_row():
    for row in rows("gpus", "gpus"):
        for name in row["examples"]:
            got = compat.gpu_model(name)
            assert got is not None and got.cc == row["cc"], (name, got, row["cc"])


def test_uncertain_driver_rows_never_error():
    for row in rows("cuda_drivers", "toolkits"):
        if not row.get("uncertain"):
            continue
        f = apply_assumptions(base(), [f"cuda={row['cuda']}", "driver=590.48.01"])
        found = only(check(f, wants_cuda=True), "driver")
        assert found and all(x.severity != "error" for x in found), row


def test_uncertain_host_compiler_rows_never_error():
    row = next(r for r in rows("cuda_host_compilers", "limits") if r.get("uncertain"))
    too_new = str(int(row["gcc_max"]) + 1)
    f = apply_assumptions(base(), [f"cuda={row['cuda'][0]}", f"gcc={too_new}.1"])
    [x] = only(check(f, wants_cuda=True), "host_compiler")
    assert x.severity == "warning" and "uncertain" in x.message


def test_driver_within_minor_version_compatibility_warns():
    f = apply_assumptions(base(), ["cuda=12.8", "driver=535.54.03"])
    [x] = [d for d in only(check(f, wants_cuda=True), "driver") if "CUDA 12.8" in d.message]
    assert x.severity == "warning" and "minor-version compatibility" in x.message and "570.26" in x.message


def test_pascal_gpu_on_cuda_13_is_an_error_with_a_toolkit_that_works():
    f = apply_assumptions(base(), ["gpu=NVIDIA GeForce GTX 1080 Ti"])
    [x] = only(check(f, wants_cuda=True), "gpu_arch")
    newest = compat.toolkits_supporting_arch("6.1")[-1]
    assert x.severity == "error" and "sm_61" in x.message and "Unsupported gpu architecture 'sm_61'" in x.message
    assert f"CUDA {newest}" in x.fix


def test_arch_list_entry_nvcc_cannot_build():
    [x] = only(check(base(), wants_cuda=True, arch_list=["7.0", "9.0"]), "arch_list")
    assert x.severity == "error" and "'sm_70'" in x.message


def test_arch_list_missing_the_gpu_warns():
    [x] = only(check(base(), wants_cuda=True, arch_list=["8.0"]), "arch_list")
    assert x.severity == "warning" and "9.0" in x.message and x.fix.endswith("--arch 8.0;9.0")


@pytest.mark.parametrize("py,sev", [("3.7.9", "error"), ("3.13.1", "warning"), ("3.11.4", None)])
def test_python_range_for_target(py, sev):
    f = apply_assumptions(base(), [f"python={py}"])
    f.target = "2.4"
    r = compat.torch_release("2.4").python
    got = only(check(f), "python")
    if sev is None:
        assert got == []
    else:
        [x] = got
        assert x.severity == sev and f"{r['min']} to {r['max']}" in x.message


def test_old_gcc_for_target_is_an_error():
    f = apply_assumptions(base(), ["gcc=7.5"])
    f.target = "2.4"
    [x] = only(check(f, wants_cuda=False), "compiler")
    assert x.severity == "error" and "GCC 7.5" in x.message and ">= 9" in x.message
    assert "g++-9" in x.fix


def test_missing_submodules_error_names_them_and_the_command():
    f = base()
    f.source = SourceTree(
        path="/src/pytorch",
        kind="pytorch",
        version="2.13.0a0",
        git_sha="a" * 40,
        submodules=[
            Submodule(name="third_party/pybind11", path="third_party/pybind11", present=True, state="ok"),
            Submodule(
                name="third_party/NNPACK_deps/pthreadpool",
                path="third_party/pthreadpool",
                present=False,
                state="uninitialized",
            ),
        ],
    )
    [x] = only(check(f), "submodules")
    assert x.severity == "error" and "1 of 2" in x.message and "third_party/pthreadpool" in x.message
    assert x.fix == "git -C /src/pytorch submodule update --init --recursive"


def test_build_isolation_trap_and_cuda_mismatch():
    f = base()
    f.source = SourceTree(
        path="/src/ext",
        kind="extension",
        backend="setup.py",
        uses_cpp_extension=True,
        has_cuda_sources=True,
        build_requires=["setuptools", "torch==2.4.0"],
    )
    f.torch.cuda = "12.1"
    findings = check(f, wants_cuda=True, arch_list=["9.0"])
    [iso] = only(findings, "build_isolation")
    assert iso.severity == "warning" and iso.fix.endswith("--no-build-isolation /src/ext")
    [mm] = [x for x in only(findings, "torch_cuda") if x.severity == "error"]
    assert "CUDA 12.1" in mm.message and "CUDA 13.0" in mm.message


def test_unknown_extension_arch_for_torch_version():
    f = apply_assumptions(base(), ["torch=2.0.1+cu118", "cuda=11.8", "gcc=11.4"])
    f.source = SourceTree(
        path="/src/ext", kind="extension", backend="setup.py", uses_cpp_extension=True, has_cuda_sources=True
    )
    bad = [
        x for x in only(check(f, wants_cuda=True, arch_list=["9.0", "10.0"]), "arch_list") if "ValueError" in x.message
    ]
    assert len(bad) == 1 and "10.0" in bad[0].message and bad[0].severity == "error"


def test_normalise_arch():
    assert [normalise_arch(a) for a in ["8.9", "8.9+PTX", "sm_89", "90a", "compute_120", "Ampere"]] == [
        "8.9",
        "8.9",
        "8.9",
        "9.0a",
        "12.0",
        None,
    ]


# ------------------------------------------------------------------ jobs
@given(cores=st.integers(1, 256), avail_gib=st.floats(0, 2048), cuda=st.booleans())
def test_choose_jobs_never_exceeds_cores_or_memory(cores, avail_gib, cuda):
    f = Facts(
        resources=Resources(
            cpu_count=cores,
            memory_total_bytes=int(avail_gib * 2**30) + 1,
            memory_available_bytes=int(avail_gib * 2**30),
        )
    )
    c = choose_jobs(f, cuda=cuda)
    per = CUDA_JOB_BYTES if cuda else CXX_JOB_BYTES
    assert 1 <= c.jobs <= cores
    assert c.jobs == 1 or c.jobs * per <= f.resources.memory_available_bytes - RESERVE_BYTES
    assert str(c.jobs) in c.reason


def test_choose_jobs_override_is_used_and_reported():
    f = Facts(resources=Resources(cpu_count=4, memory_total_bytes=8 * 2**30, memory_available_bytes=8 * 2**30))
    c = choose_jobs(f, cuda=True, override=16)
    assert c.jobs == 16 and c.limited_by == "override" and "more than the 4 cores" in c.reason


# ------------------------------------------------------------------ --assume
def test_assume_overrides_copy_and_records():
    f = base()
    g = apply_assumptions(
        f,
        [
            "cuda=11.8",
            "gcc=12.2",
            "driver=535.54.03",
            'gpu="RTX 4090"',
            "python=3.12",
            "cmake=3.22",
            "torch=2.4.0+cu121",
        ],
    )
    assert (g.cuda.version, g.cxx.version, g.driver.version, g.python.version) == ("11.8", "12.2", "535.54.03", "3.12")
    assert g.gpus[0].compute_capability == compat.gpu_model("RTX 4090").cc
    assert (g.tools["cmake"].version, g.torch.version, g.torch.cuda) == ("3.22", "2.4.0+cu121", "12.1")
    assert g.assumed[0] == "cuda=11.8" and g.origin.endswith("+assumed")
    assert f.cuda.version == "13.0" and f.assumed == []  # the input is not changed


@pytest.mark.parametrize(
    "item,words",
    [
        ("cdua=11.8", "Did you mean 'cuda'"),
        ("cuda=eleven", "not a version"),
        ("gpu=RTX 4909", "Did you mean"),
        ("memory=lots", "size in GiB"),
        ("cuda", "KEY=VALUE"),
    ],
)
def test_assume_rejects_bad_input(item, words):
    with pytest.raises(FactsFileError) as e:
        apply_assumptions(base(), [item])
    assert words in str(e.value) and e.value.exit_code == 2
