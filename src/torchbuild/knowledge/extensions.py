"""The extension packages torchbuild knows (``knowledge/data/extensions.toml``): one lookup for the build's verify
(the module to import, the smoke test) and for the plan (the ``cuda_only`` switch)."""

from __future__ import annotations

from typing import Any

from . import rows

__all__ = ["package_row"]


def package_row(name: str | None) -> dict[str, Any] | None:
    """The ``[[package]]`` row of extensions.toml for the package ``name`` (a distribution or import name:
    ``torch_scatter`` and ``torch-scatter`` are the same package, in any case), or None when the file has none
    (or ``name`` is None or empty).  The row holds ``name``, ``module``, ``smoke``, ``env``, ``source`` and
    optionally ``cuda_only`` (``{"env", "value", "steps", "why"}``).

    :raises KnowledgeError: when extensions.toml cannot be read (see :func:`torchbuild.knowledge.load`).
    """
    if not name:
        return None
    norm = name.replace("_", "-").lower()
    return next((row for row in rows("extensions", "package") if row["name"] == norm), None)
