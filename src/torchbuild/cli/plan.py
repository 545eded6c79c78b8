"""``torchbuild plan [SOURCE]``: resolve and print the build plan; run nothing."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import UsageError
from ._common import add_plan_options, intent_from_args, start_probes

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``plan`` command."""
    p = sub.add_parser(
        "plan",
        help="resolve the build plan (settings, environment, commands) without building",
        description="Resolve the build plan: mode, build type, jobs, CUDA and arch list, options, "
        "compiler cache, the environment and the commands. Nothing is run.",
    )
    add_plan_options(p)
    p.add_argument("--explain", action="store_true", help="say where each value came from")
    p.add_argument("--export", choices=["sh", "bat", "dotenv"], help="print the plan as a script to run by hand")
    p.add_argument("--output", "-o", type=Path, help="with --export: write to this new file instead of stdout")
    return p


def run(args: argparse.Namespace) -> int:
    """Print the plan (or export it); exit 0, or 2 on bad input."""
    if args.output and not args.export:
        raise UsageError("--output goes with --export.", fix="add --export sh|bat|dotenv, or drop --output.")
    if args.output and args.output.exists():
        raise UsageError(
            f"{args.output} exists; torchbuild does not overwrite files.", fix="choose another --output path."
        )
    intent = intent_from_args(args)  # bad flag values: one line, exit 2, before any probe starts
    start_probes(args)
    from ..actions.build import BuildRequest, prepare

    req = BuildRequest(source=args.source, intent=intent, python=args.python, profile_file=args.profile_file)
    resolved, _, plan = prepare(req, fetch=False)  # plan fetches nothing: a pytorch@<ref> is planned from release data
    from ..ui import console, render_plan

    ahead = resolved.planned

    if args.export:
        text = plan.export(args.export)
        if args.output:
            args.output.write_text(text, encoding="utf-8", newline="")
            console.print(f"wrote {args.output}", markup=False)
        else:
            sys.stdout.write(text)
        return 0
    if args.json:
        doc = plan.to_dict()
        if ahead is not None:
            doc["fetch"] = ahead.to_dict()
        print(json.dumps(doc, indent=2))
        return 0
    render_plan(plan, explain=args.explain)
    if ahead is not None:
        pinned = sum(1 for s in ahead.submodules if s.sha)
        console.print(
            f"not fetched yet: 'torchbuild build {args.source}' will clone {ahead.repo} at {ahead.ref} into "
            f"{ahead.dest} with its submodules ({len(ahead.submodules)} listed for PyTorch {ahead.release}, "
            f"{pinned} with a known commit; --json lists them). Planned from the release data: the tree's own "
            "CMake options are checked when it is fetched.",
            markup=False,
        )
    return 0
