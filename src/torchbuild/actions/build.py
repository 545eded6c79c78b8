"""``torchbuild build``: doctor, plan, run, verify, record.

The steps:

1. resolve SOURCE to a tree (:mod:`torchbuild.actions.fetch`);
2. collect facts and run doctor; errors stop the build before anything compiles
   (unless ``force``);
3. resolve and print the plan; when an existing ``CMakeCache.txt`` disagrees with it,
   move that cache aside (never delete it) so CMake configures again;
4. run the plan's commands with the full log under ``<tree>/.torchbuild/logs/``;
5. on failure: diagnose the log, print the cause and fix, write a record, raise
   :class:`BuildFailedError` (the tree is left as it is, so a rerun resumes);
6. on success: verify in a clean subprocess, write the record with artifacts and
   their sha256.
"""

from __future__ import annotations

import os
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..decisions.plan import Intent, Plan, make_plan
from ..errors import BuildFailedError, DoctorFailedError, NotASourceTreeError, VerifyFailedError
from ..facts.cmake_cache import read_cmake_cache
from ..facts.model import Facts
from ..facts.user_config import read_user_profiles
from ..knowledge.extensions import package_row
from ..ui import console, render_findings, render_plan
from . import cache as compile_cache
from . import ext_progress, runtime_deps
from .fetch import ResolvedSource, cache_dir, planned_fetch, resolve_source
from .incremental_state import installed_libs_current, previous_verified
from .record import sha256_file, timestamp, write_record
from .runner import ProgressTracker, open_new_log, run_logged

__all__ = ["BuildRequest", "BuildResult", "prepare", "build"]


@dataclass
class BuildRequest:
    """Everything ``build`` needs from the user.

    ``python``: the interpreter to build with and install into (default: this one);
    ``force``: run even when doctor reports errors; ``verify``: verify after a good build;
    ``profile_file``: an explicit ``torchbuild.toml``; ``deps``: after installing an
    extension wheel, install its own runtime requirements with torch held fixed
    (:mod:`torchbuild.actions.runtime_deps`; ``--no-deps`` sets it False).
    """

    source: str
    intent: Intent = field(default_factory=Intent)
    python: str | None = None
    force: bool = False
    verify: bool = True
    profile_file: Path | None = None
    deps: bool = True


@dataclass
class BuildResult:
    """Outcome of a build: ``status`` ``"ok"``/``"failed"``, paths of the wheel (or None),
    record and log, wall ``seconds``; ``plan`` and ``verify`` as dicts."""

    status: str
    source: str
    plan: dict[str, Any]
    wheel: str | None
    record: str | None
    log: str | None
    seconds: float
    verify: dict[str, Any] | None = None
    diagnosis: dict[str, Any] | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """``{"status", "source", "plan", "wheel", "record", "log", "seconds"}`` (+ verify,
        diagnosis)."""
        return {
            "status": self.status,
            "source": self.source,
            "plan": self.plan,
            "wheel": self.wheel,
            "record": self.record,
            "log": self.log,
            "seconds": round(self.seconds, 3),
            "verify": self.verify,
            "diagnosis": self.diagnosis,
        }


