"""Build profiles: the built-in ones of ``knowledge/data/profiles.toml`` and the user's
(``torchbuild.toml`` / ``[tool.torchbuild]``), resolved through ``inherits``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import knowledge
from ...errors import ProfileError, UnknownOptionError
from .model import did_you_mean

PROFILE_KEYS = ("inherits", "description", "mode", "build_type", "cuda", "arch", "cache", "jobs", "set", "nvcc_flags")


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
        for key in body:
            if key != "_file" and key not in PROFILE_KEYS:
                raise ProfileError(
                    f"{where}: profile {current!r} has unknown key {key!r}.{did_you_mean(key, PROFILE_KEYS)}",
                    fix=f"use only {', '.join(PROFILE_KEYS)}.",
                )
        _check_values(body, current, where)
        if "set" in body and not isinstance(body["set"], dict):
            raise ProfileError(
                f"{where}: profile {current!r}: 'set' must be a table of KEY = \"VALUE\".",
                fix='write set = { BUILD_TEST = "0" }.',
            )
        layers.append(body)
        current = body.get("inherits")
    for body in reversed(layers):
        for k, v in body.items():
            if k == "set":
                merged["set"] = {**merged.get("set", {}), **{str(a): str(b) for a, b in v.items()}}
            else:
                merged[k] = v
    return merged


#: What each profile key accepts (TOML types), as said in error messages.
_ALLOWED = {
    "cuda": "true or false (a TOML boolean, without quotes)",
    "jobs": "a positive integer (a TOML integer, without quotes)",
    "arch": 'a string such as "8.6;9.0+PTX" or a list of strings',
}


def _check_values(body: Mapping[str, Any], name: str, where: str) -> None:
    """Check the type and range of each value of one profile layer.

    :raises ProfileError: a value of the wrong type or out of range (the message names the
        file, the profile, the key, the value as written and what is allowed).
    """
    for key, value in body.items():
        if key in ("_file", "set"):
            continue
        if key == "cuda":
            ok = isinstance(value, bool)
        elif key == "jobs":
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
        elif key == "arch":
            ok = isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        else:
            ok = isinstance(value, str)
        if not ok:
            allowed = _ALLOWED.get(key, "a string")
            raise ProfileError(
                f"{where}: profile {name!r}: {key} = {value!r} is not allowed; {key} must be {allowed}.",
                fix=f"write {key} as {allowed}.",
            )
