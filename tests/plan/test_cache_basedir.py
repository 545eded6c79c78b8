"""The plan's base-directory settings for hits from any path, and how it names a cache
found off PATH (pure: decisions on facts built here)."""

from __future__ import annotations

import pytest

from torchbuild.decisions.cache_plan import cache_settings
from torchbuild.facts.model import Tool


def settings(tool: str, kind: str, tools: dict | None = None, mode: str = "wheel"):
    return cache_settings(
        tool=tool,
        tool_source="--cache",
        tools=tools or {tool: Tool(f"/usr/bin/{tool}", "4.7.5")},
        kind=kind,
        mode=mode,
        cuda=False,
        jobs=2,
        jobs_from_user=False,
    )


def test_ccache_base_dir_is_the_tree_and_extension_builds_drop_hash_dir():
    ext = settings("ccache", "extension").env
    assert ext["CCACHE_BASEDIR"][0] == "{tree}" and ext["CCACHE_NOHASHDIR"][0] == "1"
    pt = settings("ccache", "pytorch", mode="develop").env
    assert pt["CCACHE_BASEDIR"][0] == "{tree}" and "CCACHE_NOHASHDIR" not in pt  # gdb finds a Debug build's sources


def test_sccache_basedirs_is_the_tree():
    env = settings("sccache", "extension", {"sccache": Tool("/v/bin/sccache", "0.16.0")}).env
    assert env["SCCACHE_BASEDIRS"][0] == "{tree}" and not any(k.startswith("CCACHE_") for k in env)


@pytest.mark.parametrize("on_path,expected", [(True, "sccache"), (False, "/venv/bin/sccache")])
def test_cmake_launcher_names_a_cache_off_path_by_its_path(on_path, expected):
    tools = {"sccache": Tool("/venv/bin/sccache", "0.16.0", on_path=on_path)}
    env = settings("sccache", "pytorch", tools, mode="develop").env
    assert env["CMAKE_CXX_COMPILER_LAUNCHER"][0] == expected