def prepare(req: BuildRequest, *, fetch: bool = True) -> tuple[ResolvedSource, Facts, Plan]:
    """Resolve the source, collect facts and make the plan (no doctor, nothing run).

    :param fetch: False (``plan``): a ``pytorch@<ref>`` that is not fetched yet is planned from
        the release data (:func:`torchbuild.actions.fetch.planned_fetch`) and nothing is cloned;
        ``resolved.planned`` then says what ``build`` will fetch.
    :raises torchbuild.errors.UsageError: bad SOURCE or options (exit 2).
    :raises torchbuild.errors.FetchError: the source could not be fetched (exit 3).
    """
    from ..facts import collect

    python = req.python or sys.executable
    ahead = None if fetch else planned_fetch(req.source)
    if ahead is not None:
        resolved = ResolvedSource(ahead.dest, "git", req.source, planned=ahead)
        facts = collect(None, python=python)
        facts.source = ahead.source_tree()
    else:
        resolved = resolve_source(req.source, python=python)
        facts = collect(resolved.path, python=python)
    src = facts.source
    if src is None or src.kind not in ("pytorch", "extension"):
        raise NotASourceTreeError(
            f"{resolved.path} is not a source tree torchbuild can build: no PyTorch tree (setup.py or pyproject.toml "
            "with version.txt, c10/ and torch/) and no extension package (a setup.py or CMakeLists.txt that uses "
            "torch.utils.cpp_extension or find_package(Torch)).",
            fix="point SOURCE at the root of a PyTorch checkout or of an extension package.",
        )
    if src.kind == "pytorch":
        from .system_probe import add_system_libs

        add_system_libs(facts)
    profiles = read_user_profiles(resolved.path, Path.cwd(), explicit=req.profile_file)
    cmake_cache = read_cmake_cache(resolved.path / "build" / "CMakeCache.txt") if src.kind == "pytorch" else None
    wheel_dir = req.intent.wheel_dir
    if wheel_dir is None and resolved.origin != "directory":
        wheel_dir = str(cache_dir() / "wheels")
    intent = req.intent if wheel_dir == req.intent.wheel_dir else _with(req.intent, wheel_dir=wheel_dir)
    previous = None
    if src.kind == "pytorch" and (resolved.path / "build" / "build.ninja").is_file():
        from ..facts.records import last_successful_record

        previous = last_successful_record(resolved.path)
    plan = make_plan(facts, intent, user_profiles=profiles, cmake_cache=cmake_cache, previous=previous)
    return resolved, facts, plan


def _with(intent: Intent, **changes: Any) -> Intent:
    from dataclasses import replace

    return replace(intent, **changes)


def _wheel_modules(wheel: Path) -> list[str]:
    """Top-level importable names in a wheel (``top_level.txt``, else its folders)."""
    with zipfile.ZipFile(wheel) as zf:
        for n in zf.namelist():
            if n.endswith(".dist-info/top_level.txt"):
                return [line.strip() for line in zf.read(n).decode().splitlines() if line.strip()]
        tops = {
            n.split("/")[0] for n in zf.namelist() if "/" in n and not n.split("/")[0].endswith((".dist-info", ".data"))
        }
        return sorted(t for t in tops if t.isidentifier())


