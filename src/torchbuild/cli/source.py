"""``torchbuild source check [DIR]`` and ``torchbuild source revert-workarounds [DIR]``.

``check``: is a PyTorch tree complete for its release?  With ``.gitmodules`` every submodule
must be present, not empty and at its recorded commit; without git, every component the
release needs must be in ``third_party/`` (or embedded, as Debian's source package does), or,
with ``--system-libs``, provided by the system in a version that is new enough.  Exit 0 when
complete, 1 when something is missing, 2 on bad input (not a PyTorch tree, a release
torchbuild has no data for, a bad archive).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import NotASourceTreeError, SourceNotFoundError, UsageError

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``source`` command and its ``check`` and ``revert-workarounds`` actions."""
    p = sub.add_parser(
        "source",
        help="check a PyTorch tree's third-party components; undo workarounds",
        description="Check that a PyTorch source tree (or source archive) has every third-party "
        "component its release needs, or undo the workarounds a build applied.",
    )
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    c = acts.add_parser("check", help="is the tree complete for its release? (exit 1 when not)")
    c.add_argument("source", nargs="?", default=".", help="a PyTorch tree or source archive (default: .)")
    c.add_argument(
        "--system-libs",
        action="store_true",
        help="count system copies (Debian packages, headers, PyPI packages) of components the tree lacks",
    )
    c.add_argument("--python", help="the interpreter whose PyPI packages count (default: this one)")
    c.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a USE_* option the build will use (e.g. USE_KINETO=0): its components are then not needed",
    )
    g = c.add_mutually_exclusive_group()
    g.add_argument(
        "--cuda",
        dest="cuda",
        action="store_const",
        const=True,
        default=None,
        help="the build uses CUDA (default: when nvcc is on PATH or CUDA_HOME is set)",
    )
    g.add_argument("--no-cuda", dest="cuda", action="store_const", const=False, help="CPU-only build")
    c.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    r = acts.add_parser("revert-workarounds", help="undo the source changes torchbuild's workarounds made in a tree")
    r.add_argument("source", nargs="?", default=".", help="the tree (default: .)")
    return p


def _tree(spec: str) -> Path:
    from .doctor import unpack_if_archive

    p = Path(spec).expanduser()
    if not p.exists():
        raise SourceNotFoundError(f"SOURCE {spec!r} does not exist.", fix="give a PyTorch tree or source archive.")
    p = unpack_if_archive(p) if p.is_file() else p
    if not p.is_dir():
        raise NotASourceTreeError(
            f"SOURCE {spec!r} is not a folder or source archive.",
            fix="give a PyTorch tree or a .tar.gz/.tar.xz/.zip/.dsc source archive.",
        )
    return p.resolve()


def run(args: argparse.Namespace) -> int:
    """Run the action; see the module docstring for exit codes."""
    if args.action == "revert-workarounds":
        from ..actions.workarounds import revert_workarounds

        ids = revert_workarounds(_tree(args.source))
        print(
            "reverted: " + ", ".join(ids) if ids else "no workarounds recorded in this tree", flush=True
        )  # stdout: the answer
        return 0
    if args.action != "check":
        raise UsageError("source needs an action: check or revert-workarounds.", fix="torchbuild source check DIR")
    return _check(args)


def _check(args: argparse.Namespace) -> int:
    from ..actions.system_probe import add_system_libs
    from ..decisions.components import check_components, known_release
    from ..decisions.settings import parse_sets  # the one --set parser (plan, build, doctor, source check)
    from ..facts.model import Facts
    from ..facts.python import python_info
    from ..facts.source import probe_source
    from ..knowledge.components import component_releases

    options = dict(parse_sets(args.sets))  # bad items are refused before the tree is looked at
    tree = _tree(args.source)
    src = probe_source(tree)
    if src.kind != "pytorch":
        raise NotASourceTreeError(
            f"{tree} is not a PyTorch tree (no version.txt, c10/ and torch/).",
            fix="source check judges PyTorch trees; for an extension use torchbuild doctor.",
        )
    release = known_release(src.version)
    if release is None:
        raise UsageError(
            f"{tree} is PyTorch {src.version}, which is not in torchbuild's component data "
            f"(known: {', '.join(component_releases())}).",
            fix="add the release's rows to knowledge/data/pytorch_components.toml (a source on each).",
        )
    if "USE_CUDA" not in options:
        import shutil

        cuda = bool(shutil.which("nvcc") or os.environ.get("CUDA_HOME")) if args.cuda is None else args.cuda
        options["USE_CUDA"] = "ON" if cuda else "OFF"
    py = python_info(args.python)
    from ..facts.system import os_info

    facts = Facts(os=os_info(), python=py, source=src)
    add_system_libs(facts)
    from ..decisions.workarounds import select_workarounds, worked_around

    sel = select_workarounds(release, src, facts.system_libs, system_libs=args.system_libs, cmake_version=None)
    report = check_components(
        src,
        release,
        system_libs=args.system_libs,
        libs=facts.system_libs,
        options=options,
        python=py.executable or "python",
        is_root=facts.os.root is True,
        worked_around=worked_around(sel),
    )
    if args.json:
        json.dump(report.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _render(report, facts)
    return 0 if report.complete else 1


def _render(report, facts) -> None:  # type: ignore[no-untyped-def]
    from ..ui import console

    console.print(
        f"source check: {report.tree} (PyTorch {report.release}, "
        f"{'git checkout' if report.git else 'no git'}"
        f"{', --system-libs' if report.system_libs else ''})",
        markup=False,
    )
    width = max((len(c.path) for c in report.components), default=10)
    for c in report.components:
        mark = "ok  " if c.ok else "MISS"
        extra = c.provider or c.detail
        if c.detail and c.provider and c.detail not in c.provider:
            extra = f"{c.provider} ({c.detail})"
        console.print(f"  {mark} {c.path:<{width}}  {c.state:<9} {c.feature or '-':<22} {extra}", markup=False)
    miss = report.missing()
    if miss:
        console.print(f"{len(miss)} of {len(report.components)} components missing or unusable.", markup=False)
        for cmd in report.install_commands:
            console.print(f"  install: {cmd}", markup=False)
        if not report.system_libs:
            avail = [c for c in miss if c.system_switch]
            if avail:
                console.print(f"  {len(avail)} have a USE_SYSTEM_* switch: try --system-libs", markup=False)
    else:
        console.print(f"complete: all {len(report.components)} components accounted for.", markup=False)
