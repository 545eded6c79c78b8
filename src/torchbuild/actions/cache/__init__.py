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

from .sccache_server import ensure_sccache_server
from .session import CacheSession, start_session
from .stats import (
    CacheStats,
    clear_cache,
    parse_ccache_config,
    parse_ccache_stats,
    parse_sccache_stats,
    read_stats,
    show_config,
    zero_stats,
)
from .summary import compilers_of, summary_line
from .tools import CacheToolError, find_tool, reachable, unreachable_reason
from .wrappers import write_wrappers

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
    "unreachable_reason",
    "write_wrappers",
    "ensure_sccache_server",
    "start_session",
    "summary_line",
    "compilers_of",
    "parse_ccache_stats",
    "parse_sccache_stats",
    "parse_ccache_config",
]
