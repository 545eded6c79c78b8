"""What verify reports: the plan's :class:`Expectations`, each :class:`Check` and the
:class:`VerifyReport` that holds them with the facts gathered."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Expectations:
    """What the plan says the result must be; ``None`` in any field means "don't check".

    :ivar version: ``"2.13.0"`` (compared with the public part of ``torch.__version__``,
        i.e. before ``+``) or ``"2.13.0a0+gitabc1234"`` (a ``+`` makes it exact).
    :ivar cuda: ``"13.0"`` (major.minor of ``torch.version.cuda``), or ``""`` meaning the
        build must be CPU-only (``torch.version.cuda is None``).
    :ivar cxx11_abi: ``torch._C._GLIBCXX_USE_CXX11_ABI``.
    :ivar arch_list: ``TORCH_CUDA_ARCH_LIST`` entries that must be compiled in
        (``["8.6", "9.0+PTX"]``: ``sm_86``, ``sm_90`` and ``compute_90``); extra arches
        are allowed and listed.
    :ivar build_type: ``BUILD_TYPE`` of ``torch.__config__.show()`` (case-insensitive).
    """

    version: str | None = None
    cuda: str | None = None
    cxx11_abi: bool | None = None
    arch_list: list[str] | None = None
    build_type: str | None = None
    #: ``USE_*`` options the plan set (``{"USE_MKLDNN": False}``); each one that
    #: ``torch.__config__.show()``'s build settings name must agree
    options: dict[str, bool] | None = None


@dataclass
class Check:
    """One verdict: ``id`` (stable, e.g. ``"ldd"``), ``ok``, a one-line ``message`` saying
    what was found, ``fix`` (what to do; None when ``ok``) and, for a failed check,
    ``cause_id`` (an id of knowledge/data/causes.toml named with the diagnose knowledge, or
    ``unknown``; None when ``ok``)."""

    id: str
    ok: bool
    message: str
    fix: str | None = None
    cause_id: str | None = None


@dataclass
class VerifyReport:
    """Result of :func:`verify_torch` or :func:`verify_extension`.

    :ivar target: ``"torch"`` or the extension's module name.
    :ivar python: the interpreter that was checked.
    :ivar checks: the verdicts, in the order they were made.
    :ivar facts: what was gathered (version, cuda, abi, parsed config, files with their
        ``ldd`` resolution, needed libraries and RUNPATH, mapped libraries...).
    """

    target: str
    python: str
    checks: list[Check] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        """The failed checks."""
        return [c for c in self.checks if not c.ok]

    def check(self, check_id: str) -> Check | None:
        """The first check with this id, or None."""
        return next((c for c in self.checks if c.id == check_id), None)

    def add(self, check_id: str, ok: bool, message: str, fix: str | None = None, cause_id: str | None = None) -> Check:
        """Append a check and return it (a failed check without ``cause_id`` gets the
        cause of its kind, :data:`~torchbuild.decisions.verify_causes.CHECK_CAUSES`, or ``unknown``)."""
        from ..verify_causes import CHECK_CAUSES

        cause = None if ok else (cause_id or CHECK_CAUSES.get(check_id, "unknown"))
        c = Check(check_id, bool(ok), message, None if ok else fix, cause)
        self.checks.append(c)
        return c

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``target``, ``python``, ``ok``, ``checks``, ``facts``."""
        return {
            "target": self.target,
            "python": self.python,
            "ok": self.ok,
            "checks": [asdict(c) for c in self.checks],
            "facts": self.facts,
        }
