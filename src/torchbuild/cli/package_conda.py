"""``torchbuild package conda [TREE]`` (see :mod:`torchbuild.actions.package.conda`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import UsageError
from ..ui import console

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``package conda``."""
    p = sub.add_parser(
        "conda",
        help="rattler-build recipe.yaml (official build string) for the packaged wheel; render and build it",
        description="Write a rattler-build recipe.yaml for the wheel `package wheel` made, with the "
        "official build string (py3.11_cpu_0, py3.8_cuda11.0.221_cudnn8.0.5_0) and the run "
        "requirements; render and build it with py-rattler-build when installed.",
    )
    p.add_argument("tree", nargs="?", default=".", metavar="TREE", help="the built PyTorch tree (default: .)")
    p.add_argument("--wheel", metavar="FILE", help="the wheel (default: newest in TREE/.torchbuild/package)")
    p.add_argument("--output-dir", "-o", metavar="DIR", help="recipe folder (default: TREE/.torchbuild/conda)")
    p.add_argument("--build-number", type=int, default=0, help="conda build number (default 0)")
    p.add_argument("--no-build", action="store_true", help="write and render the recipe only")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(_package_run=run)
    return p


def _versions_from_record(tree: Path) -> tuple[str | None, str | None]:
    """(CUDA full version, cuDNN version) from the newest build record's facts, when its plan had CUDA on."""
    recs = sorted((tree / ".torchbuild" / "records").glob("*.json"), key=lambda p: p.stat().st_mtime)
    for p in reversed(recs):
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        plan = rec.get("plan") or {}
        if not (plan.get("cuda") or {}).get("value"):
            return None, None
        facts = rec.get("facts") or {}
        cuda = (facts.get("cuda") or {}).get("full_version") or (facts.get("cuda") or {}).get("version")
        cudnn = (facts.get("cudnn") or {}).get("version")
        return cuda, cudnn
    return None, None


def run(args: argparse.Namespace) -> int:
    """Write (and render/build) the recipe; exit 0, or 2 on bad input."""
    from ..actions.package.conda import render_and_build, write_recipe

    tree = Path(args.tree).resolve()
    wheel = Path(args.wheel) if args.wheel else None
    if wheel is None:
        cands = sorted((tree / ".torchbuild" / "package").glob("torch-*.whl"), key=lambda p: p.stat().st_mtime)
        if not cands:
            raise UsageError(
                f"no packaged wheel in {tree}/.torchbuild/package.",
                fix=f"run `torchbuild package wheel {args.tree}` first, or give --wheel FILE.",
            )
        wheel = cands[-1]
    cuda, cudnn = _versions_from_record(tree)
    out = Path(args.output_dir) if args.output_dir else tree / ".torchbuild" / "conda"
    res = write_recipe(wheel, out, number=args.build_number, cuda_full=cuda, cudnn=cudnn)
    res = render_and_build(res, build=not args.no_build)
    if args.json:
        sys.stdout.write(json.dumps(res.to_dict(), indent=2, default=str) + "\n")
    say = console.print
    say(f"recipe: {res.recipe}", markup=False)
    say(f"  pytorch {res.version}, build string {res.build_string}", markup=False)
    say(f"  run: {', '.join(res.run)}", markup=False)
    if res.tool:
        say(
            f"  rendered by {res.tool}" + ("" if args.no_build else f"; built: {', '.join(res.packages) or 'nothing'}"),
            markup=False,
        )
        if not args.no_build:
            say(
                "  the package's tests (import torch) were not run: they need a conda channel to solve python.",
                markup=False,
            )
    if res.reason:
        say(f"  note: {res.reason}", markup=False)
    return 0
