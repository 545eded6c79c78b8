"""The public Python API, thin over the layers (``docs/architecture.md``, layer 5).

Example::

    import torchbuild
    findings = torchbuild.doctor("path/to/pytorch")
    plan = torchbuild.plan("torch-scatter==2.1.2")
    result = torchbuild.build("torch-scatter==2.1.2")
    diagnosis = torchbuild.diagnose("build.log")

Every function raises :class:`torchbuild.errors.TorchbuildError` subclasses with the
exit code the CLI would use (2 for bad input, 1 for a failed job, 3 for a failed fetch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["doctor", "plan", "build", "diagnose", "verify"]


def doctor(
    source: str | Path | None = None,
    *,
    python: str | None = None,
    wants_cuda: bool | None = None,
    arch_list: list[str] | None = None,
) -> list[Any]:
    """Collect facts (of ``source`` too, when given) and judge them.

    :param source: a source directory, or None for the machine alone.
    :param python: the interpreter the build would use (default: this one).
    :returns: :class:`torchbuild.decisions.doctor.Finding` objects (``check``, ``severity``
        error/warning/note, ``message``, ``fix``).
    """
    from .decisions.doctor import check
    from .facts import collect

    facts = collect(Path(source) if source is not None else None, python=python)
    return check(facts, wants_cuda=wants_cuda, arch_list=arch_list)


def plan(source: str = ".", **intent: Any) -> Any:
    """Resolve the build plan for ``source`` (a directory, ``pytorch@<ref>`` or a PyPI
    requirement); keyword arguments are :class:`torchbuild.decisions.plan.Intent` fields
    plus ``python``.

    :returns: :class:`torchbuild.decisions.plan.Plan`.
    """
    from .actions.build import BuildRequest, prepare
    from .decisions.plan import Intent

    python = intent.pop("python", None)
    return prepare(BuildRequest(source=source, intent=Intent(**intent), python=python))[2]


def build(
    source: str = ".", *, python: str | None = None, force: bool = False, verify: bool = True, **intent: Any
) -> Any:
    """Doctor, plan, build, verify and record ``source``.

    :returns: :class:`torchbuild.actions.build.BuildResult` (status, wheel, record, log,
        seconds).
    :raises torchbuild.errors.BuildFailedError: the build failed (a diagnosis was printed).
    """
    from .actions.build import BuildRequest
    from .actions.build import build as _build
    from .decisions.plan import Intent

    return _build(BuildRequest(source=source, intent=Intent(**intent), python=python, force=force, verify=verify))


def diagnose(log: str | Path, *, all_failures: bool = False) -> Any:
    """Name the root cause of a failed build from its log (any size; ``-`` for stdin).

    :returns: :class:`torchbuild.decisions.diagnose.Diagnosis`.
    """
    from .actions.diagnose_log import diagnose_file

    return diagnose_file(log, all_failures=all_failures)


def verify(python: str | None = None, *, extension: str | None = None, smoke: str | None = None) -> Any:
    """Verify the installed torch (or ``extension``) of ``python`` in a clean subprocess.

    :returns: :class:`torchbuild.actions.verify.VerifyReport`.
    """
    import sys

    from .actions.verify import verify_extension, verify_torch

    py = python or sys.executable
    return verify_extension(py, extension, smoke=smoke) if extension else verify_torch(py)
