"""``torchbuild package wheel [TREE]`` (see :mod:`torchbuild.actions.package.wheel`)."""

from __future__ import annotations

import argparse
import json
import sys

from ..ui import console

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``package wheel``."""
    p = sub.add_parser(
        "wheel",
        help="official-like wheel from a built PyTorch tree: $ORIGIN RPATHs, tags, +cpu/+cuXYZ, manifest",
        description="Repack the wheel a PyTorch tree's build made (or its develop install) as an "
        "official-like wheel: $ORIGIN-relative RPATHs only (patchelf), manylinux tag when the "
        "files fit one, local version label of the variant, manifest and build record.",
    )
    p.add_argument("tree", nargs="?", default=".", metavar="TREE", help="the built PyTorch tree (default: .)")
    p.add_argument(
        "--wheel", metavar="FILE", help="the input wheel (default: newest in TREE/.torchbuild/dist or TREE/dist)"
    )
    p.add_argument("--output-dir", "-o", metavar="DIR", help="where the wheel goes (default: TREE/.torchbuild/package)")
    p.add_argument(
        "--local-version", metavar="LABEL", help="local version label (default: cpu or cuXYZ from torch/version.py)"
    )
    p.add_argument("--plat", metavar="TAG", help="force the platform tag (e.g. manylinux_2_28_x86_64)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(_package_run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Make the wheel; exit 0, 1 when it fails the official-like checks, 2 on bad input."""
    from ..actions.package.wheel import package_wheel

    res = package_wheel(
        args.tree, wheel=args.wheel, output_dir=args.output_dir, label=args.local_version, plat=args.plat
    )
    if args.json:
        sys.stdout.write(json.dumps(res.to_dict(), indent=2) + "\n")
    out = console.print
    out(f"wheel: {res.wheel}", markup=False)
    out(f"  from {res.input}", markup=False)
    out(f"  version {res.version}; tag {res.tag}: {res.tag_reason}", markup=False)
    changed = [c for c in res.rpath_changes if c["before"] != c["after"]]
    out(
        f"  RPATHs: {len(changed)} of {len(res.rpath_changes)} compiled file(s) rewritten to $ORIGIN-relative entries",
        markup=False,
    )
    for c in changed[:20]:
        out(f"    {c['path']}: {':'.join(c['before']) or '(none)'} -> {':'.join(c['after'])}", markup=False)
    out(f"  manifest: {res.manifest}", markup=False)
    for n in res.notes:
        out(f"  note: {n}", markup=False)
    for p in res.problems:
        out(f"  problem: {p}", markup=False)
    return 0 if res.ok else 1
