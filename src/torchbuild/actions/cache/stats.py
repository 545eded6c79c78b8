"""Statistics, zeroing, clearing and configuration of ccache and sccache, read from the
tools' own output (see the package docstring for the formats)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...decisions.redact import redact
from ...errors import UsageError
from .tools import CacheToolError, _check, _run, find_tool

# ccache --print-stats counters (ccache 4.x names; manual, "Cache statistics").
_CCACHE_HITS = ("direct_cache_hit", "preprocessed_cache_hit")
_CCACHE_MISSES = ("cache_miss",)
_CCACHE_UNCACHEABLE = (
    "autoconf_test",
    "bad_compiler_arguments",
    "bad_output_file",
    "called_for_link",
    "called_for_preprocessing",
    "compile_failed",
    "compiler_produced_empty_output",
    "compiler_produced_no_output",
    "compiler_produced_stdout",
    "could_not_use_modules",
    "could_not_use_precompiled_header",
    "multiple_source_files",
    "no_input_file",
    "output_to_stdout",
    "preprocessor_error",
    "unsupported_code_directive",
    "unsupported_compiler_option",
    "unsupported_environment_variable",
    "unsupported_source_language",
    "could_not_find_compiler",
    "compiler_check_failed",
)
_CCACHE_ERRORS = (
    "internal_error",
    "missing_cache_file",
    "remote_storage_error",
    "remote_storage_timeout",
    "error_hashing_extra_file",
)


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

    def minus(self, before: CacheStats | None) -> CacheStats:
        """The counters since ``before`` (per counter; when a counter went down, because the
        statistics were zeroed or the sccache server restarted, the later value is used)."""
        if before is None:
            return CacheStats(**{**asdict(self), "counters": dict(self.counters)})

        def d(a: int, b: int) -> int:
            return a - b if a >= b else a

        counters = {k: d(v, before.counters.get(k, 0)) for k, v in self.counters.items()}
        return CacheStats(
            tool=self.tool,
            hits=d(self.hits, before.hits),
            misses=d(self.misses, before.misses),
            uncacheable=d(self.uncacheable, before.uncacheable),
            errors=d(self.errors, before.errors),
            location=self.location,
            counters=counters,
            distributed=d(self.distributed, before.distributed),
        )

    def plus(self, other: CacheStats | None) -> CacheStats:
        """The sum of two sets of counters (the counts of a replaced sccache server and
        of the one that took over); ``location`` is this one's."""
        if other is None:
            return self.minus(None)
        keys = set(self.counters) | set(other.counters)
        return CacheStats(
            tool=self.tool,
            hits=self.hits + other.hits,
            misses=self.misses + other.misses,
            uncacheable=self.uncacheable + other.uncacheable,
            errors=self.errors + other.errors,
            location=self.location,
            counters={k: self.counters.get(k, 0) + other.counters.get(k, 0) for k in sorted(keys)},
            distributed=self.distributed + other.distributed,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with ``hit_rate`` (0..1 or None) added."""
        out = asdict(self)
        out["hit_rate"] = round(self.hit_rate, 4) if self.hit_rate is not None else None
        return out


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
        uncacheable=sum(
            counters.get(k, 0)
            for k in (
                "requests_not_compile",
                "requests_not_cacheable",
                "requests_unsupported_compiler",
                "compile_fails",
            )
        ),
        errors=sum(
            counters.get(k, 0) for k in ("cache_errors", "cache_read_errors", "cache_write_errors", "cache_timeouts")
        ),
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


def read_stats(
    tool: str, exe: str | None = None, env: Mapping[str, str] | None = None, *, location: bool = True
) -> CacheStats:
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
            stats.location = loc + (f" + remote {redact(remote)}" if remote else "") if loc else None
        return stats
    if tool == "sccache":
        argv = [exe, "--show-stats", "--stats-format=json"]
        return parse_sccache_stats(_check(_run(argv, env), argv))[0]
    raise UsageError(f"unknown cache tool {tool!r}: use ccache or sccache.")


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
        raise UsageError(
            f"sccache's cache is {stats.location}; sccache cannot clear a remote backend.",
            fix="clear it where it lives (e.g. redis-cli -h HOST -n DB FLUSHDB for a Redis used only by sccache).",
        )
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
        values = {k: {"value": redact(v), "from": origin} for k, (v, origin) in parse_ccache_config(out).items()}
        return {"tool": "ccache", "exe": exe, "config": values}
    argv = [exe, "--show-stats", "--stats-format=json"]
    stats, data = parse_sccache_stats(_check(_run(argv, env), argv))
    variables = {
        k: ("***" if ("PASSWORD" in k or "TOKEN" in k or ("KEY" in k and "PREFIX" not in k)) else redact(v))
        for k, v in env.items()
        if k.startswith("SCCACHE_")
    }
    return {
        "tool": "sccache",
        "exe": exe,
        "version": data.get("version"),
        "location": stats.location,
        "max_cache_size": data.get("max_cache_size"),
        "cache_size": data.get("cache_size"),
        "basedirs": data.get("basedirs"),
        "preprocessor_cache_mode": data.get("use_preprocessor_cache_mode"),
        "variables": variables,
    }
