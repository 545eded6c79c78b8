"""Errors that reach the user.

One class per user-facing failure, each with a fixed exit code and a message that
says what happened and what to do (the pattern of cibuildwheel's ``errors.py``,
https://github.com/pypa/cibuildwheel/blob/8832cf6b7559/cibuildwheel/errors.py).  The CLI's single handler prints
``error: <message>`` and exits with :attr:`TorchbuildError.exit_code`; no traceback
unless ``TORCHBUILD_TRACEBACK=1``.

Exit codes:

* 1 — the job ran and failed (doctor found errors, the build failed, verify failed, a
  cache tool or a source workaround failed), or torchbuild's own data files are broken.
* 2 — bad input: nothing was run and nothing was written (an unknown PyPI package, an
  unreadable log, a bad archive, a ``--python`` that does not run).
* 3 — something the job needs could not be fetched (network, index, clone, a git ref or
  commit that cannot be checked out).
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
    "BadArchiveError",
    "LogFileError",
    "PythonProbeError",
    "GitRefError",
    "CacheToolError",
    "WorkaroundError",
    "KnowledgeError",
]


class TorchbuildError(Exception):
    """Base class: a failure with a message for the user and a process exit code.

    :param message: what happened and what to do, in one or a few sentences.
    :param fix: optional separate fix line; printed after the message.
    """

    exit_code: int = 1
    #: what to do when the raise site gives no ``fix`` of its own (None: the message says it).
    default_fix: str | None = None
    #: what the failed job produced, for ``--json``: the ``actions.build.BuildResult`` of a
    #: build that failed or did not verify; None otherwise.
    result: object | None = None

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix if fix is not None else self.default_fix

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


class BadArchiveError(UsageError):
    """SOURCE is an archive that cannot be used: truncated or corrupt, not a PyTorch tree or
    extension package, or a PyTorch version torchbuild has no release data for (exit 2;
    nothing was written)."""


class LogFileError(UsageError):
    """The log cannot be read at all: missing, a directory, unreadable, or compressed
    with a format this installation cannot open.  Exit code 2."""


class PythonProbeError(UsageError, RuntimeError):
    """The ``--python`` interpreter does not exist or did not answer (exit 2: bad input).
    Also a :class:`RuntimeError`, as it was before it moved here."""

    default_fix = "give --python the path of a working Python interpreter (for example $(which python3))."


class GitRefError(FetchError):
    """A git step of fetching ``pytorch@<ref>`` failed after the clone: the commit or ref
    cannot be checked out, or its submodules cannot be updated.  Nothing is built at another
    commit (exit 3)."""


class CacheToolError(TorchbuildError):
    """A cache command (ccache, sccache) failed or printed something unreadable (exit 1).
    Messages are redacted: a password in a cache URL never reaches the terminal."""

    exit_code = 1
    default_fix = "run the command shown by hand to see all its output; 'torchbuild cache config' shows the settings."


class WorkaroundError(TorchbuildError):
    """A workaround could not be applied or reverted (the tree differs from what it expects);
    nothing was compiled.  Exit 1."""

    exit_code = 1


class KnowledgeError(TorchbuildError, ValueError):
    """A knowledge file shipped with torchbuild is missing, not TOML, or has a row without a
    source: the installation is broken (exit 1).  Also a :class:`ValueError`, as it was
    before it moved here."""

    exit_code = 1
    default_fix = "reinstall torchbuild (pip install --force-reinstall torchbuild); if it persists, report it."
