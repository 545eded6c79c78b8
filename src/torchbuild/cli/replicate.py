"""``torchbuild replicate [--from-installed | --from-config FILE]``: a profile that rebuilds a torch.

Reads ``torch.__config__.show()`` of an installed torch (``--from-installed``, in a clean
subprocess of ``--python``) or a saved copy (``--from-config FILE``; a Python repr such as
``'PyTorch built with:\\n  - GCC 9.3\\n ...'`` as ``torch._C._show_config()`` prints it in a
REPL is accepted too), and writes ``[profile."NAME"]`` into ``torchbuild.toml`` (``--output``;
appended when the file exists, refused when it already has that profile).  What this
machine cannot reproduce is printed as doctor findings; they do not change the exit code.

Exit codes: 0 written (or printed with ``--dry-run``/``--json``); 2 bad input (unreadable
or malformed text, no torch in ``--python``, a profile of that name already in the file).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from ..errors import ProfileError, UsageError
from ..ui import console, echo_command, render_findings

__all__ = ["installed_config_text", "read_config_text", "register", "run"]

_SHOW = "import torch, sys; sys.stdout.write(torch.__config__.show())"


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``replicate`` parser."""
    p = subparsers.add_parser(
        "replicate",
        help="turn an installed torch's configuration into a profile that rebuilds it",
        description="Read torch.__config__.show() (live or saved, PyTorch 1.8 and later) and write "
        "a torchbuild.toml profile that rebuilds that configuration from source.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--from-installed", action="store_true", help="ask the torch installed in --python (default)")
    src.add_argument("--from-config", metavar="FILE", type=Path, help="a saved torch.__config__.show() text")
    p.add_argument("--python", default=sys.executable, help="interpreter whose torch to read (default: this one)")
    p.add_argument("--name", help="profile name (default replica-<version>-<cpu|cuXY>)")
    p.add_argument(
        "--output",
        "-o",
        type=Path,
        default=Path("torchbuild.toml"),
        help="the torchbuild.toml to write or append to (default: ./torchbuild.toml)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the profile; write nothing")
    p.add_argument("--json", action="store_true", help="the replica (profile, derivations, findings) as JSON on stdout")
    return p


def read_config_text(path: Path) -> str:
    """The ``torch.__config__.show()`` text in ``path``: plain, or a quoted Python string
    (``'PyTorch built with:\\n ...'``) as a REPL shows ``torch._C._show_config()``.

    :raises UsageError: the file cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"--from-config {path}: cannot read it ({getattr(exc, 'strerror', None) or exc}).",
            fix="give a text file holding torch.__config__.show() output.",
        ) from exc
    stripped = text.strip()
    start = min(
        (i for i in (stripped.find("'PyTorch built with:"), stripped.find('"PyTorch built with:')) if i >= 0),
        default=-1,
    )
    if start >= 0 and "PyTorch built with:\n" not in stripped:
        quote = stripped[start]
        end = stripped.rfind(quote)
        try:
            value = ast.literal_eval(stripped[start : end + 1])
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, str):
            return value
    i = text.find("PyTorch built with:")
    return text[i:] if i >= 0 else text


def installed_config_text(python: str) -> str:
    """``torch.__config__.show()`` of the torch in ``python`` (a clean subprocess, run from
    a neutral folder so a source tree in the current folder is not imported).

    :raises UsageError: the interpreter cannot run or has no importable torch.
    """
    argv = [python, "-c", _SHOW]
    echo_command(argv)
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=os.path.expanduser("~") or "/",
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )
    except OSError as exc:
        raise UsageError(
            f"--python {python}: cannot run it ({exc.strerror or exc}).", fix="give a Python interpreter."
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise UsageError(f"--python {python}: importing torch took over 300 s.") from exc
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise UsageError(
            f"--python {python}: cannot import torch ({last}).",
            fix="install torch in that interpreter, or use --from-config FILE.",
        )
    return proc.stdout


def _machine() -> dict:
    from ..facts import collect
    from ..facts.blas import find_mkl, find_openblas

    facts = collect()
    cxx = facts.cxx
    compiler = (cxx.kind, cxx.version) if cxx and getattr(cxx, "kind", None) and cxx.version else None
    return {
        "cuda_version": facts.cuda.version if facts.cuda and facts.cuda.nvcc else None,
        "cudnn_version": facts.cudnn.version if facts.cudnn else None,
        "compiler": compiler,
        "mkl": find_mkl() is not None,
        "openblas": find_openblas() is not None,
    }


def run(args: argparse.Namespace) -> int:
    """Write (or print) the profile; exit 0, or 2 on bad input."""
    from ..decisions.replicate import profile_toml, replicate
    from ..decisions.torch_config import parse_torch_config

    if args.from_config is not None:
        text = read_config_text(args.from_config)
        origin = f"from {args.from_config}"
    else:
        text = installed_config_text(args.python)
        origin = f"from torch.__config__.show() of {args.python}"
    try:
        cfg = parse_torch_config(text)
    except ValueError as exc:
        raise UsageError(f"{origin}: {exc}.", fix="give the whole output of torch.__config__.show().") from exc
    rep = replicate(cfg, name=args.name, **_machine())
    section = profile_toml(rep, origin=origin)
    if args.json:
        sys.stdout.write(
            json.dumps(
                {**rep.to_dict(), "toml": section, "output": None if args.dry_run else str(args.output)}, indent=2
            )
            + "\n"
        )
    if not args.dry_run:
        _write(args.output, rep.name, section)
        console.print(f"wrote profile {rep.name!r} to {args.output}", markup=False)
    elif not args.json:
        sys.stdout.write(section)
    for k, why in rep.derived.items():
        console.print(f"  {k}: {why}", markup=False)
    render_findings(rep.findings, title="replicate: what this machine cannot reproduce")
    if rep.source:
        console.print(
            f"build it: torchbuild build {rep.source} --profile {rep.name} --profile-file {args.output}", markup=False
        )
    return 0


def _write(path: Path, name: str, section: str) -> None:
    """Append ``section`` to ``path`` (created when missing).

    :raises ProfileError: the file is not valid TOML or already defines profile ``name``.
    """
    from ..facts.user_config import read_user_profiles

    if path.exists():
        existing = read_user_profiles(explicit=path)
        if name in existing:
            raise ProfileError(
                f"{path} already has a profile {name!r}; nothing written.",
                fix="choose another --name, or remove that profile from the file.",
            )
        old = path.read_text(encoding="utf-8")
        path.write_text(old + ("" if old.endswith("\n") or not old else "\n") + "\n" + section, encoding="utf-8")
    else:
        path.write_text(section, encoding="utf-8")
