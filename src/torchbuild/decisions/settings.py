"""What a user can set, and how a value they wrote is checked.

Names the user wrote (profile keys, ``--set KEY=VALUE`` items) are parsed here, with a
"did you mean" for a misspelt one.
"""

from __future__ import annotations

import difflib
import re

from ..errors import UsageError

__all__ = ["did_you_mean", "parse_sets"]


def did_you_mean(name: str, choices: list[str] | tuple[str, ...] | set[str], n: int = 3) -> str:
    """`` Did you mean: A, B?`` for the closest ``choices`` (difflib), or ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.6)
    if not close:
        upper = name.upper()
        close = [c for c in choices if upper and (upper in c.upper() or c.upper() in upper)][:n]
    return f" Did you mean: {', '.join(close)}?" if close else ""


def parse_sets(items: list[str]) -> list[tuple[str, str]]:
    """``--set KEY=VALUE`` items as ``(KEY, VALUE)`` pairs, in order.

    :raises UsageError: an item without ``=`` or whose KEY is not a variable name.
    """
    out = []
    for item in items:
        if "=" not in item:
            raise UsageError(f"--set {item!r} is not KEY=VALUE. Write e.g. --set USE_CUDNN=0.")
        k, v = item.split("=", 1)
        k = k.strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            raise UsageError(f"--set {item!r}: {k!r} is not a variable name. Write e.g. --set USE_CUDNN=0.")
        out.append((k, v))
    return out
