"""Source-tree probe on real temporary git repositories (one with a real submodule added
with ``git -c protocol.file.allow=always submodule add <local path>``)."""

from __future__ import annotations

import shutil
import textwrap
import time
from pathlib import Path

import pytest

from support.git import git, git_out
from torchbuild.facts import collect
from torchbuild.facts.model import Facts
from torchbuild.facts.source import parse_cmake_minimum, parse_cmake_options, parse_gitmodules, probe_source

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git")


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(textwrap.dedent(text))
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", "init", cwd=path)
    return path


CMAKELISTS = """\
cmake_minimum_required(VERSION 3.27 FATAL_ERROR)
project(Torch CXX C)
# option(COMMENTED_OUT "not an option" ON)
option(BUILD_TEST "Build C++ test binaries (need gtest and gbenchmark)" OFF)
option(USE_CUDA "Use CUDA" ON)
cmake_dependent_option(
    USE_CUDNN "Use cuDNN" ON
    "USE_CUDA" OFF)
cmake_dependent_option(
  USE_NCCL "Use NCCL" ON
  "USE_CUDA OR USE_ROCM;UNIX;NOT APPLE" OFF)
option(USE_MKLDNN "Use MKLDNN. Only available on x86, x86_64, AArch64, and ppc64le." "${CPU_INTEL}")
if(NOT WIN32)
  option(USE_DISTRIBUTED "Use distributed" ON)
endif()
"""


@pytest.fixture
def pytorch_tree(tmp_path):
    sub = _repo(tmp_path / "upstream-pybind11", {"CMakeLists.txt": "project(pybind11)\n"})
    tree = _repo(
        tmp_path / "pytorch",
        {
            "version.txt": "2.14.0a0\n",
            "setup.py": "# setup\n",
            "CMakeLists.txt": CMAKELISTS,
            "c10/core.h": "",
            "torch/__init__.py": "",
            "aten/src/ATen/native/cuda/k.cu": "",
        },
    )
    git("submodule", "add", "-q", str(sub), "third_party/pybind11", cwd=tree)
    git("commit", "-q", "-m", "add submodule", cwd=tree)
    return tree, sub


def test_pytorch_tree_kind_version_options_and_submodule(pytorch_tree):
    tree, sub = pytorch_tree
    s = probe_source(tree)
    head = git_out("rev-parse", "HEAD", cwd=tree)
    assert (s.kind, s.name, s.backend) == ("pytorch", "torch", "setup.py")
    assert s.git_sha == head and s.version == f"2.14.0a0+git{head[:7]}"
    assert s.cmake_minimum_required == "3.27"
    opts = {o.name: o for o in s.cmake_options}
    assert "COMMENTED_OUT" not in opts
    assert (opts["BUILD_TEST"].default, opts["BUILD_TEST"].condition) == ("OFF", None)
    assert (opts["USE_CUDNN"].condition, opts["USE_CUDNN"].forced) == ("USE_CUDA", "OFF")
    assert opts["USE_NCCL"].condition == "USE_CUDA OR USE_ROCM;UNIX;NOT APPLE"
    assert opts["USE_MKLDNN"].default == "${CPU_INTEL}" and "USE_DISTRIBUTED" in opts
    [m] = s.submodules
    assert (m.path, m.present, m.state) == ("third_party/pybind11", True, "ok")
    assert m.sha == git_out("rev-parse", "HEAD", cwd=sub) and m.url == str(sub)


def test_deinitialised_submodule_is_missing(pytorch_tree):
    tree, _ = pytorch_tree
    git("submodule", "deinit", "-q", "-f", "third_party/pybind11", cwd=tree)
    [m] = probe_source(tree).submodules
    assert m.present is False and m.state == "uninitialized"


def test_scikit_build_core_front_end_without_setup_py(pytorch_tree):
    tree, _ = pytorch_tree
    (tree / "setup.py").unlink()
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["scikit-build-core>=1.0"]\nbuild-backend = "pytorch_build_backend"\n'
    )
    s = probe_source(tree)
    assert s.kind == "pytorch" and s.backend == "scikit-build-core"
    assert s.build_requires == ["scikit-build-core>=1.0"]


