"""Build profiles: the built-in ones of ``knowledge/data/profiles.toml`` and the user's
(``torchbuild.toml`` / ``[tool.torchbuild]``), resolved through ``inherits``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import knowledge
from ...errors import ProfileError, UnknownOptionError
from ..settings import PROFILE_KEYS as PROFILE_KEYS  # the keys of the settings model; re-exported
from ..settings import check_profile
from .model import did_you_mean


def builtin_profiles() -> dict[str, dict[str, Any]]:
    """Built-in profiles from ``knowledge/data/profiles.toml``: ``{name: {key: value}}``."""
    return {
        row["name"]: {k: v for k, v in row.items() if k not in ("name", "source")}
        for row in knowledge.rows("profiles", "profile")
    }


def _resolve_profile(name: str, user: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    builtins = builtin_profiles()
    chain: list[str] = []
    merged: dict[str, Any] = {}
    current: str | None = name
    layers: list[dict[str, Any]] = []
    while current is not None:
        if current in chain:
            raise ProfileError(
                f"profile {name!r} inherits from itself ({' -> '.join(chain + [current])}).",
                fix="remove the cycle in 'inherits'.",
            )
        chain.append(current)
        if current in user:
            body = user[current]
            where = body.get("_file", "torchbuild.toml")
        elif current in builtins:
            body = builtins[current]
            where = "built-in"
        else:
            known = sorted(set(builtins) | set(user))
            raise UnknownOptionError(
                f"unknown profile {current!r}.{did_you_mean(current, known)} Known profiles: {', '.join(known)}.",
            )
        check_profile(body, current, where)  # keys and values against the settings model
        layers.append(body)
        current = body.get("inherits")
    for body in reversed(layers):
        for k, v in body.items():
            if k == "set":
                merged["set"] = {**merged.get("set", {}), **{str(a): str(b) for a, b in v.items()}}
            else:
                merged[k] = v
    return merged
