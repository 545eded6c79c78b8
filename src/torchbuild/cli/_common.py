"""Options shared by ``plan`` and ``build`` (one definition, validated by argparse and
by :func:`torchbuild.decisions.plan.make_plan`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..decisions.choices import BUILD_TYPES, CACHES, DISTRIBUTORS, MODES

if TYPE_CHECKING:
    from ..decisions.plan import Intent

__all__ = ["add_plan_options", "intent_from_args", "start_probes"]


def add_plan_options(p: argparse.ArgumentParser) -> None:
    """Add SOURCE and the plan options to parser ``p``."""
    p.add_argument(
        "source",
        nargs="?",
        default=".",
        help="a source directory (default: .), pytorch@<ref>, or a PyPI requirement such as torch-scatter==2.1.2",
    )
    p.add_argument(
        "--profile", help="built-in (dev, debug, minimal-cpu, release) or from torchbuild.toml / [tool.torchbuild]"
    )
    p.add_argument("--profile-file", type=Path, help="read profiles from this torchbuild.toml")
    # values are checked by the settings model (intent_from_args), which says what is allowed in one line
    p.add_argument(
        "--mode", metavar=_choices(MODES), help="develop (editable install), wheel, install, or libtorch (C++ only)"
    )
    p.add_argument("--build-type", metavar=_choices(BUILD_TYPES), help="Release, Debug or RelWithDebInfo")
    p.add_argument("--jobs", "-j", help="parallel compile jobs (default: from cores and free memory)")
    cuda = p.add_mutually_exclusive_group()
    cuda.add_argument("--cuda", dest="cuda", action="store_const", const=True, default=None, help="build with CUDA")
    cuda.add_argument("--no-cuda", dest="cuda", action="store_const", const=False, help="build without CUDA")
    p.add_argument("--arch", help="TORCH_CUDA_ARCH_LIST, e.g. '8.6' or '8.0;9.0+PTX' (default: the GPUs present)")
    p.add_argument(
        "--cache", metavar=_choices(CACHES), help="compiler cache (default: auto = sccache, else ccache, else none)"
    )
    p.add_argument(
        "--cache-url",
        metavar="URL",
        help="shared cache for a team: redis://HOST:PORT/DB (sccache or ccache); "
        "unreachable -> local cache with a warning",
    )
    p.add_argument(
        "--distribute",
        metavar=_choices(DISTRIBUTORS),
        help="distributed compilation through distcc (with ccache or no cache) or sccache-dist (with sccache)",
    )
    p.add_argument(
        "--hosts",
        metavar="HOSTS",
        help="distcc hosts 'HOST[:PORT][/SLOTS] ...' (default: $DISTCC_HOSTS) or the sccache-dist scheduler URL",
    )
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a build option (USE_*, BUILD_*, CMAKE_*, or a variable the package's setup.py reads); repeatable",
    )
    p.add_argument("--python", help="the interpreter to build with and install into (default: this one)")
    p.add_argument("--no-install", action="store_true", help="keep only the wheel; do not install it")
    p.add_argument(
        "--wheel-dir", help="where wheels go (default: <tree>/.torchbuild/dist, or the cache for fetched sources)"
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="always run the full pip step, even when an incremental CMake rebuild would do",
    )
    p.add_argument(
        "--system-libs",
        action="store_true",
        help="PyTorch tree: build against system copies of the third-party components the tree lacks "
        "(USE_SYSTEM_* per component; features with no provider turned off; packages to install named)",
    )
    p.add_argument(
        "--cmake-target",
        dest="cmake_targets",
        action="append",
        default=[],
        metavar="NAME",
        help="PyTorch tree: configure, then build only this CMake target (c10, torch_cpu, ...); repeatable",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def _choices(values: tuple[str, ...]) -> str:
    """``{a,b,c}``: how argparse shows a flag's choices in ``--help``."""
    return "{" + ",".join(values) + "}"


def intent_from_args(args: argparse.Namespace) -> Intent:
    """The :class:`Intent` the parsed flags express, each value checked by the settings model.

    :raises UsageError: a flag value the model does not allow (one line, exit 2), ``--set``
        items included (:func:`torchbuild.decisions.settings.parse_sets`).
    """
    from ..decisions.plan import Intent
    from ..decisions.settings import flag_value, parse_sets

    parse_sets(list(args.sets))  # bad items are refused before anything is probed
    return Intent(
        profile=args.profile,
        mode=flag_value("--mode", args.mode),
        build_type=flag_value("--build-type", args.build_type),
        jobs=flag_value("--jobs", args.jobs),
        cuda=args.cuda,
        arch=args.arch,
        cache=flag_value("--cache", args.cache),
        sets=list(args.sets),
        install=not args.no_install,
        wheel_dir=args.wheel_dir,
        full=args.full,
        cache_url=getattr(args, "cache_url", None),
        distribute=flag_value("--distribute", getattr(args, "distribute", None)),
        system_libs=getattr(args, "system_libs", False),
        cmake_targets=list(getattr(args, "cmake_targets", []) or []),
        **_hosts(args),
    )


def _hosts(args: argparse.Namespace) -> dict:
    """``--hosts``, else ``DISTCC_HOSTS`` from the environment for ``--distribute distcc``."""
    hosts = getattr(args, "hosts", None)
    if hosts:
        return {"hosts": hosts, "hosts_source": "--hosts"}
    if getattr(args, "distribute", None) == "distcc":
        from ..decisions.settings import read_env

        env_hosts = read_env(os.environ).distcc_hosts
        if env_hosts:
            return {"hosts": env_hosts, "hosts_source": "DISTCC_HOSTS"}
    return {"hosts": None, "hosts_source": "--hosts"}


def start_probes(args: argparse.Namespace) -> None:
    """When SOURCE is a local folder, start the slowest probe commands now
    (:func:`torchbuild.facts.start_slow_probes`), before the planning code is imported."""
    if args.source and os.path.isdir(args.source):
        from ..facts import start_slow_probes

        start_slow_probes(Path(args.source), python=args.python)
