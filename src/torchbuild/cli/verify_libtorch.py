"""``torchbuild verify --libtorch DIR|ZIP``: the C++ side of ``verify`` (see
:mod:`torchbuild.actions.verify_libtorch`).  Exit 0 when the program built, ran and printed
the right sum; 1 otherwise, with the cause; 2 bad input."""

from __future__ import annotations

import argparse
import json
import sys

from ..ui import console

__all__ = ["run_libtorch"]


def run_libtorch(args: argparse.Namespace) -> int:
    """Run :func:`~torchbuild.actions.verify_libtorch.verify_libtorch` for ``args.libtorch``."""
    from ..actions.verify_libtorch import verify_libtorch

    rep = verify_libtorch(args.libtorch, keep=args.keep)
    if args.json:
        sys.stdout.write(json.dumps(rep.to_dict(), indent=2) + "\n")
    out = console.print
    out(f"libtorch {rep.target}: root {rep.root or 'not found (no share/cmake/Torch/TorchConfig.cmake)'}", markup=False)
    for s in rep.steps:
        out(f"  {s['step']:<9} exit {s['rc']}  {s['seconds']:.1f} s  (log {s['log']})", markup=False)
    if rep.ok:
        out(
            f"ok: find_package(Torch) + Ninja build + run; libtorch {rep.version}, "
            f"CUDA available: {'yes' if rep.cuda_available else 'no'}",
            markup=False,
        )
        for line in rep.output.splitlines():
            if line.startswith("TORCHBUILD sum"):
                out(f"  {line}", markup=False)
        return 0
    out(f"FAILED [{rep.cause}] {rep.explanation}", markup=False)
    for e in rep.evidence:
        out(f"  > {e}", markup=False)
    if rep.fix:
        out(f"  fix: {rep.fix}", markup=False)
    if rep.workdir:
        out(f"  project kept in {rep.workdir}", markup=False)
    return 1