def test_extension_tree(tmp_path):
    tree = _repo(
        tmp_path / "ext",
        {
            "setup.py": """\
            import os
            from setuptools import setup
            from torch.utils.cpp_extension import BuildExtension, CUDAExtension
            FORCE = os.getenv("FORCE_CUDA", "0") == "1"
            jobs = os.environ.get('MAX_JOBS')
            if "TORCH_CUDA_ARCH_LIST" in os.environ: pass
            setup(name="myext", version="0.3.1", ext_modules=[CUDAExtension("myext._C", ["csrc/k.cu"])],
                  cmdclass={"build_ext": BuildExtension.with_options(use_ninja=False)})
            """,
            "pyproject.toml": '[build-system]\nrequires = ["setuptools", "torch>=2.0"]\n',
            "csrc/k.cu": "__global__ void k() {}\n",
        },
    )
    s = probe_source(tree)
    assert (s.kind, s.name, s.version, s.backend) == ("extension", "myext", "0.3.1", "setup.py")
    assert s.uses_cpp_extension and s.has_cuda_sources and s.disables_ninja
    assert s.env_vars == ["FORCE_CUDA", "MAX_JOBS", "TORCH_CUDA_ARCH_LIST"]
    assert s.build_requires == ["setuptools", "torch>=2.0"]
    assert s.submodules == []


def test_cmake_parsers_on_edge_cases():
    assert parse_cmake_minimum("cmake_minimum_required(VERSION 3.18...3.27)") == "3.18"
    assert parse_cmake_minimum("# cmake_minimum_required(VERSION 9.9)\nproject(x)") is None
    opts = parse_cmake_options('option(A "has ) paren" ON)\noption(B "x \\"q\\"" OFF) # trailing\n')
    assert [(o.name, o.description, o.default) for o in opts] == [("A", "has ) paren", "ON"), ("B", 'x "q"', "OFF")]
    subs = parse_gitmodules(
        '[submodule "third_party/NNPACK_deps/pthreadpool"]\n\tpath = third_party/pthreadpool\n'
        "\turl = https://github.com/Maratyszcza/pthreadpool.git\n"
    )
    assert (subs[0].name, subs[0].path) == ("third_party/NNPACK_deps/pthreadpool", "third_party/pthreadpool")


def test_collect_is_fast_and_round_trips(pytorch_tree):
    tree, _ = pytorch_tree
    collect()  # warm the OS caches once, as a user's second run would be
    t0 = time.perf_counter()
    f = collect(tree)
    took = time.perf_counter() - t0
    assert took < 1.0, f"collect took {took:.2f} s"
    assert f.source.kind == "pytorch" and f.probe_seconds > 0
    assert Facts.from_json(f.to_json()) == f


def _status(root: Path) -> dict[str, tuple[str, str]]:
    from torchbuild.facts.source import parse_submodule_status

    return parse_submodule_status(git("submodule", "status", cwd=root).stdout)


