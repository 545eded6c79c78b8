"""Compile caches driven through torchbuild's helpers, with the real tools (seconds).

Correctness: a hit never changes the result.  Compiles that differ in a flag, a define or
the compiler must miss (the tools' own hashing decides; these tests check it), and the
object files then differ.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild.actions import cache as cc
from torchbuild.decisions.cache_plan import cache_settings, parse_cache_url, parse_distcc_hosts
from torchbuild.errors import ConflictingOptionsError, UsageError
from torchbuild.facts.model import Compiler, Tool

from .conftest import free_port

SRC = "int scale(int x) {\n#ifdef TB_DOUBLE\n  return 2 * x;\n#else\n  return x;\n#endif\n}\n"


def compile_with(tool_exe: str, compiler: str, src: Path, obj: Path, env: dict, *flags: str) -> bytes:
    proc = subprocess.run(
        [tool_exe, compiler, "-O2", *flags, "-c", str(src), "-o", str(obj)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return obj.read_bytes()


@pytest.mark.parametrize("tool", ["ccache", "sccache"])
def test_same_compile_hits_and_changed_flag_define_or_compiler_misses(tool, tmp_path, cache_env):
    exe = cc.find_tool(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed")
    src = tmp_path / "s.c"
    src.write_text(SRC)
    gcc = subprocess.run(["sh", "-c", "command -v gcc"], capture_output=True, text=True).stdout.strip()
    # a second "compiler": a wrapper that defines something, so its objects really differ
    other = tmp_path / "bin" / "gcc"
    other.parent.mkdir()
    other.write_text(f'#!/bin/sh\nexec {gcc} -DTB_DOUBLE=1 "$@"\n')
    other.chmod(0o755)

    before = cc.read_stats(tool, exe, cache_env)
    base = compile_with(exe, gcc, src, tmp_path / "a.o", cache_env)
    again = compile_with(exe, gcc, src, tmp_path / "b.o", cache_env)
    d = cc.read_stats(tool, exe, cache_env).minus(before)
    assert (d.hits, d.misses) == (1, 1)
    assert again == base

    results = {}
    for label, compiler, flags in [
        ("define", gcc, ("-DTB_DOUBLE=1",)),
        ("flag", gcc, ("-O0",)),
        ("compiler", str(other), ()),
    ]:
        s0 = cc.read_stats(tool, exe, cache_env)
        results[label] = compile_with(exe, compiler, src, tmp_path / f"{label}.o", cache_env, *flags)
        delta = cc.read_stats(tool, exe, cache_env).minus(s0)
        assert (delta.hits, delta.misses) == (0, 1), f"{tool}: changed {label} must miss, got {delta}"
    assert results["define"] != base and results["compiler"] != base  # a wrong hit would have returned `base`


def test_ccache_stats_parse_real_output(cache_env, ccache_exe, tmp_path):
    src = tmp_path / "s.c"
    src.write_text(SRC)
    compile_with(ccache_exe, "gcc", src, tmp_path / "a.o", cache_env)
    proc = subprocess.run([ccache_exe, "--print-stats"], env=cache_env, capture_output=True, text=True, timeout=30)
    raw = dict(line.split("\t") for line in proc.stdout.splitlines())
    s = cc.read_stats("ccache", ccache_exe, cache_env)
    assert s.misses == int(raw["cache_miss"]) == 1
    assert s.location == f'Local disk: "{cache_env["CCACHE_DIR"]}"'
    cc.zero_stats("ccache", ccache_exe, cache_env)
    assert cc.read_stats("ccache", ccache_exe, cache_env).misses == 0
    compile_with(ccache_exe, "gcc", src, tmp_path / "b.o", cache_env)
    assert cc.read_stats("ccache", ccache_exe, cache_env).hits == 1
    msg = cc.clear_cache("ccache", ccache_exe, cache_env)
    assert cache_env["CCACHE_DIR"] in msg
    compile_with(ccache_exe, "gcc", src, tmp_path / "c.o", cache_env)
    assert cc.read_stats("ccache", ccache_exe, cache_env).misses == 1  # cleared: the entry is gone


def test_compiler_wrappers_pass_torch_abi_check_and_hit_the_cache(tmp_path, cache_env, ccache_exe):
    """The setuptools-extension wrappers: torch's compiler check accepts them (no ABI
    warning), and a compile through them is cached (second one is a hit)."""
    part = cache_settings(
        tool="ccache",
        tool_source="--cache",
        tools={"ccache": Tool(ccache_exe, "4")},
        kind="extension",
        mode="wheel",
        cuda=False,
        jobs=2,
        jobs_from_user=False,
        cc=Compiler("gcc", "/usr/bin/gcc", "12"),
        cxx=Compiler("gcc", "/usr/bin/g++", "12"),
    )
    tree = tmp_path / "tree"
    cc.write_wrappers(tree, part.setup)
    cxx = part.env["CXX"][0].replace("{tree}", str(tree))
    assert Path(cxx).name == "g++" and part.env["TORCH_NO_COMPILER_WRAPPER"][0] == "1"
    code = (
        "import logging, sys, warnings\n"
        "from torch.utils import cpp_extension as c\n"
        "logging.basicConfig(level=logging.WARNING)\n"
        "ok = c.check_compiler_ok_for_platform(sys.argv[1])\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    abi_ok, ver = c.get_compiler_abi_compatibility_and_version(sys.argv[1])\n"
        "print(ok, abi_ok, str(ver))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, cxx], env=cache_env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["True", "True"], proc.stdout + proc.stderr
    assert "ABI-incompatible" not in proc.stderr and "not compatible" not in proc.stderr
    src = tmp_path / "k.cpp"
    src.write_text("int k() { return 3; }\n")
    for i in range(2):
        subprocess.run([cxx, "-c", str(src), "-o", str(tmp_path / f"k{i}.o")], env=cache_env, check=True, timeout=60)
    s = cc.read_stats("ccache", ccache_exe, cache_env)
    assert (s.hits, s.misses) == (1, 1)


def test_nvcc_wrapped_cuda_home_caches_cuda_compiles(tmp_path, cache_env, ccache_exe):
    """CUDA_HOME of symlinks with bin/nvcc wrapped: torch's cpp_extension runs
    CUDA_HOME/bin/nvcc, so CUDA compiles are cached; the host compiler runs bare inside."""
    nvcc = (
        subprocess.run(["sh", "-c", "command -v nvcc || ls /usr/local/cuda/bin/nvcc"], capture_output=True, text=True)
        .stdout.strip()
        .splitlines()
    )
    if not nvcc:
        pytest.skip("no nvcc on this machine")
    real = Path(nvcc[0]).resolve()
    home = real.parent.parent
    part = cache_settings(
        tool="ccache",
        tool_source="--cache",
        tools={"ccache": Tool(ccache_exe, "4")},
        kind="extension",
        mode="wheel",
        cuda=True,
        jobs=2,
        jobs_from_user=False,
        cuda_home=str(home),
        nvcc=str(real),
        cc=Compiler("gcc", "/usr/bin/gcc", "12"),
        cxx=Compiler("gcc", "/usr/bin/g++", "12"),
    )
    tree = tmp_path / "tree"
    cc.write_wrappers(tree, part.setup)
    wrapped = Path(part.env["CUDA_HOME"][0].replace("{tree}", str(tree)))
    assert (wrapped / "include").resolve() == (home / "include").resolve()
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n")
    gcc_wrapper = part.env["CC"][0].replace("{tree}", str(tree))
    for i in range(2):
        proc = subprocess.run(
            [str(wrapped / "bin" / "nvcc"), "-ccbin", gcc_wrapper, "-c", str(src), "-o", str(tmp_path / f"k{i}.o")],
            env=cache_env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
    s = cc.read_stats("ccache", ccache_exe, cache_env)
    assert (s.hits, s.misses) == (1, 1), s  # the inner host-compiler calls were not cached twice


def test_unreachable_redis_falls_back_to_local_with_a_warning(tmp_path, cache_env, sccache_exe):
    port = free_port()  # nothing listens there
    part = cache_settings(
        tool="sccache",
        tool_source="--cache",
        tools={"sccache": Tool(sccache_exe, "0.16")},
        kind="pytorch",
        mode="develop",
        cuda=False,
        jobs=2,
        jobs_from_user=False,
        cache_url=f"redis://127.0.0.1:{port}/3",
    )
    env = dict(cache_env)
    env.update({k: v.replace("{tree}", str(tmp_path)) for k, (v, _) in part.env.items()})
    assert env["SCCACHE_REDIS_ENDPOINT"] == f"redis://127.0.0.1:{port}" and env["SCCACHE_REDIS_DB"] == "3"
    session = cc.start_session(part.setup, env, tmp_path)
    assert session is not None
    assert "SCCACHE_REDIS_ENDPOINT" not in env and session.backend.startswith("local (fallback")
    assert any("cannot be reached" in w for w in session.warnings)
    src = tmp_path / "s.c"
    src.write_text(SRC)
    compile_with(sccache_exe, "gcc", src, tmp_path / "a.o", env)  # compiles: not a failed build
    entry = session.finish()
    assert entry["misses"] == 1 and entry["location"].startswith("Local disk")


def _session_env(part, cache_env, tree: Path) -> dict:
    env = dict(cache_env)
    env.update({k: v.replace("{tree}", str(tree)) for k, (v, _) in part.env.items()})
    return env


def test_redis_that_refuses_sccache_falls_back_to_local_with_a_warning(
    tmp_path, cache_env, sccache_exe, redis_with_password, capsys
):
    """A Redis that answers TCP but wants a password the URL lacks: the sccache server
    does not start with it (every compile through it would fail: "Timed out waiting for
    server startup", sccache 0.16), so the session starts it on the local cache and warns."""
    part = cache_settings(
        tool="sccache",
        tool_source="--cache",
        tools={"sccache": Tool(sccache_exe, "0.16")},
        kind="pytorch",
        mode="develop",
        cuda=False,
        jobs=2,
        jobs_from_user=False,
        cache_url=redis_with_password.url(0),
    )
    env = _session_env(part, cache_env, tmp_path)
    session = cc.start_session(part.setup, env, tmp_path)
    assert session is not None and session.backend.startswith("local (fallback: the sccache server refused")
    assert any("did not start with the shared cache" in w for w in session.warnings), session.warnings
    assert "did not start with the shared cache" in capsys.readouterr().err
    assert "SCCACHE_REDIS_ENDPOINT" not in env
    src = tmp_path / "s.c"
    src.write_text(SRC)
    compile_with(sccache_exe, "gcc", src, tmp_path / "a.o", env)  # compiles: not a failed build
    entry = session.finish()
    assert entry["misses"] == 1 and entry["location"].startswith("Local disk")


def test_sccache_that_cannot_start_stops_the_build_before_it_compiles(tmp_path, cache_env, sccache_exe):
    """An sccache that cannot start at all (here: an unreadable SCCACHE_CONF) would fail
    every compile; the session says so before anything is built, with the fix."""
    bad = tmp_path / "bad.toml"
    bad.write_text("this is [not toml\n")
    part = cache_settings(
        tool="sccache",
        tool_source="--cache",
        tools={"sccache": Tool(sccache_exe, "0.16")},
        kind="pytorch",
        mode="develop",
        cuda=False,
        jobs=2,
        jobs_from_user=False,
    )
    env = _session_env(part, cache_env, tmp_path)
    env["SCCACHE_CONF"] = str(bad)
    with pytest.raises(cc.CacheToolError) as err:
        cc.start_session(part.setup, env, tmp_path)
    assert "did not start" in err.value.message and "--cache ccache" in err.value.fix


def test_ccache_with_a_refusing_redis_compiles_and_the_session_warns(
    tmp_path, cache_env, ccache_exe, redis_with_password, capsys
):
    """ccache never fails a compile for its remote storage (it counts
    ``remote_storage_error``); the session's end names the failing shared cache."""
    part = cache_settings(
        tool="ccache",
        tool_source="--cache",
        tools={"ccache": Tool(ccache_exe, "4.7")},
        kind="pytorch",
        mode="develop",
        cuda=False,
        jobs=2,
        jobs_from_user=False,
        cache_url=redis_with_password.url(0),
    )
    env = _session_env(part, cache_env, tmp_path)
    assert env["CCACHE_REMOTE_STORAGE"].startswith("redis://127.0.0.1:")
    session = cc.start_session(part.setup, env, tmp_path)
    assert session is not None and session.backend == "redis" and not session.warnings  # TCP answers
    src = tmp_path / "s.c"
    src.write_text(SRC)
    compile_with(ccache_exe, "gcc", src, tmp_path / "a.o", env)
    entry = session.finish()
    assert entry["misses"] == 1 and entry["errors"] >= 1
    assert any("failed" in w and "remote_storage_error" in w for w in entry["warnings"]), entry["warnings"]
    assert "redis-cli" in capsys.readouterr().err


def test_cli_stats_config_clear(tmp_path, cache_env, ccache_exe, cli):
    src = tmp_path / "s.c"
    src.write_text(SRC)
    compile_with(ccache_exe, "gcc", src, tmp_path / "a.o", cache_env)
    r = cli("cache", "stats", "--tool", "ccache", "--json", env=cache_env)
    assert r.returncode == 0, r.stderr
    assert r.json["ccache"]["misses"] == 1 and r.json["ccache"]["hit_rate"] == 0.0
    r = cli("cache", "config", "--tool", "ccache", "--json", env=cache_env)
    assert r.json["ccache"]["config"]["cache_dir"] == {"value": cache_env["CCACHE_DIR"], "from": "environment"}
    r = cli("cache", "clear", env=cache_env)
    assert r.returncode == 2 and "--tool" in r.stderr
    r = cli("cache", "clear", "--tool", "ccache", env=cache_env)
    assert r.returncode == 0 and cache_env["CCACHE_DIR"] in r.stderr


def test_cli_config_dist_writes_valid_sccache_dist_files(tmp_path, cli):
    import tomllib

    out = tmp_path / "dist"
    r = cli(
        "cache", "config", "--dist", "--scheduler", "10.1.2.3:10600", "--server", "10.1.2.4:10501", "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    sched = tomllib.loads((out / "scheduler.conf").read_text())
    server = tomllib.loads((out / "server.conf").read_text())
    client = tomllib.loads((out / "client.conf").read_text())
    assert sched["public_addr"] == "10.1.2.3:10600"
    assert client["dist"]["scheduler_url"] == server["scheduler_url"] == "http://10.1.2.3:10600"
    assert client["dist"]["auth"]["token"] == sched["client_auth"]["token"] != sched["server_auth"]["token"]
    assert server["scheduler_auth"]["token"] == sched["server_auth"]["token"] and server["builder"]["type"] == "overlay"
    assert (out / "client.conf").stat().st_mode & 0o077 == 0
    again = cli("cache", "config", "--dist", "--out", str(out))
    assert again.returncode == 2 and "exists" in again.stderr  # never overwritten


def test_sccache_dist_client_config_is_read_by_sccache(tmp_path, cache_env, sccache_exe, cli):
    out = tmp_path / "dist"
    port = free_port()
    assert cli("cache", "config", "--dist", "--scheduler", f"127.0.0.1:{port}", "--out", str(out)).returncode == 0
    env = dict(cache_env, SCCACHE_CONF=str(out / "client.conf"))
    proc = subprocess.run([sccache_exe, "--dist-status"], env=env, capture_output=True, text=True, timeout=60)
    status = json.loads(proc.stdout)
    assert f"http://127.0.0.1:{port}/" in json.dumps(status)  # the client took our scheduler (none runs: NotConnected)


def test_parse_cache_url_and_hosts():
    u = parse_cache_url("redis://alice:s3cret@cache.example.org:6380/2")
    assert (u.endpoint, u.db, u.username, u.password) == ("redis://cache.example.org:6380", 2, "alice", "s3cret")
    assert "s3cret" not in u.redacted() and u.ccache_url() == "redis://alice:s3cret@cache.example.org:6380/2"
    assert parse_cache_url("redis://h").port == 6379
    for bad in ("s3://bucket/x", "redis:///0", "redis://h:1/notanumber"):
        with pytest.raises(UsageError):
            parse_cache_url(bad)
    hosts = parse_distcc_hosts("build1/8 10.0.0.5:3700/16,lzo localhost")
    assert [(h.host, h.port, h.slots, h.local) for h in hosts] == [
        ("build1", None, 8, False),
        ("10.0.0.5", 3700, 16, False),
        ("localhost", None, 2, True),
    ]
    assert [h.host for h in parse_distcc_hosts("a/2,b/3")] == ["a", "b"]
    with pytest.raises(UsageError):
        parse_distcc_hosts("@sshhost/4")


def test_distcc_plan_raises_jobs_and_conflicts():
    tools = {
        "ccache": Tool("/usr/bin/ccache", "4.7"),
        "distcc": Tool("/usr/bin/distcc", "3.4"),
        "sccache": Tool("/x/sccache", "0.16"),
    }
    common = dict(tools=tools, kind="pytorch", mode="develop", cuda=True, jobs=2, distribute="distcc")
    part = cache_settings(tool="ccache", tool_source="--cache", jobs_from_user=False, hosts="h1/8 h2:4000/4", **common)
    assert part.jobs == (14, "2 local + 12 distcc slots (--hosts)")
    assert part.env["DISTCC_HOSTS"][0] == "h1/8 h2:4000/4" and part.env["DISTCC_FALLBACK"][0] == "1"
    assert part.env["CMAKE_CXX_COMPILER_LAUNCHER"][0].endswith("/wrappers/ccache-distcc")
    assert part.env["CMAKE_CUDA_COMPILER_LAUNCHER"][0] == "ccache"  # nvcc never goes to distcc
    kept = cache_settings(tool="ccache", tool_source="--cache", jobs_from_user=True, hosts="h1/8", **common)
    assert kept.jobs is None
    with pytest.raises(ConflictingOptionsError):
        cache_settings(tool="sccache", tool_source="--cache", jobs_from_user=False, hosts="h1/8", **common)
    with pytest.raises(UsageError):
        cache_settings(tool="ccache", tool_source="--cache", jobs_from_user=False, hosts=None, **common)
    with pytest.raises(ConflictingOptionsError):
        cache_settings(
            tool="none",
            tool_source="--cache",
            tools=tools,
            kind="pytorch",
            mode="develop",
            cuda=False,
            jobs=2,
            jobs_from_user=False,
            cache_url="redis://h:1/0",
        )
