"""``torchbuild build [SOURCE]``: doctor, plan, run, verify, record — the main job."""

from __future__ import annotations

import argparse
import json

from ..errors import TorchbuildError
from ._common import add_plan_options, intent_from_args, start_probes

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``build`` command."""
    p = sub.add_parser(
        "build",
        help="check the machine, plan, build, verify and record",
        description="Build SOURCE: doctor first (errors stop the build unless --force), then the plan, "
        "the build with live progress and a full log under <tree>/.torchbuild/logs/, a "
        "diagnosis on failure, verification and a build record on success.",
    )
    add_plan_options(p)
    p.add_argument("--force", action="store_true", help="build even when doctor reports errors")
    p.add_argument("--no-verify", action="store_true", help="skip verification after the build")
    p.add_argument(
        "--no-deps",
        action="store_true",
        help="install an extension wheel alone, without its own runtime requirements (by default they are "
        "installed with the built-against torch pinned by a pip constraint)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    """Build; exit 0 on success, 1 on a failed doctor/build/verify, 2 on bad input, 3 on fetch failure."""
    intent = intent_from_args(args)  # bad flag values: one line, exit 2, before any probe starts
    start_probes(args)
    from ..actions.build import BuildRequest, BuildResult, build

    req = BuildRequest(
        source=args.source,
        intent=intent,
        python=args.python,
        force=args.force,
        verify=not args.no_verify,
        profile_file=args.profile_file,
        deps=not args.no_deps,
    )
    if not args.json:
        build(req)
        return 0
    try:
        result = build(req)
    except TorchbuildError as exc:
        failed = exc.result if isinstance(exc.result, BuildResult) else None
        doc = (
            failed.to_json_dict()
            if failed is not None
            else {
                "status": "failed",
                "source": args.source,
                "plan": None,
                "wheel": None,
                "record": None,
                "log": None,
                "seconds": None,
            }
        )
        doc.update({"error": str(exc), "exit_code": exc.exit_code})
        print(json.dumps(doc, indent=2))
        raise
    print(json.dumps(result.to_json_dict(), indent=2))
    return 0
