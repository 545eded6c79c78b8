"""The sccache server: making the one a build reaches use the plan's backend and base
directories."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from .stats import parse_sccache_stats
from .tools import _check, _run


def _sccache_json(exe: str, env: Mapping[str, str]) -> dict[str, Any]:
    argv = [exe, "--show-stats", "--stats-format=json"]
    return parse_sccache_stats(_check(_run(argv, env), argv))[1]


def ensure_sccache_server(
    exe: str, env: MutableMapping[str, str], *, redis_endpoint: str | None, basedir: str | None
) -> list[str]:
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
        msgs.append(
            f"started the sccache server: {data.get('cache_location')}, base directories {data.get('basedirs')}"
        )
        return msgs
    if "address in use" not in (started.stderr + started.stdout).lower():
        _check(started, argv)
    data = _sccache_json(exe, env)  # the server that runs
    loc = str(data.get("cache_location") or "")
    dirs = [str(d) for d in (data.get("basedirs") or [])]
    want_redis = redis_endpoint is not None
    fits_backend = (
        (loc.lower().startswith("redis") and redis_endpoint in loc)
        if redis_endpoint is not None
        else loc.startswith("Local disk")
    )
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
    msgs.append(
        f"restarted the sccache server ({'; '.join(why)}): now {new.get('cache_location')}, "
        f"base directories {new.get('basedirs')}"
    )
    return msgs
