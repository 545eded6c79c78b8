"""Where torchbuild keeps its cache: one definition for every layer.

The facts layer remembers probe answers there (:mod:`torchbuild.facts._util`), the
actions layer fetched sources and wheels, and the knowledge layer its parsed tables
(:mod:`torchbuild.knowledge`).  This module only reads the environment; it creates nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """torchbuild's cache folder: ``$TORCHBUILD_CACHE`` or ``~/.cache/torchbuild``.

    :returns: the folder's path (it may not exist yet).
    """
    env = os.environ.get("TORCHBUILD_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "torchbuild"
