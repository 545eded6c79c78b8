"""Install a built extension wheel's own runtime requirements, with torch held fixed.

The wheel itself is installed with ``pip install --no-deps --force-reinstall`` (the plan's
install step), so that a rebuild replaces it and nothing else moves.  Its own requirements
(``Requires-Dist`` in the wheel's ``METADATA``, core metadata specification) would then
never arrive, and the extension fails to import (``No module named 'scipy'``).  So:

1. before anything is installed, pip resolves those requirements in the build's
   interpreter (``pip install --dry-run --report``, pip >= 22.2) under a constraint file
   that pins the torch the extension was built against (``torch==<installed version>``,
   pip's ``-c``): pip can then neither replace nor upgrade torch.  When a requirement
   needs another torch, pip cannot resolve, and the build stops here, before the wheel or
   any requirement is installed, naming the requirement;
2. after the wheel is installed, the same ``pip install -c ... REQUIREMENTS`` installs
   them, and its report lists what was installed, for the build record.

``--no-deps`` keeps the old behaviour (nothing but the wheel is installed).
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.parser import Parser
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..errors import RuntimeRequirementsError
from ..ui import console, echo_command

__all__ = [
    "RuntimeDeps",
    "wheel_requirements",
    "tree_requirements",
    "check",
    "check_requirements",
    "install",
    "constraint_file",
]

TIMEOUT_S = 1800.0


@dataclass
class RuntimeDeps:
    """What :func:`check` found and :func:`install` did, for the record.

    ``requirements``: the wheel's ``Requires-Dist`` (extras-only ones left out);
    ``constraint``: the torch pin (``torch==2.13.0+cpu``) or None when no torch is
    installed; ``would_install``: ``[{"name", "version"}]`` from the dry run;
    ``installed``: the same from the real install; ``commands``: what was run.
    """

    requirements: list[str]
    constraint: str | None
    would_install: list[dict[str, str]] = field(default_factory=list)
    installed: list[dict[str, str]] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the record's ``runtime_deps``)."""
        return {
            "requirements": self.requirements,
            "constraint": self.constraint,
            "would_install": self.would_install,
            "installed": self.installed,
            "commands": self.commands,
        }


def wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` entries of a wheel's ``*.dist-info/METADATA``, as written,
    leaving out those that apply only to an extra (``; extra == "test"``).

    :raises RuntimeRequirementsError: the wheel has no readable METADATA.
    """
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
            if not names:
                raise RuntimeRequirementsError(
                    f"{wheel.name} has no .dist-info/METADATA.", fix="rebuild it, or install it with --no-deps."
                )
            text = zf.read(names[0]).decode("utf-8", "replace")
    except (OSError, zipfile.BadZipFile) as exc:
        raise RuntimeRequirementsError(f"cannot read {wheel}: {exc}.", fix="rebuild it.") from exc
    return _without_extras(Parser().parsestr(text).get_all("Requires-Dist") or [])


def constraint_file(folder: Path, torch_version: str | None) -> tuple[Path | None, str | None]:
    """Write ``<folder>/runtime-constraints.txt`` pinning torch; (path, the pin) or
    (None, None) when no torch is installed."""
    if not torch_version:
        return None, None
    pin = f"torch=={torch_version}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "runtime-constraints.txt"
    path.write_text(
        f"# written by torchbuild: the torch the extension was built against stays as it is\n{pin}\n", encoding="utf-8"
    )
    return path, pin


def _torch_conflicts(requirements: list[str], torch_version: str | None) -> list[str]:
    """Requirements on torch itself that the installed version does not satisfy."""
    if not torch_version:
        return []
    try:
        have = Version(torch_version)
    except InvalidVersion:
        return []
    bad = []
    for r in requirements:
        try:
            req = Requirement(r)
        except InvalidRequirement:
            continue
        if (
            canonicalize_name(req.name) == "torch"
            and req.specifier
            and not req.specifier.contains(have, prereleases=True)
        ):
            bad.append(r)
    return bad


def _pip(python: str, args: list[str], env: Mapping[str, str], log: Any | None) -> subprocess.CompletedProcess:
    argv = [python, "-m", "pip", *args]
    echo_command(argv)
    if log is not None:
        log.write(f"\n+ {' '.join(argv)}\n".encode())
    proc = subprocess.run(
        argv, env=dict(env), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    if log is not None:
        log.write((proc.stdout + proc.stderr).encode())
    return proc


def _report_items(path: Path) -> list[dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for item in data.get("install") or []:
        meta = item.get("metadata") or {}
        if meta.get("name"):
            out.append({"name": str(meta["name"]), "version": str(meta.get("version") or "")})
    return out


def _conflict_lines(text: str) -> list[str]:
    """pip's explanation of a ResolutionImpossible: the lines after ``The conflict is
    caused by:`` up to the next blank line (pip 23 output)."""
    out: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "The conflict is caused by:":
            for nxt in lines[i + 1 :]:
                if not nxt.strip():
                    break
                out.append(nxt.strip())
            break
    return out


def tree_requirements(python: str, tree: Path, work: Path, env: Mapping[str, str], log: Any | None = None) -> list[str]:
    """The ``Requires-Dist`` of the project in ``tree`` (extras-only ones left out), read
    before anything is built or installed: for develop and install mode, where no wheel is
    left to read.  pip prepares the project's metadata only (``setup.py egg_info`` or the
    backend's ``prepare_metadata_for_build_wheel``; nothing is compiled) in a dry run that
    installs nothing: ``pip install --dry-run --report R --no-deps --no-build-isolation .``;
    its report (pip >= 22.2, "Installation Report" format) carries ``metadata.requires_dist``.

    :param tree: the extension's source tree (its ``setup.py`` / ``pyproject.toml``).
    :param work: folder for pip's report (``<tree>/.torchbuild``).
    :returns: requirement strings as written, e.g. ``["scipy>=1.7", "tqdm"]``.
    :raises RuntimeRequirementsError: pip could not read the project's metadata.
    """
    work.mkdir(parents=True, exist_ok=True)
    report = work / "runtime-deps-metadata.json"
    report.unlink(missing_ok=True)
    args = ["install", "--dry-run", "--report", str(report), "--no-deps", "--no-build-isolation", str(tree)]
    proc = _pip(python, args, env, log)
    try:
        data = json.loads(report.read_text(encoding="utf-8")) if proc.returncode == 0 else {}
    except (OSError, ValueError):
        data = {}
    items = data.get("install") or []
    if proc.returncode != 0 or not items:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-2:])
        raise RuntimeRequirementsError(
            f"cannot read the requirements of the project in {tree} (pip's dry run failed): {tail}",
            fix="look at the log for what setup.py printed, or build with --no-deps to skip its requirements.",
        )
    return _without_extras((items[0].get("metadata") or {}).get("requires_dist") or [])


def _without_extras(values: list[str]) -> list[str]:
    """Requirement strings as written, less those that apply only to an extra."""
    out = []
    for value in values:
        try:
            req = Requirement(value)
        except InvalidRequirement:
            out.append(value.strip())  # pip will say what is wrong with it
            continue
        if req.marker is not None and "extra" in str(req.marker):
            continue
        out.append(str(req))
    return out


def check(
    python: str, wheel: Path, torch_version: str | None, work: Path, env: Mapping[str, str], log: Any | None = None
) -> RuntimeDeps:
    """Resolve the wheel's requirements with torch pinned, installing nothing.

    :param python: the build's interpreter (its pip runs).
    :param wheel: the built wheel.
    :param torch_version: the installed torch the wheel was built against (``Facts.torch``).
    :param work: folder for the constraint file and pip's report (``<tree>/.torchbuild``).
    :param env: the build's environment (the user's pip configuration applies).
    :raises RuntimeRequirementsError: a requirement needs another torch, or pip cannot
        resolve the requirements (its reasons in the message); nothing was installed.
    """
    return check_requirements(python, wheel_requirements(wheel), wheel.name, torch_version, work, env, log)


def check_requirements(
    python: str,
    reqs: list[str],
    what: str,
    torch_version: str | None,
    work: Path,
    env: Mapping[str, str],
    log: Any | None = None,
) -> RuntimeDeps:
    """:func:`check` for requirement strings already read (``what`` names their project
    in messages: a wheel's file name, or the tree for develop/install mode).

    :raises RuntimeRequirementsError: as :func:`check`; nothing was installed.
    """
    cfile, pin = constraint_file(work, torch_version)
    deps = RuntimeDeps(requirements=reqs, constraint=pin)
    if not reqs:
        return deps
    direct = _torch_conflicts(reqs, torch_version)
    if direct:
        raise RuntimeRequirementsError(
            f"{what} requires {', '.join(direct)}, but it was built against the installed torch {torch_version}; "
            "nothing was installed.",
            fix=f"build it against a torch that satisfies {', '.join(direct)} (install that torch first), or install "
            "the wheel with --no-deps if you know it works with this one.",
        )
    report = work / "runtime-deps-dry-run.json"
    report.unlink(missing_ok=True)
    args = ["install", "--dry-run", "--report", str(report), *(["-c", str(cfile)] if cfile else []), *reqs]
    deps.commands.append(["pip", *args])
    proc = _pip(python, args, env, log)
    if proc.returncode != 0:
        text = proc.stderr + proc.stdout
        lines = _conflict_lines(text) or text.strip().splitlines()[-2:]
        why = "; ".join(lines) or "pip failed"
        needs_torch = "torch" in why.lower() and pin is not None
        raise RuntimeRequirementsError(
            (
                f"the runtime requirements of {what} ({', '.join(reqs)}) would need another torch than "
                f"the installed {torch_version}, which the extension was built against (pinned: {pin}); "
                f"nothing was installed. pip: {why}"
            )
            if needs_torch
            else f"pip cannot resolve the runtime requirements of {what} ({', '.join(reqs)}); "
            f"nothing was installed. pip: {why}",
            fix=(
                "choose versions of those requirements that work with this torch (pip install 'NAME<VERSION'), or "
                "build against the torch they need, or install the extension with --no-deps."
            )
            if needs_torch
            else "check the package index (pip's configuration) and the requirements, or build "
            "with --no-deps to install the wheel alone.",
        )
    deps.would_install = _report_items(report)
    moved = [i for i in deps.would_install if canonicalize_name(i["name"]) == "torch"]
    if moved:
        raise RuntimeRequirementsError(
            f"pip would install torch {moved[0]['version']} for the requirements of {what}; nothing was installed.",
            fix="install the extension with --no-deps, then its requirements by hand.",
        )
    return deps


def install(deps: RuntimeDeps, python: str, work: Path, env: Mapping[str, str], log: Any | None = None) -> RuntimeDeps:
    """Install what :func:`check` resolved (``pip install -c CONSTRAINTS REQUIREMENTS``);
    ``deps.installed`` lists what pip installed.

    :raises RuntimeRequirementsError: pip failed (the wheel itself stays installed).
    """
    if not deps.requirements:
        return deps
    report = work / "runtime-deps-installed.json"
    report.unlink(missing_ok=True)
    cfile = work / "runtime-constraints.txt"
    args = ["install", "--report", str(report), *(["-c", str(cfile)] if deps.constraint else []), *deps.requirements]
    deps.commands.append(["pip", *args])
    proc = _pip(python, args, env, log)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeRequirementsError(
            f"pip could not install the runtime requirements ({', '.join(deps.requirements)}): {' '.join(tail)}",
            fix="see the log; install them by hand with the same constraint file: "
            f"{python} -m pip install -c {cfile} " + " ".join(f"'{r}'" for r in deps.requirements),
        )
    deps.installed = _report_items(report)
    names = ", ".join(f"{i['name']} {i['version']}" for i in deps.installed) or "nothing new (all already satisfied)"
    console.print(f"runtime requirements: {names}; torch kept at {deps.constraint or 'none'}", markup=False)
    return deps
