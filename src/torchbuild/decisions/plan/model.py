"""The plan's data: :class:`Intent` (what the user asked), :class:`Setting` (a value and
its provenance), :class:`Command`, :class:`CacheDiff` and :class:`Plan` itself, plus the
small helpers every part of planning uses (:func:`cmake_truth`, :func:`did_you_mean`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cmake_cond import cmake_bool
from ..settings import did_you_mean as did_you_mean  # moved there; re-exported


def cmake_truth(value: str | None) -> bool | None:
    """CMake truthiness of ``value`` (see :func:`torchbuild.decisions.cmake_cond.cmake_bool`)."""
    return cmake_bool(value)


@dataclass
class Setting:
    """A plan value and where it came from (``"--jobs"``, ``"profile dev"``, ``"default"``,
    ``"detected: 1 GPU (NVIDIA H100, 9.0)"``, ``"source tree"``)."""

    value: Any
    source: str


@dataclass
class Command:
    """One external command of the plan: ``argv`` (``"{wheel}"`` stands for the wheel the
    previous step built), ``cwd``, and the ``phase`` it starts (``"build"``, ``"install"``).
    ``skip_when_no_work``: skipped when the previous command's ninja found nothing to do and
    the installed libraries are as new as the built ones (the CMake install step of an
    incremental rebuild, about 1 s of "Up-to-date" checks on the 2.6.0 tree)."""

    argv: list[str]
    cwd: str
    phase: str
    skip_when_no_work: bool = False


@dataclass
class CacheDiff:
    """A value in an existing ``CMakeCache.txt`` that disagrees with the plan."""

    name: str
    cached: str | None
    planned: str


@dataclass
class Intent:
    """What the user asked for (flags); None means "not said"."""

    profile: str | None = None
    mode: str | None = None
    build_type: str | None = None
    jobs: int | None = None
    cuda: bool | None = None
    arch: str | None = None
    cache: str | None = None
    sets: list[str] = field(default_factory=list)
    install: bool = True
    wheel_dir: str | None = None
    cache_url: str | None = None
    distribute: str | None = None
    hosts: str | None = None
    hosts_source: str = "--hosts"
    full: bool = False
    #: build against system copies of third-party components the tree lacks (``--system-libs``)
    system_libs: bool = False
    #: build only these CMake targets of a PyTorch tree (``--cmake-target``, repeatable)
    cmake_targets: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """A resolved build plan (serialisable with :meth:`to_dict`).

    ``env`` holds only the variables the plan sets (each a :class:`Setting`); the build
    runs with the caller's environment updated by :meth:`environment`.  ``commands`` run
    in order; ``reconfigure`` lists cached CMake values that disagree with the plan (the
    build moves the stale cache aside so CMake configures again).
    """

    source: str
    kind: str
    backend: str
    python: str
    profile: str
    mode: Setting
    build_type: Setting
    jobs: Setting
    cuda: Setting
    arch_list: Setting
    cache: Setting
    install: Setting
    options: dict[str, Setting] = field(default_factory=dict)
    env: dict[str, Setting] = field(default_factory=dict)
    commands: list[Command] = field(default_factory=list)
    build_dir: str | None = None
    wheel_dir: str | None = None
    reconfigure: list[CacheDiff] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: what torchbuild.actions.cache sets up before the build (wrappers, backend
    #: check, distribution); see torchbuild.decisions.cache_plan.
    cache_setup: dict[str, Any] = field(default_factory=dict)
    incremental: Setting | None = None
    #: sections of the setuptools config file named by ``DIST_EXTRA_CONFIG`` (setup.py
    #: extension builds): ``{"build": {"build_base": ...}, "build_ext": {"parallel": "2"}}``
    setup_cfg: dict[str, dict[str, str]] = field(default_factory=dict)
    #: third-party components of a PyTorch tree (decisions/components.py SourceReport as a dict)
    sources: dict[str, Any] = field(default_factory=dict)
    #: known workarounds the build applies (decisions/workarounds.py Selected.to_dict())
    workarounds: list[dict[str, Any]] = field(default_factory=list)
    #: CMake targets built instead of the whole tree (``--cmake-target``)
    cmake_targets: list[str] = field(default_factory=list)

    def env_values(self) -> dict[str, str]:
        """``{NAME: value}`` of the variables the plan sets."""
        return {k: str(s.value) for k, s in self.env.items()}

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` (usually ``os.environ``) updated with the plan's variables."""
        env = dict(base)
        env.update(self.env_values())
        return env

    @property
    def frontend(self) -> str:
        """Deprecated alias of :attr:`backend` (the build backend; JSON now says ``backend``)."""
        return self.backend

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return dataclasses.asdict(self)

    def export(self, fmt: str) -> str:
        """The plan as a script a person can run by hand.

        :param fmt: ``"sh"`` (POSIX shell), ``"bat"`` (Windows cmd) or ``"dotenv"``
            (``KEY=VALUE`` lines, variables only).
        :raises UsageError: unknown format.
        """
        from .export import export_plan

        return export_plan(self, fmt)