def build(req: BuildRequest) -> BuildResult:
    """Run the whole job; see the module docstring.

    :raises DoctorFailedError: doctor found errors (nothing was compiled), exit 1.
    :raises BuildFailedError: the build failed; the log and a diagnosis were printed.
    :raises VerifyFailedError: the build succeeded but the result failed verification.
    :raises torchbuild.errors.InterruptedBuildError: Ctrl-C (exit 130).
    """
    from ..decisions.doctor import check as doctor_check

    t0 = time.monotonic()
    resolved, facts, plan = prepare(req)
    tree = resolved.path
    findings = doctor_check(
        facts,
        wants_cuda=bool(plan.cuda.value),
        arch_list=plan.arch_list.value,
        build=plan.mode.value,
        system_libs=req.intent.system_libs,
        options={k: str(s.value) for k, s in plan.options.items()},
    )
    render_findings(findings, title="doctor")
    errors = [f for f in findings if f.severity == "error"]
    if errors and not req.force:
        raise DoctorFailedError(
            f"doctor found {len(errors)} error{'s' if len(errors) > 1 else ''} (listed above); nothing was compiled.",
            fix="apply the fixes above and run the same command again, or pass --force to build anyway.",
        )
    render_plan(plan)

    stem = timestamp()
    log_path, log = open_new_log(tree / ".torchbuild" / "logs", stem)
    console.print(f"log: {log_path}", markup=False)
    env = plan.environment(os.environ)
    record: dict[str, Any] = {
        "source": {
            "spec": req.source,
            "path": str(tree),
            "origin": resolved.origin,
            "sdist": str(resolved.sdist) if resolved.sdist else None,
            "git_sha": facts.source.git_sha if facts.source else None,
            "submodules": [{"path": s.path, "sha": s.sha} for s in (facts.source.submodules if facts.source else [])],
        },
        "plan": plan.to_dict(),
        "facts": facts.to_dict(),
        "doctor": [f.to_dict() for f in findings],
        "log": str(log_path),
        "started": stem,
    }
    cache_session = None
    try:
        _prepare_tree(plan, tree, stem, log)
        if plan.workarounds:
            from .workarounds import apply_workarounds

            record["workarounds"] = apply_workarounds(plan.workarounds, tree, log)
        cache_session = compile_cache.start_session(
            plan.cache_setup, env, tree, compilers=compile_cache.compilers_of(facts), log=log
        )
        if cache_session is not None:
            cache_session.watch(log)  # a shared sccache backend that goes away mid-build: switch to the local cache
        tracker = ProgressTracker()
        progress = ext_progress.start(tracker, plan, tree, env, log)  # [N/M] for setuptools builds without ninja
        wheel: Path | None = None
        deps: runtime_deps.RuntimeDeps | None = None
        build_start = time.time()
        if plan.kind == "extension" and plan.mode.value in ("develop", "install"):
            # no wheel to read afterwards: the tree's requirements, resolved before anything is compiled
            record["runtime_deps"] = {"skipped": "--no-deps"} if not req.deps else None
            if req.deps:
                deps = _check_deps(plan, facts, None, tree, env, log, record, stem, t0)
        for cmd in plan.commands:
            if cmd.skip_when_no_work and tracker.no_work and installed_libs_current(tree):
                note = "install step skipped: ninja had nothing to do and torch/lib is as new as build/lib"
                console.print(note, markup=False)
                log.write(f"\n# {note}\n".encode())
                continue
            argv = list(cmd.argv)
            if "{wheel}" in argv:
                wheel = _newest_wheel(Path(plan.wheel_dir or tree), since=build_start)
                if wheel is None:
                    raise BuildFailedError(
                        f"the build reported success but left no wheel in {plan.wheel_dir}.",
                        fix=f"look at the log: {log_path}",
                    )
                argv = [str(wheel) if a == "{wheel}" else a for a in argv]
                if cmd.phase == "install" and plan.kind == "extension":
                    record["progress"] = ext_progress.record_entry(progress, tracker)
                    record["runtime_deps"] = {"skipped": "--no-deps"} if not req.deps else None
                    if req.deps:  # resolve the wheel's own requirements first: stop before installing anything
                        deps = _check_deps(plan, facts, wheel, tree, env, log, record, stem, t0)
            result = run_logged(argv, cwd=cmd.cwd, env=env, log=log, tracker=tracker, env_diff=plan.env_values())
            if result.returncode != 0:
                record["compile_cache"] = cache_session.finish() if cache_session else None
                return _failed(plan, tree, stem, log_path, record, tracker, result.returncode, t0)
        if plan.mode.value == "wheel" and wheel is None:
            wheel = _newest_wheel(Path(plan.wheel_dir or tree), since=build_start)
        if "progress" not in record:
            record["progress"] = ext_progress.record_entry(progress, tracker)
        if deps is not None:
            record["runtime_deps"] = runtime_deps.install(deps, plan.python, tree / ".torchbuild", env, log).to_dict()
        record["compile_cache"] = cache_session.finish() if cache_session else None
    finally:
        if cache_session is not None:
            cache_session.stop_watching()
        log.close()
    record["phases"] = {k: round(v, 3) for k, v in tracker.phase_times.items()}
    artifacts = []
    if wheel is not None:
        artifacts.append(
            {"kind": "wheel", "path": str(wheel), "sha256": sha256_file(wheel), "bytes": wheel.stat().st_size}
        )
    record["artifacts"] = artifacts
    verify_dict = None
    verify_ok = True
    if (
        req.verify
        and plan.install.value
        and plan.incremental
        and plan.incremental.value
        and tracker.no_work
        and previous_verified(tree)
    ):
        verify_dict = {"skipped": "nothing was rebuilt since the last successful build, which was verified", "ok": True}
        console.print("verify: skipped, nothing was rebuilt since the last successful (verified) build", markup=False)
    elif req.verify and plan.install.value:
        report = _verify(plan, facts, wheel)
        verify_dict = report.to_json_dict()
        verify_ok = report.ok
    record["verify"] = verify_dict
    seconds = time.monotonic() - t0
    record["outcome"] = "ok" if verify_ok else "verify_failed"
    record["seconds"] = round(seconds, 3)
    record_path = write_record(tree, stem, record)
    res = BuildResult(
        "ok" if verify_ok else "failed",
        str(tree),
        plan.to_dict(),
        str(wheel) if wheel else None,
        str(record_path),
        str(log_path),
        seconds,
        verify=verify_dict,
    )
    if not verify_ok:
        vexc = VerifyFailedError(
            f"the build finished but verification failed (record: {record_path}).", fix="see the failed checks above."
        )
        vexc.result = res
        raise vexc
    cache_line = compile_cache.summary_line(record.get("compile_cache"))
    console.print("built", style="green", end=" ", markup=False)
    console.print(
        f"{tree.name} in {seconds:.0f} s"
        + (f" · {cache_line}" if cache_line else "")
        + (f"\nwheel: {wheel}" if wheel else "")
        + f"\nrecord: {record_path}\nlog: {log_path}",
        markup=False,
    )
    return res


