"""``torchbuild package inspect|wheel|libtorch|conda``: official-like artifacts and their inspection.

Exit codes: 0 done; 1 the artifact was made but fails a check (``inspect --strict``: an
absolute RPATH or an unresolved library); 2 bad input (nothing written).  ``--json``
prints the result on stdout; the text for a person goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..ui import console

__all__ = ["register", "render_inspect", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``package`` parser and its subcommands."""
    p = subparsers.add_parser(
        "package",
        help="official-like wheel, libtorch archive, conda recipe; inspect artifacts",
        description="Make official-like artifacts from a built PyTorch tree, or inspect one.",
    )
    sub = p.add_subparsers(dest="package_command", metavar="WHAT")
    sub.required = True
    i = sub.add_parser(
        "inspect", help="RPATHs, needed libraries, glibc/manylinux, CUDA arches, sizes of a wheel, .so or tree"
    )
    i.add_argument(
        "target", metavar="FILE|DIR", help="a .whl, a shared object, or a directory (e.g. site-packages/torch)"
    )
    i.add_argument("--no-arches", action="store_true", help="skip cuobjdump (slow on libraries with much device code)")
    i.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a file has an RPATH/RUNPATH outside $ORIGIN or needs a library found nowhere",
    )
    i.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    for mod in _SUBMODULES:
        mod_register = _load(mod)
        if mod_register is not None:
            mod_register(sub)
    return p


#: Further subcommands, each in its own module with ``register(sub)`` and ``run(args)``.
_SUBMODULES = ("package_wheel", "package_libtorch", "package_conda")


def _load(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(f".{name}", __package__).register
    except ModuleNotFoundError as exc:
        if exc.name == f"{__package__}.{name}":
            return None  # not built yet: absent, never a stub
        raise


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def render_inspect(rep: Any) -> None:
    """Print an :class:`~torchbuild.actions.package.inspect.InspectReport` for a person (stderr)."""
    out = console.print
    out(f"{rep.kind} {rep.target}: {len(rep.files)} ELF file(s), {_mib(rep.total_size)}", markup=False)
    if rep.wheel:
        w = rep.wheel
        out(
            f"  wheel: {w.get('name')} {w.get('version')} (local label: {w.get('local') or 'none'}), "
            f"tags: {', '.join(w.get('tags') or []) or '?'}",
            markup=False,
        )
    for f in rep.files:
        out(f"  {f.path} ({_mib(f.size)})", markup=False)
        if f.rpath:
            out(f"    RPATH   {':'.join(f.rpath)}", markup=False)
        if f.runpath:
            out(f"    RUNPATH {':'.join(f.runpath)}", markup=False)
        if not f.rpath and not f.runpath:
            out("    no RPATH/RUNPATH", markup=False)
        for name, where in f.needed.items():
            out(f"    NEEDED  {name} -> {where or 'not found'}", markup=False)
        if f.versions:
            out("    needs   " + ", ".join(f"{k} {v}" for k, v in f.versions.items()), markup=False)
        if f.cuda.get("sass") or f.cuda.get("ptx"):
            out(
                f"    CUDA    SASS {' '.join(f.cuda['sass']) or '-'}; PTX {' '.join(f.cuda['ptx']) or '-'}",
                markup=False,
            )
    out("summary:", markup=False)
    out("  newest symbol versions: " + (", ".join(f"{k} {v}" for k, v in rep.versions.items()) or "none"), markup=False)
    ml = rep.manylinux
    pol = ml.get("policy")
    out(
        f"  manylinux policy (symbol versions): {pol or 'none fits'}"
        + (f" (alias {', '.join(ml['aliases'])})" if ml.get("aliases") else "")
        + (f"; not older because of {', '.join(ml['blocking'])}" if ml.get("blocking") else "")
        + f"  [{ml.get('source')}]",
        markup=False,
    )
    if ml.get("external"):
        out(f"  libraries neither shipped nor allowed by the policy: {', '.join(ml['external'])}", markup=False)
    out(f"  RPATHs: {'$ORIGIN-relative only' if rep.origin_only else 'ABSOLUTE entries present'}", markup=False)
    for f, entries in rep.absolute_rpaths.items():
        out(f"    {f}: {':'.join(entries)}", markup=False)
    for name, users in rep.unresolved.items():
        out(f"  not found: {name} (needed by {', '.join(users[:3])}{' ...' if len(users) > 3 else ''})", markup=False)
    for name, users in rep.driver_libs.items():
        out(
            f"  driver library {name}: provided by the NVIDIA driver at run time (needed by {len(users)} file(s))",
            markup=False,
        )
    if rep.cuda_sass or rep.cuda_ptx:
        out(f"  CUDA arches: SASS {' '.join(rep.cuda_sass) or '-'}; PTX {' '.join(rep.cuda_ptx) or '-'}", markup=False)
    for note in rep.cuda_notes:
        out(f"  CUDA: {note}", markup=False)
    out("  size by component:", markup=False)
    for comp, size in list(rep.sizes.items())[:12]:
        out(f"    {_mib(size):>12}  {comp}", markup=False)


def run(args: argparse.Namespace) -> int:
    """Dispatch to the subcommand."""
    if args.package_command != "inspect":
        return int(args._package_run(args) or 0)
    from ..actions.package.inspect import inspect_path

    rep = inspect_path(args.target, arches=not args.no_arches)
    if args.json:
        sys.stdout.write(json.dumps(rep.to_dict(), indent=2) + "\n")
    else:
        render_inspect(rep)
    if args.strict and (not rep.origin_only or rep.unresolved):
        console.print(
            "error: --strict: "
            + ("absolute RPATH entries; " if not rep.origin_only else "")
            + ("libraries found nowhere" if rep.unresolved else ""),
            markup=False,
        )
        return 1
    return 0
