"""The compile cache of one build (:class:`CacheSession`): set up before the build, a
shared backend watched while it runs, counters read when it ends."""

from __future__ import annotations

import threading
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import TorchbuildError
from .sccache_server import ensure_sccache_server
from .stats import _CCACHE_ERRORS, CacheStats, read_stats
from .tools import (
    _BACKEND_VARS,
    TIMEOUT,
    CacheToolError,
    _local_only,
    _run,
    find_tool,
    unreachable_reason,
)
from .wrappers import write_wrappers

#: Seconds between two checks of a shared sccache backend while a build runs, and how
#: many failed checks in a row make the build switch to the local cache.  One failed
#: TCP connection may be a blip; each compile started while the backend is gone waits
#: up to 60 s, so the switch comes after at most about 2 x (interval + 2 s timeout).
WATCH_INTERVAL_S = 3.0
WATCH_FAILURES = 2


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

    def watch(
        self, log: Any | None = None, *, interval: float = WATCH_INTERVAL_S, failures: int = WATCH_FAILURES
    ) -> bool:
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
                why = unreachable_reason(host, port)
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
            _warn(
                self,
                f"the shared cache {url} stopped answering during the build ({why}); restarted the sccache "
                f"server on the local cache ({location}) so that compiles do not wait on it (sccache waits "
                "up to 60 s per compile for a backend that is gone).",
                log,
            )
        else:
            _warn(
                self,
                f"the shared cache {url} stopped answering during the build ({why}), and the sccache server "
                f"could not be switched to the local cache (it reports {location}); compiles may wait up to "
                "60 s each. Stop the build and run it again: it will check the cache first and use the local "
                "one.",
                log,
            )

    def finish(self) -> dict[str, Any]:
        """Read the counters again; the record entry: tool, exe, version, backend,
        location, distribution, compilers, before/after/delta counters, hit rate, warnings.

        Ends :meth:`watch` first.  After a switch to the local cache, ``after`` is the new
        server's counters, ``replaced`` the old server's (since ``before``), and ``delta``
        their sum."""
        self.stop_watching()
        out: dict[str, Any] = {
            "tool": self.tool,
            "exe": self.setup.get("exe"),
            "version": self.setup.get("version"),
            "backend": self.backend,
            "url": self.setup.get("url"),
            "distribute": self.setup.get("distribute"),
            "hosts": self.env.get("DISTCC_HOSTS"),
            "compilers": self.compilers,
            "warnings": self.warnings,
            "actions": self.actions,
        }
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
            out.update(
                before=self.before.to_dict() if self.before else None,
                after=after.to_dict() if after else None,
                delta=delta.to_dict() if delta else None,
                location=last.location if (last := after or self.before) else None,
            )
            if delta is not None:
                out.update(
                    hits=delta.hits,
                    misses=delta.misses,
                    uncacheable=delta.uncacheable,
                    errors=delta.errors,
                    hit_rate=delta.to_dict()["hit_rate"],
                )
                if delta.errors and self.backend == "redis":
                    self._warn_backend_errors(delta)
        return out

    def _warn_backend_errors(self, delta: CacheStats) -> None:
        """Warn that the shared backend failed some reads or writes during the build
        (ccache's ``remote_storage_error``/``_timeout``; sccache's cache read and write
        errors): the compiles ran, but those entries are not shared."""
        names = (
            _CCACHE_ERRORS
            if self.tool == "ccache"
            else ("cache_errors", "cache_read_errors", "cache_write_errors", "cache_timeouts")
        )
        detail = ", ".join(f"{k} {delta.counters[k]}" for k in names if delta.counters.get(k))
        url = self.setup.get("url")
        _warn(
            self,
            f"the shared cache {url} failed {delta.errors} time(s) during the build ({detail}); those "
            "compiles ran here but were not read from or stored in it. Check that the server is up and that "
            f"the URL's password and database number are right (redis-cli -u '{url}' ping).",
            self.log,
        )


def _warn(session: CacheSession, msg: str, log: Any | None) -> None:
    from ...ui import console

    session.warnings.append(msg)
    console.print("warning:", style="yellow", end=" ", markup=False)
    console.print(msg, markup=False, highlight=False)
    if log is not None:
        log.write(f"[torchbuild] warning: {msg}\n".encode())


