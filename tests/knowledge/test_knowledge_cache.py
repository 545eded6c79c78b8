"""The parsed-knowledge cache (``<cache_dir>/knowledge/``): a new process skips the TOML
parse of an unchanged table, an edited table is parsed and checked again, and a cache that
cannot be read or written only costs the parse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild import knowledge
from torchbuild.errors import KnowledgeError


@pytest.fixture
def table(monkeypatch, tmp_path):
    """A folder table ``t`` in a private data folder, with its own cache folder."""
    data = tmp_path / "data"
    (data / "t").mkdir(parents=True)
    (data / "t" / "_meta.toml").write_text('[meta]\nsources = { k = "https://example.org/v1" }\n', encoding="utf-8")
    (data / "t" / "a.toml").write_text('[[row]]\nsource = "k"\nx = 1\n', encoding="utf-8")
    monkeypatch.setattr(knowledge, "_data", lambda: data)
    monkeypatch.setenv("TORCHBUILD_CACHE", str(tmp_path / "cache"))
    knowledge.load.cache_clear()
    yield data
    knowledge.load.cache_clear()


def _no_parse(rel, data):
    raise AssertionError(f"{rel} was parsed although the cache holds it")


def test_an_unchanged_table_comes_from_the_cache(table, monkeypatch, tmp_path):
    first = knowledge.load("t")
    stored = list((tmp_path / "cache" / "knowledge").glob("t-*.marshal"))
    assert len(stored) == 1
    knowledge.load.cache_clear()  # a new process: only the disk cache is left
    monkeypatch.setattr(knowledge, "_parse", _no_parse)
    assert (
        knowledge.load("t")
        == first
        == {"meta": {"sources": {"k": "https://example.org/v1"}}, "row": [{"source": "k", "x": 1}]}
    )


def test_an_edited_table_is_parsed_and_checked_again(table, tmp_path):
    knowledge.load("t")
    knowledge.load.cache_clear()
    (table / "t" / "a.toml").write_text('[[row]]\nsource = "k"\nx = 2\n', encoding="utf-8")
    assert knowledge.load("t")["row"] == [{"source": "k", "x": 2}]
    # the older entry is dropped, only the new one is kept
    assert len(list((tmp_path / "cache" / "knowledge").glob("t-*.marshal"))) == 1
    knowledge.load.cache_clear()
    (table / "t" / "a.toml").write_text('[[row]]\nsource = "nokey"\n', encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"t/a\.toml: row\[0\] cites 'nokey'"):
        knowledge.load("t")


def test_a_damaged_cache_file_is_parsed_again(table, tmp_path):
    first = knowledge.load("t")
    (entry,) = (tmp_path / "cache" / "knowledge").glob("t-*.marshal")
    entry.write_bytes(b"\x00not marshal")
    knowledge.load.cache_clear()
    assert knowledge.load("t") == first


def test_a_cache_path_that_is_a_file_only_costs_the_parse(table, tmp_path):
    """The cache folder's place is taken by a plain file (a read-only folder would not stop root)."""
    (tmp_path / "cache").write_text("not a folder", encoding="utf-8")
    assert knowledge.load("t")["row"] == [{"source": "k", "x": 1}]


def test_the_shipped_signatures_load_the_same_from_the_cache(tmp_path):
    """Two real processes with one cache folder: the second reads the cache file the first
    wrote and gets the same signature rows."""
    env = {**os.environ, "TORCHBUILD_CACHE": str(tmp_path)}
    code = (
        "import json, torchbuild.knowledge as k\nprint(json.dumps(k.rows('signatures', 'signature'), sort_keys=True))\n"
    )
    src = str(Path(knowledge.__file__).parents[2])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    one = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    (entry,) = (tmp_path / "knowledge").glob("signatures-*.marshal")
    mtime = entry.stat().st_mtime_ns
    two = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert one == two and len(one) > 100_000
    assert entry.stat().st_mtime_ns == mtime  # read, not written again


def test_a_derived_table_is_computed_once_per_inputs(monkeypatch, tmp_path):
    """knowledge.derived stores what it computed; the same inputs in a new process read it back without computing,
    other inputs compute again and replace the stored entry."""
    monkeypatch.setenv("TORCHBUILD_CACHE", str(tmp_path / "cache"))
    calls = []

    def compute():
        calls.append(1)
        return {"k": [1, 2], "n": [3]}

    assert knowledge.derived("x", b"rows v1", compute) == {"k": [1, 2], "n": [3]}
    assert knowledge.derived("x", b"rows v1", compute) == {"k": [1, 2], "n": [3]}
    assert len(calls) == 1
    assert knowledge.derived("x", b"rows v2", lambda: {"k": [9]}) == {"k": [9]}
    assert len(list((tmp_path / "cache" / "knowledge").glob("derived-x-*.marshal"))) == 1


def test_the_signature_key_index_from_the_cache_is_the_computed_one(tmp_path):
    """The key index a new process reads from the cache (a second process with the same cache folder) is the one the
    first process computed from the rows, which is the one computed without any cache (a cache folder that cannot be
    written: a file where the folder should be)."""
    code = (
        "import json\n"
        "from torchbuild.decisions.diagnose.keyindex import _key_index\n"
        "from torchbuild.decisions.diagnose.signatures import load_signatures\n"
        "print(json.dumps(_key_index(tuple(load_signatures()))[1], sort_keys=True))\n"
    )

    def run(cache: Path) -> str:
        env = {**os.environ, "TORCHBUILD_CACHE": str(cache)}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout

    first = run(tmp_path / "cache")
    assert list((tmp_path / "cache" / "knowledge").glob("derived-signature-keys-*.marshal"))
    (tmp_path / "blocked").write_text("")
    assert run(tmp_path / "cache") == first == run(tmp_path / "blocked")
    assert "nvcc" in first
