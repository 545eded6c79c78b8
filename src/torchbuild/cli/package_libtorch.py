"""``torchbuild package libtorch [TREE]`` (see :mod:`torchbuild.actions.package.libtorch`)."""

from __future__ import annotations

import argparse
import json
import sys

from ..ui import console

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``package libtorch``."""
    p = sub.add_parser(
        "libtorch",
        help="C++ distribution zip laid out like the official libtorch",
        description="Pack the built tree's libraries, headers and CMake files as libtorch/{lib,include,"
        "share,bin,build-version,build-hash} in libtorch-<abi>shared-with-deps-<version>.zip, "
        "with $ORIGIN RPATHs. Check it with: torchbuild verify --libtorch ZIP",
    )
    p.add_argument("tree", nargs="?", default=None, metavar="TREE", help="the built PyTorch tree (default: .)")
    p.add_argument(
        "--from", dest="from_dir", metavar="DIR", help="a torch package folder instead (e.g. site-packages/torch)"
    )
    p.add_argument("--output-dir", "-o", metavar="DIR", help="where the zip goes (default: TREE/.torchbuild/package)")
    p.add_argument("--local-version", metavar="LABEL", help="local version label (default: cpu or cuXYZ)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.set_defaults(_package_run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Make the zip; exit 0, or 2 on bad input."""
    from ..actions.package.libtorch import package_libtorch

    tree = args.tree if args.tree is not None else (None if args.from_dir else ".")
    res = package_libtorch(tree, from_dir=args.from_dir, output_dir=args.output_dir, label=args.local_version)
    if args.json:
        sys.stdout.write(json.dumps(res.to_dict(), indent=2) + "\n")
    out = console.print
    out(f"libtorch: {res.zip}", markup=False)
    out(
        f"  from {res.source}; version {res.version}; C++11 ABI: {res.cxx11_abi}; build-hash {res.build_hash}",
        markup=False,
    )
    changed = sum(1 for c in res.rpath_changes if c["before"] != c["after"])
    out(f"  RPATHs: {changed} of {len(res.rpath_changes)} compiled file(s) rewritten to $ORIGIN", markup=False)
    for x in res.left_out:
        out(f"  left out: {x} (Python only)", markup=False)
    for n in res.notes:
        out(f"  note: {n}", markup=False)
    out(f"  check it: torchbuild verify --libtorch {res.zip}", markup=False)
    return 0
