"""Command-line interface: ``torchbuild <command> ...``.

Each command lives in its own module in this package with two functions:

* ``register(subparsers) -> argparse.ArgumentParser`` adds the command's parser;
* ``run(args: argparse.Namespace) -> int`` does the work and returns the exit code.

A command that is not built yet is absent (never a stub).  The single
error handler here turns :class:`torchbuild.errors.TorchbuildError` into
``error: <message>`` on stderr and its exit code; a traceback is printed only with
``TORCHBUILD_TRACEBACK=1``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import NoReturn

from .. import __version__
from ..errors import TorchbuildError

__all__ = ["main", "build_parser", "COMMANDS"]

#: Command modules, in the order ``--help`` lists them.
COMMANDS: list[str] = [
    "doctor",
    "plan",
    "build",
    "verify",
    "diagnose",
    "cache",
    "source",
    "package",
    "replicate",
]


class _Parser(argparse.ArgumentParser):
    """argparse with exit code 2 and a one-line message naming the fix."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command whose module exists, or only command ``only`` (start-up
    imports just the module of the command being run)."""
    parser = _Parser(
        prog="torchbuild",
        description="Build PyTorch and its C++/CUDA extensions from source, correctly the first time.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"torchbuild {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # command not built yet: absent, never a stub
            raise
        p = module.register(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``torchbuild`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    only = first if first in COMMANDS and not any(a in ("-h", "--help") for a in argv[: argv.index(first)]) else None
    parser = build_parser(only)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        from ..decisions.settings import read_env

        read_env(os.environ)  # the variables torchbuild reads for itself: a bad value is exit 2 before any work
        return int(args._run(args) or 0)
    except TorchbuildError as exc:
        if os.environ.get("TORCHBUILD_TRACEBACK") == "1":
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
