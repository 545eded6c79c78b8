"""Errors that reach the user.

One class per user-facing failure, each with a fixed exit code and a message that
says what happened and what to do (the pattern of cibuildwheel's ``errors.py``,
https://github.com/pypa/cibuildwheel/blob/8832cf6b7559/cibuildwheel/errors.py).  The CLI's single handler prints
``error: <message>`` and exits with :attr:`TorchbuildError.exit_code`; no traceback
unless ``TORCHBUILD_TRACEBACK=1``.

Exit codes:

* 1 — the job ran and failed (doctor found errors, the build failed, verify failed).
* 2 — bad input: nothing was run and nothing was written (an unknown PyPI package too).
* 3 — something the job needs could not be fetched (network, index, clone).
* 130 — interrupted (Ctrl-C).
"""

from __future__ import annotations

__all__ = [
    "TorchbuildError",
    "UsageError",
    "SourceNotFoundError",
    "NotASourceTreeError",
    "UnknownOptionError",
    "ConflictingOptionsError",
    "ProfileError",
    "FactsFileError",
    "UnknownPackageError",
    "FetchError",
    "DoctorFailedError",
    "BuildFailedError",
    "VerifyFailedError",
    "InterruptedBuildError",
    "RuntimeRequirementsError",
]


class TorchbuildError(Exception):
    """Base class: a failure with a message for the user and a process exit code.

    :param message: what happened and what to do, in one or a few sentences.
    :param fix: optional separate fix line; printed after the message.
    """

    exit_code: int = 1

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return self.message if not self.fix else f"{self.message} Fix: {self.fix}"


class UsageError(TorchbuildError):
    """Bad input on the command line or in a file; nothing was run or written."""

    exit_code = 2


class SourceNotFoundError(UsageError):
    """SOURCE names a path that does not exist."""


class NotASourceTreeError(UsageError):
    """SOURCE exists but is neither a PyTorch tree nor an extension package."""


class UnknownOptionError(UsageError):
    """A ``--set KEY=VALUE`` or profile key is not an option of this tree."""


class ConflictingOptionsError(UsageError):
    """Two options were given that cannot both hold."""


class ProfileError(UsageError):
    """A profile file (``torchbuild.toml`` or ``[tool.torchbuild]``) is unreadable or invalid."""


class FactsFileError(UsageError):
    """A ``--facts`` JSON file is missing or malformed, or an ``--assume`` is invalid."""


class UnknownPackageError(UsageError):
    """A PyPI requirement names no package (or no sdist) the index has: bad input, exit 2."""


class FetchError(TorchbuildError):
    """A source could not be fetched (no network, index or clone failure, timeout).  An unknown
    PyPI name is bad input, not a fetch failure: :class:`UnknownPackageError` (exit 2)."""

    exit_code = 3


class DoctorFailedError(TorchbuildError):
    """Doctor found at least one error; the build was not started."""

    exit_code = 1


class BuildFailedError(TorchbuildError):
    """The build command exited non-zero; the tree is kept for a resumed build."""

    exit_code = 1


class VerifyFailedError(TorchbuildError):
    """The built result does not import or does not match the plan."""

    exit_code = 1


class InterruptedBuildError(TorchbuildError):
    """The user pressed Ctrl-C; the process group was stopped, the tree is resumable."""

    exit_code = 130


class RuntimeRequirementsError(TorchbuildError):
    """A built extension's own runtime requirements cannot be installed with the torch it
    was built against held fixed (or pip cannot resolve them); raised before anything is
    installed (exit 1)."""

    exit_code = 1