def _check_deps(
    plan: Plan,
    facts: Facts,
    wheel: Path | None,
    tree: Path,
    env: dict[str, str],
    log: Any,
    record: dict[str, Any],
    stem: str,
    t0: float,
) -> runtime_deps.RuntimeDeps:
    """:func:`runtime_deps.check` for the wheel about to be installed (``wheel`` None: the
    tree's requirements, before a develop/install-mode build compiles anything); on a
    conflict the record says so (outcome ``"failed"``) and the error goes up before
    anything is installed."""
    from ..errors import RuntimeRequirementsError

    torch_version = facts.torch.version if facts.torch else None
    work = tree / ".torchbuild"
    reqs: list[str] = []
    try:
        if wheel is not None:
            reqs = runtime_deps.wheel_requirements(wheel)
            return runtime_deps.check(plan.python, wheel, torch_version, work, env, log)
        reqs = runtime_deps.tree_requirements(plan.python, tree, work, env, log)
        return runtime_deps.check_requirements(plan.python, reqs, str(tree), torch_version, work, env, log)
    except RuntimeRequirementsError as exc:
        record["runtime_deps"] = {"error": exc.message, "requirements": reqs}
        record["outcome"] = "failed"
        record["seconds"] = round(time.monotonic() - t0, 3)
        record["artifacts"] = (
            [{"kind": "wheel", "path": str(wheel), "sha256": sha256_file(wheel), "bytes": wheel.stat().st_size}]
            if wheel is not None
            else []
        )
        write_record(tree, stem, record)
        raise


