"""``torchbuild verify``: check an installed torch (and an extension) in a clean subprocess.

Exit codes: 0 all checks passed, 1 a check failed, 2 bad input (no such Python, a
malformed ``--expect-*`` value).  People read stderr; ``--json`` writes
``{"ok": bool, "reports": [VerifyReport.to_json_dict(), ...]}`` to stdout.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ..actions.verify import Expectations, verify_extension, verify_torch
from ..errors import UsageError
from ..ui import render_verify

__all__ = ["register", "run", "parse_expect_cuda", "print_report"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``verify`` parser."""
    p = subparsers.add_parser(
        "verify",
        help="check an installed torch (and an extension) in a clean subprocess",
        description=(
            "Import torch in a clean subprocess outside any source tree and check it: version, CUDA and C++ ABI "
            "against what you expect, torch.__config__.show(), a small tensor op, and `ldd` of its compiled "
            "modules. With --extension, also the extension: import, `ldd`, the same libtorch as torch, CUDA, ABI."
        ),
    )
    p.add_argument("--python", default=sys.executable, help="the interpreter whose torch to check (default: this one)")
    p.add_argument("--extension", metavar="MODULE", help="also check this extension module (e.g. torch_scatter)")
    p.add_argument("--smoke", metavar="CODE", help="Python code run after importing the extension; fails by raising")
    p.add_argument("--expect-cuda", metavar="X.Y|cpu", help="CUDA version torch must be built with, or 'cpu'")
    p.add_argument("--expect-version", metavar="VERSION", help="torch version (public part unless it has a '+')")
    p.add_argument("--expect-arch", metavar="LIST", help="arches that must be compiled in, e.g. '8.6;9.0+PTX'")
    p.add_argument("--expect-build-type", metavar="TYPE", help="Release, Debug or RelWithDebInfo")
    p.add_argument("--expect-cxx11-abi", choices=["0", "1"], help="torch._C._GLIBCXX_USE_CXX11_ABI")
    p.add_argument(
        "--record",
        metavar="FILE",
        type=Path,
        help="a build record (.torchbuild/records/*.json): expect what its plan built (version, CPU/CUDA, "
        "build type, arch list, the USE_* options it set); --expect-* flags still win",
    )
    p.add_argument(
        "--libtorch",
        metavar="DIR|ZIP",
        help="instead: build and run a small CMake program (find_package(Torch)) against this libtorch",
    )
    p.add_argument("--keep", action="store_true", help="with --libtorch: keep the project and build folder")
    p.add_argument(
        "--torch-only",
        action="store_true",
        help="check torch alone (default without --extension: also every installed distribution whose "
        "compiled modules link libtorch)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    return p


def parse_expect_cuda(value: str | None) -> str | None:
    """``"13.0"`` -> ``"13.0"``; ``"cpu"``/``"none"``/``""`` -> ``""`` (CPU-only); None -> None.

    :raises UsageError: anything else.
    """
    if value is None:
        return None
    v = value.strip().lower()
    if v in ("", "cpu", "none"):
        return ""
    if v.startswith("cu") and v[2:].isdigit() and len(v) >= 5:  # cu130 -> 13.0
        v = f"{v[2:-1]}.{v[-1]}"
    if not re.fullmatch(r"\d+\.\d+", v):
        raise UsageError(f"--expect-cuda {value!r} is not a CUDA version.", fix="use X.Y (e.g. 13.0) or 'cpu'.")
    return v


def _expectations(args: argparse.Namespace) -> Expectations | None:
    arch = None
    if args.expect_arch:
        arch = [a for a in re.split(r"[;\s]+", args.expect_arch.strip()) if a]
        for a in arch:
            if not re.fullmatch(r"\d+\.\d+[af]?(\+PTX)?", a):
                raise UsageError(f"--expect-arch entry {a!r} is not an arch.", fix="use entries like 8.6 or 9.0+PTX.")
    expect = Expectations(
        version=args.expect_version,
        cuda=parse_expect_cuda(args.expect_cuda),
        cxx11_abi=None if args.expect_cxx11_abi is None else args.expect_cxx11_abi == "1",
        arch_list=arch,
        build_type=args.expect_build_type,
    )
    if getattr(args, "record", None):
        _from_record(expect, args.record)
    return expect


def _from_record(expect: Expectations, path: Path) -> None:
    """Fill what ``--expect-*`` left open from a build record's plan.

    :raises UsageError: unreadable or not a torchbuild build record (exit 2)."""
    from ..decisions.cmake_cond import cmake_bool

    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        plan = rec["plan"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(
            f"--record {path}: not a readable torchbuild build record ({exc}).",
            fix="give a file from <tree>/.torchbuild/records/.",
        ) from None
    if plan.get("kind") != "pytorch":
        raise UsageError(f"--record {path}: the record is of an extension build; verify --record checks a torch build.")
    if expect.build_type is None:
        expect.build_type = plan["build_type"]["value"]
    if expect.cuda is None:
        expect.cuda = "" if not plan["cuda"]["value"] else None
    if expect.arch_list is None and plan["cuda"]["value"]:
        expect.arch_list = plan["arch_list"]["value"]
    if expect.version is None:
        version = ((rec.get("facts") or {}).get("source") or {}).get("version")
        expect.version = version.split("+")[0] if version else None
    opts = {k: cmake_bool(str(v["value"])) for k, v in (plan.get("env") or {}).items() if k.startswith("USE_")}
    expect.options = {k: bool(v) for k, v in opts.items() if v is not None and not k.startswith("USE_SYSTEM_")}


print_report = render_verify  # one renderer for verify and build


def run(args: argparse.Namespace) -> int:
    """Run the checks; return 0 (all passed) or 1 (a check failed).

    :raises UsageError: bad ``--python``/``--expect-*``/``--extension`` (exit 2).
    """
    if args.libtorch:
        from .verify_libtorch import run_libtorch

        return run_libtorch(args)
    expect = _expectations(args)
    if args.smoke and not args.extension:
        raise UsageError("--smoke needs --extension.", fix="add --extension MODULE.")
    reports = [verify_torch(args.python, expect)]
    if args.extension:
        reports.append(verify_extension(args.python, args.extension, expect=expect, smoke=args.smoke))
    elif not args.torch_only:
        from ..actions.verify_installed import find_torch_extensions

        for ext in find_torch_extensions(reports[0].python):
            reports.append(verify_extension(args.python, ext.module, expect=expect, installed=ext.info()))
    ok = all(r.ok for r in reports)
    if args.json:
        sys.stdout.write(json.dumps({"ok": ok, "reports": [r.to_json_dict() for r in reports]}, indent=2) + "\n")
    else:
        for r in reports:
            print_report(r)
    return 0 if ok else 1
