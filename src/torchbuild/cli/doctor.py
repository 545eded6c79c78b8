"""``torchbuild doctor [SOURCE]``: probe the machine, judge it, print findings with fixes.

Exit 0 when there is no error finding, 1 when there is one, 2 on bad input (missing
SOURCE, unreadable ``--facts``, bad ``--assume``; nothing is written then).  Human output
goes to stderr; ``--json`` prints ``{"facts": ..., "findings": [{"check", "severity",
"message", "fix"}, ...]}`` to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import FactsFileError, NotASourceTreeError, SourceNotFoundError, UsageError

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``doctor`` parser."""
    p = subparsers.add_parser(
        "doctor",
        help="check this machine (and SOURCE) for a build; findings with fixes",
        description="Probe OS, Python, compilers, CMake, Ninja, CUDA, driver, GPUs, memory and disk, and judge "
        "them against what SOURCE (or --target VERSION) needs. Exit 1 on any error.",
    )
    p.add_argument("source", nargs="?", metavar="SOURCE", help="PyTorch tree or extension package folder")
    p.add_argument("--json", action="store_true", help="facts and findings as JSON on stdout")
    p.add_argument(
        "--system-libs",
        action="store_true",
        help="judge a PyTorch tree as built with --system-libs (system copies of missing components)",
    )
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a USE_* option the build will use (USE_DISTRIBUTED=0 ...): which components it needs",
    )
    p.add_argument("--save-facts", metavar="F", help="write the (probed or loaded, then assumed) facts to F")
    p.add_argument("--facts", metavar="F", help="judge facts recorded in F instead of probing this machine")
    p.add_argument(
        "--assume",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override one fact (cuda=11.8, gcc=12.2, clang=17, driver=535.54.03, gpu='RTX 4090', "
        "python=3.12, cmake=3.22, torch=2.4, cores=16, memory=64, disk=100); repeatable",
    )
    p.add_argument("--target", metavar="VER", help="PyTorch version a source build targets (e.g. 2.4)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cuda", dest="cuda", action="store_true", default=None, help="the build must use CUDA")
    g.add_argument("--no-cuda", dest="cuda", action="store_false", help="CPU-only build")
    p.add_argument("--arch", metavar="LIST", help="CUDA arch list, e.g. '8.0;9.0' or 8.9")
    p.add_argument("--python", metavar="PY", help="the interpreter the build will use (default: this one)")
    p.add_argument(
        "--mode",
        "--build",  # its old name, kept working
        dest="mode",
        default="develop",
        metavar="{develop,wheel,install,libtorch}",  # checked by the settings model in run()
        help="the build mode judged, as build --mode (changes the disk estimate)",
    )
    return p


def _target(value: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        Version(value)
    except InvalidVersion as exc:
        raise UsageError(f"--target {value!r}: not a version (expected e.g. 2.4).") from exc
    return value


def unpack_if_archive(path: Path) -> Path:
    """A source archive's unpacked tree (unpacked now, or reused from an earlier run); any other
    path as it is.  :raises BadArchiveError: a truncated or foreign archive (exit 2, nothing written)."""
    from ..actions.unpack import is_archive, unpack_source
    from ..facts._util import cache_dir
    from ..knowledge import compat

    if not is_archive(path):
        return path
    return unpack_source(path, cache=cache_dir(), known_releases=compat.known_releases())


def load_facts(args: argparse.Namespace):
    """The facts the command judges: ``--facts F`` or a fresh probe, then ``--target`` and
    ``--assume``.  :raises UsageError: bad input (nothing written)."""
    from ..decisions.assume import apply_assumptions
    from ..facts import collect
    from ..facts.model import Facts
    from ..facts.python import PythonProbeError

    source = None
    if args.source:
        source = Path(args.source)
        if not source.exists():
            raise SourceNotFoundError(
                f"SOURCE {args.source!r} does not exist.",
                fix="give the folder of a PyTorch checkout or an extension package.",
            )
        if source.is_file():
            source = unpack_if_archive(source)
        if not source.is_dir():
            raise NotASourceTreeError(
                f"SOURCE {args.source!r} is not a folder.",
                fix="give a source folder or a source archive (.tar.gz, .tar.xz, .zip, .dsc).",
            )
    target = _target(args.target) if args.target else None
    if args.facts:
        try:
            facts = Facts.load(args.facts)
        except OSError as exc:
            raise FactsFileError(f"--facts {args.facts}: cannot read it ({exc.strerror or exc}).") from exc
        except ValueError as exc:
            raise FactsFileError(f"--facts {args.facts}: not a torchbuild facts file ({exc}).") from exc
        facts.origin = f"file:{args.facts}"
        if source is not None:
            from ..facts.source import probe_source

            facts.source = probe_source(source)
    else:
        try:
            facts = collect(source, python=args.python)
        except PythonProbeError as exc:
            raise UsageError(f"--python {args.python}: {exc}", fix=exc.fix) from exc
    if source is not None and facts.source is not None and facts.source.kind == "unknown":
        raise NotASourceTreeError(
            f"SOURCE {args.source!r} is neither a PyTorch tree (version.txt, c10/, torch/) nor an extension "
            "(setup.py using torch.utils.cpp_extension, or CMakeLists.txt with find_package(Torch)).",
            fix="give the top folder of the tree.",
        )
    if target:
        facts.target = target
    if args.assume:
        facts = apply_assumptions(facts, args.assume)
    if getattr(args, "system_libs", False) and not args.facts:
        from ..actions.system_probe import add_system_libs

        add_system_libs(facts)
    return facts


def run(args: argparse.Namespace) -> int:
    """Run doctor; returns 1 when a finding is an error, else 0."""
    from ..decisions.doctor import check
    from ..decisions.settings import flag_value, parse_sets  # the one --set parser (plan, build, doctor, source)

    build = flag_value("--mode", args.mode)
    options = dict(parse_sets(getattr(args, "sets", []) or []))  # bad values refused before probing
    facts = load_facts(args)
    arches = None
    if args.arch:
        from ..decisions.plan import parse_arch_list  # the one arch-list parser (plan, doctor, build)

        arches = parse_arch_list(args.arch)
    findings = check(
        facts,
        wants_cuda=args.cuda,
        arch_list=arches,
        build=build,
        system_libs=getattr(args, "system_libs", False),
        options=options or None,
    )
    if args.save_facts:
        try:
            Path(args.save_facts).write_text(facts.to_json() + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--save-facts {args.save_facts}: cannot write it ({exc.strerror or exc}).") from exc
    if args.json:
        json.dump({"facts": facts.to_dict(), "findings": [f.to_dict() for f in findings]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        render(facts, findings)
    return 1 if any(f.severity == "error" for f in findings) else 0


def summary_rows(facts) -> list[tuple[str, str]]:
    """(label, value) pairs of the short fact table doctor prints."""

    def comp(c):
        return (
            "not found"
            if c is None or c.path is None and c.version is None
            else f"{c.kind} {c.version or '?'} ({c.path or '?'}" + (f", {c.from_env}" if c.from_env else "") + ")"
        )

    def tool(n):
        t = facts.tools.get(n)
        return f"{t.version or '?'} ({t.path})" if t is not None and t.path else "not found"

    r = facts.resources
    os_ = facts.os
    rows = [
        ("os", f"{os_.distro or os_.system} {os_.machine}" + (f", {os_.libc} {os_.libc_version}" if os_.libc else "")),
        (
            "python",
            f"{facts.python.version} ({facts.python.executable})"
            + (" venv" if facts.python.is_venv else "")
            + (" conda" if facts.python.is_conda else ""),
        ),
        ("c++ compiler", comp(facts.cxx)),
    ]
    if facts.cuda_host is not None:
        rows.append(("nvcc host", comp(facts.cuda_host)))
    rows += [
        ("cmake", tool("cmake")),
        ("ninja", tool("ninja")),
        (
            "cache",
            ", ".join(
                f"{n} {facts.tools[n].version}"
                for n in ("ccache", "sccache")
                if facts.tools.get(n) and facts.tools[n].path
            )
            or "none",
        ),
    ]
    tk = facts.cuda
    rows.append(
        (
            "cuda",
            "not found"
            if tk is None
            else f"{tk.version or '?'} ({tk.home}, found by {tk.found_by}"
            + (f", nvcc {tk.full_version}" if tk.full_version else "")
            + ")",
        )
    )
    if facts.cudnn:
        rows.append(("cudnn", f"{facts.cudnn.version} ({facts.cudnn.include_dir})"))
    d = facts.driver
    rows.append(
        (
            "driver",
            "none"
            if d is None
            else f"{d.version}" + (f" (CUDA {d.cuda_version})" if d.cuda_version else "") + f" via {d.found_by}",
        )
    )
    rows.append(
        (
            "gpus",
            ", ".join(
                f"{g.name} (compute capability {g.compute_capability or '?'}"
                + (f", {g.memory_mib} MiB" if g.memory_mib else "")
                + ")"
                for g in facts.gpus
            )
            or "none",
        )
    )
    rows.append(
        (
            "cpu / memory",
            f"{r.cpu_count} cores, {r.memory_available_bytes / 2**30:.1f} of "
            f"{r.memory_total_bytes / 2**30:.1f} GiB available",
        )
    )
    if r.disk_free_bytes is not None:
        rows.append(("disk", f"{r.disk_free_bytes / 2**30:.1f} GiB free at {r.disk_path}"))
    t = facts.torch
    rows.append(
        (
            "torch",
            "not installed"
            if t is None
            else f"{t.version} (CUDA {t.cuda or 'none'}, "
            + ("cxx11 ABI" if t.cxx11_abi else "old ABI" if t.cxx11_abi is False else "ABI ?")
            + f", {t.location})",
        )
    )
    s = facts.source
    if s is not None:
        missing = sum(1 for m in s.submodules if not m.present)
        rows.append(
            (
                "source",
                f"{s.kind} {s.name or '?'} {s.version or ''} ({s.path}; {s.backend or '?'} front end"
                + (f"; {len(s.submodules) - missing}/{len(s.submodules)} submodules" if s.submodules else "")
                + ")",
            )
        )
    if facts.target:
        rows.append(("target", f"PyTorch {facts.target}"))
    if facts.assumed:
        rows.append(("assumed", ", ".join(facts.assumed)))
    rows.append(
        ("facts", f"{facts.origin}" + (f", probed in {facts.probe_seconds:.2f} s" if facts.origin == "probed" else ""))
    )
    return rows


def render(facts, findings) -> None:
    """Human output on stderr: the fact table, then findings grouped by severity."""
    from ..ui import console, render_findings

    for label, value in summary_rows(facts):
        console.print(f"  {label:<13} {value}", markup=False)
    console.print("")
    render_findings(findings, title="doctor")