def _prepare_tree(plan: Plan, tree: Path, stem: str, log: Any) -> None:
    """Move a stale CMake cache aside; write the parallel build_ext config."""
    if plan.reconfigure and plan.build_dir:
        cache = Path(plan.build_dir) / "CMakeCache.txt"
        if cache.exists():
            moved = cache.with_name(f"CMakeCache.txt.torchbuild-{stem}")
            cache.rename(moved)
            diffs = ", ".join(f"{d.name}: {d.cached} -> {d.planned}" for d in plan.reconfigure)
            msg = (
                f"build/CMakeCache.txt disagrees with the plan ({diffs}); CMake would keep the old values, "
                f"so it will configure again (old cache kept as {moved.name})."
            )
            console.print("reconfigure:", style="yellow", end=" ", markup=False)
            console.print(msg, markup=False)
            log.write(f"[torchbuild] reconfigure: {msg}\n".encode())
    cfg = plan.env.get("DIST_EXTRA_CONFIG")
    if cfg is not None and plan.setup_cfg:
        p = Path(str(cfg.value))
        p.parent.mkdir(parents=True, exist_ok=True)
        text = "# written by torchbuild for this build (setuptools reads it through DIST_EXTRA_CONFIG)\n"
        for section, values in plan.setup_cfg.items():
            text += f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
        p.write_text(text, encoding="utf-8")


def _newest_wheel(folder: Path, since: float) -> Path | None:
    if not folder.is_dir():
        return None
    wheels = [p for p in folder.glob("*.whl") if p.stat().st_mtime >= since - 2]
    return max(wheels, key=lambda p: p.stat().st_mtime) if wheels else None


def _failed(
    plan: Plan,
    tree: Path,
    stem: str,
    log_path: Path,
    record: dict[str, Any],
    tracker: ProgressTracker,
    rc: int,
    t0: float,
) -> BuildResult:
    from ..actions.diagnose_log import diagnose_file, render

    log_path_str = str(log_path)
    diag = diagnose_file(log_path)
    render(diag)
    record["phases"] = {k: round(v, 3) for k, v in tracker.phase_times.items()}
    record["outcome"] = "failed"
    record["returncode"] = rc
    record["diagnosis"] = diag.to_json_dict()
    record["seconds"] = round(time.monotonic() - t0, 3)
    record_path = write_record(tree, stem, record)
    first = diag.causes[0] if diag.causes else None
    cause = f" Cause: {first.cause_id}." if first and first.cause_id != "unknown" else ""
    exc = BuildFailedError(
        f"the build failed in phase '{tracker.phase}' (exit {rc}).{cause} "
        f"Full log: {log_path_str}; record: {record_path}.",
        fix=(
            first.fix
            if first and first.fix
            else "see the diagnosis above; after fixing, run the same command again to continue incrementally."
        ),
    )
    exc.result = BuildResult(
        "failed",
        str(tree),
        plan.to_dict(),
        None,
        str(record_path),
        log_path_str,
        record["seconds"],
        diagnosis=record["diagnosis"],
    )
    raise exc


def _verify(plan: Plan, facts: Facts, wheel: Path | None):  # -> VerifyReport
    from .verify import Expectations, verify_extension, verify_torch

    if plan.kind == "pytorch":
        expect = Expectations(
            cuda=(facts.cuda.version if plan.cuda.value and facts.cuda else ""),
            arch_list=plan.arch_list.value if plan.cuda.value else None,
            build_type=plan.build_type.value,
        )
        report = verify_torch(plan.python, expect)
    else:
        module = None
        row = package_row(facts.source.name if facts.source else None)
        if row:
            module = row["module"]
        elif wheel is not None:
            mods = _wheel_modules(wheel)
            module = mods[0] if mods else None
        if module is None and facts.source and facts.source.name:
            module = facts.source.name.replace("-", "_")
        expect = None  # the extension is checked against the installed torch itself (same libtorch)
        if not module:
            from .verify import VerifyReport

            report = VerifyReport(target="extension", python=plan.python)
            report.add(
                "import",
                False,
                "cannot tell which module the built package provides (no top_level.txt, "
                "no importable folder in the wheel)",
                "verify it by hand: torchbuild verify --extension MODULE",
            )
        else:
            report = verify_extension(plan.python, module, expect=expect, smoke=row.get("smoke") if row else None)
    from ..ui import render_verify

    render_verify(report)
    return report