def _say(session: CacheSession, msg: str, log: Any | None) -> None:
    from ...ui import console

    session.actions.append(msg)
    console.print(f"cache: {msg}", markup=False, style="dim")
    if log is not None:
        log.write(f"[torchbuild] cache: {msg}\n".encode())


def start_session(
    setup: Mapping[str, Any] | None,
    env: MutableMapping[str, str],
    tree: Path,
    *,
    compilers: Mapping[str, Any] | None = None,
    log: Any | None = None,
) -> CacheSession | None:
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
    session = CacheSession(
        setup=dict(setup),
        env=env,
        tree=Path(tree),
        compilers=dict(compilers or {}),
        backend=str(setup.get("backend") or "local"),
        log=log,
    )
    written = write_wrappers(Path(tree), setup)
    if written:
        _say(session, f"wrote {len(written)} wrapper(s) in {Path(tree) / '.torchbuild' / 'wrappers'}", log)
    tool = session.tool
    check = setup.get("check")
    if check:
        why = unreachable_reason(str(check["host"]), int(check["port"]))
        if why is not None:
            for k in _BACKEND_VARS:
                env.pop(k, None)
            session.backend = f"local (fallback: {setup.get('url')} unreachable)"
            _warn(
                session,
                f"the shared cache {setup.get('url')} cannot be reached ({why}); this build uses the local "
                f"{tool} cache instead.",
                log,
            )
        else:
            _say(session, f"shared cache {setup.get('url')} answers", log)
    hosts = setup.get("hosts")
    if setup.get("distribute") == "distcc" and hosts:
        alive: list[tuple[Mapping[str, Any], str | None]] = []
        dead: list[tuple[Mapping[str, Any], str | None]] = []
        for h in hosts:
            why = unreachable_reason(h["host"], int(h["port"]))
            (dead if why else alive).append((h, why))
        if dead:
            spec = " ".join(f"{h['host']}:{h['port']}/{h['slots']}" for h, _ in alive)
            env["DISTCC_HOSTS"] = spec or "localhost/2"
            gone = ", ".join(f"{h['host']}:{h['port']} ({why})" for h, why in dead)
            _warn(
                session,
                f"distcc host(s) not answering: {gone}; "
                + ("compiling on the others." if alive else "compiling on this machine only."),
                log,
            )
    if tool == "sccache":
        exe = str(setup.get("exe") or find_tool("sccache") or "sccache")
        for m in _start_sccache(session, exe, env, basedir=str(tree) if setup.get("tree_basedir") else None):
            _say(session, m, log)
        if setup.get("distribute") == "sccache-dist":
            proc = _run([exe, "--dist-status"], env)
            status = (proc.stdout or proc.stderr).strip()
            if proc.returncode != 0 or "SchedulerStatus" not in status:
                _warn(
                    session,
                    f"sccache-dist is not ready ({status[:200] or 'no status'}); sccache compiles locally. "
                    "See `torchbuild cache config --dist` and docs/cache.md.",
                    log,
                )
            else:
                _say(session, f"sccache-dist: {status[:200]}", log)
    if tool in ("ccache", "sccache"):
        try:
            session.before = read_stats(tool, setup.get("exe"), env)
        except TorchbuildError as exc:
            _warn(session, f"could not read {tool} statistics before the build: {exc}", log)
    return session


def _start_sccache(session: CacheSession, exe: str, env: MutableMapping[str, str], *, basedir: str | None) -> list[str]:
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
        _warn(
            session,
            f"the sccache server did not start with the shared cache {url} ({first.message}); this build "
            f"uses the local sccache cache instead. Check the URL's password and database number "
            f"(redis-cli -u '{url}' ping).",
            session.log,
        )
        try:
            return ensure_sccache_server(exe, env, redis_endpoint=None, basedir=basedir)
        except CacheToolError as exc:
            first = exc
    raise CacheToolError(
        f"the sccache server did not start, so every compile through it would fail: {first.message}",
        fix="run `SCCACHE_LOG=debug SCCACHE_NO_DAEMON=1 sccache --start-server` to see why, or build "
        "with --cache ccache or --cache none.",
    )