def test_submodule_states_agree_with_git_submodule_status(tmp_path):
    """Real git on a tree with five submodules in different states: a fresh ``submodule
    add`` (HEAD a symbolic ref to a loose branch ref), the same after ``git pack-refs``
    (ref only in packed-refs), one checked out at another commit (detached, ``+``), one
    deinitialised (``-``) and one never updated after a non-recursive clone (``-``).
    What :func:`submodule_states` finds must equal what ``git submodule status`` prints."""
    from torchbuild.facts.source import submodule_states

    lib = _repo(tmp_path / "lib", {"a.txt": "1\n"})
    first = git_out("rev-parse", "HEAD", cwd=lib)
    (lib / "a.txt").write_text("2\n")
    git("commit", "-q", "-am", "two", cwd=lib)
    top = _repo(tmp_path / "top", {"README": "top\n"})
    for name in ("loose", "packed", "moved", "gone"):
        git("submodule", "add", "-q", str(lib), f"third_party/{name}", cwd=top)
    git("commit", "-q", "-m", "subs", cwd=top)
    git("pack-refs", "--all", cwd=top / "third_party" / "packed")
    git("checkout", "-q", first, cwd=top / "third_party" / "moved")
    git("submodule", "deinit", "-q", "-f", "third_party/gone", cwd=top)
    paths = [f"third_party/{n}" for n in ("loose", "packed", "moved", "gone")]

    got = submodule_states(top, paths)
    assert got == _status(top)
    assert {p: s for p, (s, _) in got.items()} == {
        "third_party/loose": "ok",
        "third_party/packed": "ok",
        "third_party/moved": "modified",
        "third_party/gone": "uninitialized",
    }
    assert got["third_party/moved"][1] == first

    clone = tmp_path / "clone"
    git("clone", "-q", str(top), str(clone), cwd=tmp_path)  # not --recursive
    got = submodule_states(clone, paths)
    assert got == _status(clone)
    assert {s for s, _ in got.values()} == {"uninitialized"}


def test_submodule_merge_conflict_is_conflict(tmp_path):
    """Two branches move the same submodule to diverged commits (neither contains the
    other, so git cannot pick one); the merge leaves an unmerged gitlink, which git
    reports with ``U`` and zeros."""
    from torchbuild.facts.source import submodule_states

    lib = _repo(tmp_path / "lib", {"a.txt": "1\n"})
    shas = [git_out("rev-parse", "HEAD", cwd=lib)]
    for n in ("2", "3"):
        git("checkout", "-q", "-b", f"b{n}", shas[0], cwd=lib)
        (lib / "a.txt").write_text(n + "\n")
        git("commit", "-q", "-am", n, cwd=lib)
        shas.append(git_out("rev-parse", "HEAD", cwd=lib))
    git("checkout", "-q", "main", cwd=lib)
    top = _repo(tmp_path / "top", {"README": "top\n"})
    git("submodule", "add", "-q", str(lib), "sub", cwd=top)
    git("checkout", "-q", shas[0], cwd=top / "sub")
    git("commit", "-q", "-am", "sub at 1", cwd=top)
    git("checkout", "-q", "-b", "other", cwd=top)
    git("checkout", "-q", shas[1], cwd=top / "sub")
    git("commit", "-q", "-am", "sub at 2", cwd=top)
    git("checkout", "-q", "main", cwd=top)
    git("checkout", "-q", shas[2], cwd=top / "sub")
    git("commit", "-q", "-am", "sub at 3", cwd=top)
    git("merge", "-q", "other", cwd=top, check=False)  # conflicts: exit 1
    got = submodule_states(top, ["sub"])
    assert got == _status(top) == {"sub": ("conflict", "0" * 40)}


def test_started_probes_give_the_same_facts_and_are_all_used(pytorch_tree, tmp_path, monkeypatch):
    """``start_slow_probes`` (what the CLI runs before importing the build code) starts the
    interpreter, git and uncached ``--version`` questions; ``collect`` must then give the
    same facts as without it, and use every process that was started."""
    import venv

    from torchbuild.facts import _util, start_slow_probes

    tree, _ = pytorch_tree
    py = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(py)
    python = str(py / "bin" / "python")
    plain = collect(tree, python=python)
    monkeypatch.setattr(_util, "_memo", {})  # forget the probe cache: every tool question is started too
    start_slow_probes(tree, python=python)
    started = dict(_util._started)
    assert any(argv[:1] == (python,) for argv, _ in started)
    assert any("ls-files" in argv for argv, _ in started) and any("rev-parse" in argv for argv, _ in started)
    early = collect(tree, python=python)
    assert _util._started == {}  # each was collected, none left running unused
    assert all(p.returncode is not None for p in started.values())
    plain.probe_seconds = early.probe_seconds = 0
    plain.resources = early.resources  # free memory and disk move between two probes
    assert early == plain
