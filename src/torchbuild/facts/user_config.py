"""Read user profiles: ``torchbuild.toml`` and ``[tool.torchbuild]`` in ``pyproject.toml``.

Looked for in the source tree and then in the current directory; the first file
that defines a profile name wins.  A file that exists but cannot be read or parsed
is a :class:`torchbuild.errors.ProfileError` (exit 2): a silently ignored profile
would build something other than what the user asked for.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..errors import ProfileError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["read_user_profiles"]


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(
            f"cannot read profile file {path}: {exc.strerror if isinstance(exc, OSError) else exc}.",
            fix=f"make {path} readable (chmod u+r) or remove it.",
        ) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profile file {path} is not valid TOML: {exc}.", fix=f"correct {path}.") from exc


def read_user_profiles(*dirs: Path, explicit: Path | None = None) -> dict[str, dict[str, Any]]:
    """Collect user profiles ``{name: {key: value}}``, each with ``"_file"`` set to where it
    was defined.

    :param dirs: directories to search, in order (the tree, then the current directory).
    :param explicit: a file given with ``--profile-file``; it must exist.
    :raises ProfileError: a profile file is unreadable or not TOML, or ``profile`` is not
        a table of tables.
    """
    files: list[tuple[Path, str]] = []
    if explicit is not None:
        if not explicit.is_file():
            raise ProfileError(f"profile file {explicit} does not exist.", fix="give the path of a torchbuild.toml.")
        files.append((explicit, "torchbuild"))
    seen: set[Path] = set()
    for d in dirs:
        d = d.resolve()
        if d in seen:
            continue
        seen.add(d)
        files.append((d / "torchbuild.toml", "torchbuild"))
        files.append((d / "pyproject.toml", "pyproject"))
    profiles: dict[str, dict[str, Any]] = {}
    for path, kind in files:
        if not path.exists():
            continue
        doc = _read_toml(path)
        table = doc if kind == "torchbuild" else doc.get("tool", {}).get("torchbuild", {})
        section = table.get("profile", {})
        if not isinstance(section, dict) or not all(isinstance(v, dict) for v in section.values()):
            raise ProfileError(
                f"{path}: 'profile' must hold tables such as [profile.mine] (or [tool.torchbuild.profile.mine]).",
                fix=f"correct {path}.",
            )
        for name, body in section.items():
            if name not in profiles:
                profiles[name] = {**body, "_file": str(path)}
    return profiles
