"""``torchbuild diagnose LOG [--json] [--all]``: name the root cause of a failed build.

Exit codes: 0 when a diagnosis was produced (even ``unknown``); 2 when LOG cannot
be read (missing, a directory, unreadable, binary).  ``--json`` prints the document
described in ``docs/diagnose-json.md`` on stdout; the screen for a person goes to
stderr.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``diagnose`` parser."""
    p = subparsers.add_parser(
        "diagnose",
        help="name the root cause of a failed build from its log",
        description="Find the first real failure in a build log (setup.py, pip, CMake, ninja, make, "
        "nvcc, MSVC, Python tracebacks) and name its cause, with the evidence and the fix.",
    )
    p.add_argument("log", metavar="LOG", help="the log file (plain or .gz/.xz/.bz2/.zst), or - for standard input")
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON on stdout")
    p.add_argument(
        "--all", dest="all_failures", action="store_true", help="list every distinct failure, not only the root"
    )
    p.add_argument(
        "--explain-miss",
        action="store_true",
        help="for a log diagnosed unknown: the first error, the failing step, the closest signatures with "
        "why each did not fit, and a draft signature to add (docs/diagnose-signatures.md)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    """Diagnose ``args.log``; raises :class:`torchbuild.facts.logfile.LogFileError` (exit 2) on bad input."""
    from ..decisions.diagnose_triggers import TRIGGERS
    from ..facts.logfile import FULL_SCAN_BYTES, open_log

    # a large plain log is searched by grep while the diagnosis code below is imported
    reader = open_log(args.log)
    reader.prefetch(TRIGGERS, min_bytes=FULL_SCAN_BYTES)
    # imported here: `torchbuild COMMAND` builds every command's parser, and the
    # diagnosis code is only needed when this command runs
    from ..actions.diagnose_log import diagnose_file, render

    diag = diagnose_file(args.log, all_failures=args.all_failures, reader=reader)
    if getattr(args, "explain_miss", False):
        return _explain(diag, args)
    if args.json:
        import json

        text = json.dumps(diag.to_json_dict(), indent=2, ensure_ascii=False) + "\n"
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `| head`: the reader left; not an error of ours
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    else:
        render(diag, name=args.log)
    return 0


def _explain(diag, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """Print :func:`~torchbuild.decisions.diagnose_explain.explain_miss` (JSON with --json)."""
    import json

    from ..decisions.diagnose_explain import SIGNATURES_DIR, explain_miss

    ex = explain_miss(diag)
    if args.json:
        sys.stdout.write(json.dumps(ex.to_json_dict(), indent=2, ensure_ascii=False) + "\n")
        return 0
    out = sys.stdout
    if ex.diagnosed != "unknown":
        out.write(f"{args.log}: diagnosed as {ex.diagnosed} (signature {diag.root.signature}); nothing is missing.\n")
        return 0
    if ex.first_error is None:
        out.write(f"{args.log}: no error line at all; pass the complete log.\n")
        return 0
    out.write(f"first error, line {ex.first_error[0]}:\n  {ex.first_error[1]}\n")
    if ex.failing_step:
        out.write(f"failing step, line {ex.failing_step[0]}: {ex.failing_step[1]}\n")
        if ex.failing_step[2]:
            out.write(f"  command: {ex.failing_step[2][:300]}\n")
    out.write(
        "closest signatures (knowledge/data/signatures/, headers.toml):\n"
        if ex.near
        else "no signature shares words with it.\n"
    )
    for n in ex.near:
        out.write(f"  {n.signature} ({n.cause}, closeness {n.score:.2f}): {n.why}\n")
    out.write(
        f"\nto name this cause, add a row like this to {ex.draft_file}\n"
        + (
            "(or, for a cause of another family, to that family's file beside it; docs/diagnose-signatures.md),\n"
            if ex.draft_file.startswith(SIGNATURES_DIR)
            else "(docs/diagnose-signatures.md),\n"
        )
        + "then run python -m pytest tests/diagnose:\n\n"
        + ex.draft
    )
    return 0
