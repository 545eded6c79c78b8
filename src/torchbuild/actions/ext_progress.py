"""``[N/M]`` and an ETA for setuptools extension builds that do not use ninja.

torch's ``BuildExtension`` compiles with ninja unless ``setup.py`` turns it off
(``use_ninja=False``, as torch-scatter does); without ninja there is no ``[N/M]`` line,
only setuptools' echo of each compiler command (distutils ``spawn``), which
:class:`torchbuild.actions.runner.ProgressTracker` counts as N.  M, the number of
compiles, comes from

1. the tree's newest successful record of the same plan (the same build folder, i.e. the
   same torch, Python, compiler, CUDA, arch list and options; and the same environment),
   which also gives the seconds those compiles took, for the ETA; else
2. the ``setup.py`` run: ``setup.py`` is run once more, beside the build, with
   ``setuptools.setup`` replaced by a function that prints how many sources each
   ``ext_modules`` entry has and exits (nothing is built; the plan's environment is used,
   so ``FORCE_CUDA`` and the like choose the same extensions).  It runs beside the build
   (a torch import, the seconds pip's own run of setup.py spends too); when the first
   compile starts before it is done, the progress display waits for it (up to two
   minutes; the build itself goes on, its output waiting in the pipe); else
3. nothing: the progress line shows ``[N]`` alone.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..ui import console, echo_command
from .runner import ProgressTracker

__all__ = ["COUNT_SCRIPT", "expected_from_records", "start", "record_entry"]

#: Run as ``python -c COUNT_SCRIPT`` in the tree: prints ``TORCHBUILD_SOURCES [{"name", "sources"}...]``.
COUNT_SCRIPT = r"""
import json, runpy, sys
import setuptools
def _capture(*args, **kw):
    exts = kw.get("ext_modules") or []
    out = [{"name": getattr(e, "name", "?"), "sources": len(getattr(e, "sources", None) or [])} for e in exts]
    sys.stdout.write("TORCHBUILD_SOURCES " + json.dumps(out) + "\n")
    sys.stdout.flush()
    raise SystemExit(0)
setuptools.setup = _capture
try:
    import distutils.core
    distutils.core.setup = _capture
except Exception:
    pass
sys.argv = ["setup.py", "--name"]
runpy.run_path("setup.py", run_name="__main__")
"""

TIMEOUT_S = 600.0


def _same_plan(rec_plan: Mapping[str, Any], plan: Any) -> bool:
    envs = {k: v.get("value") for k, v in (rec_plan.get("env") or {}).items() if isinstance(v, dict)}
    return rec_plan.get("setup_cfg") == plan.setup_cfg and envs == {k: s.value for k, s in plan.env.items()}


def expected_from_records(tree: Path, plan: Any) -> tuple[int, float | None] | None:
    """(compiles, seconds) of the newest successful build of ``tree`` with the same plan
    whose record has them (``progress`` entry), or None."""
    from ..facts.records import successful_records

    for rec in successful_records(tree):
        prog = rec.get("progress") or {}
        if _same_plan(rec.get("plan") or {}, plan) and isinstance(prog.get("compiles"), int) and prog["compiles"] > 0:
            secs = prog.get("compile_seconds")
            return prog["compiles"], float(secs) if isinstance(secs, (int, float)) else None
    return None


def _parse(text: str) -> list[dict[str, Any]] | None:
    for line in text.splitlines():
        if line.startswith("TORCHBUILD_SOURCES "):
            try:
                data = json.loads(line.split(" ", 1)[1])
            except ValueError:
                return None
            return data if isinstance(data, list) else None
    return None


def start(
    tracker: ProgressTracker, plan: Any, tree: Path, env: Mapping[str, str], log: Any | None = None
) -> dict[str, Any]:
    """Give ``tracker`` the total and the ETA basis for a setuptools build of ``plan``.

    Returns the ``progress`` entry being filled for the record (``sources_from``:
    ``"record"``, ``"setup.py"`` or None; ``extensions`` when counted); counting from
    ``setup.py`` runs in a background thread, so the build is not delayed.  Never raises:
    without a count the progress shows ``[N]``.
    """
    entry: dict[str, Any] = {"sources": None, "sources_from": None}
    if plan.kind != "extension" or plan.backend != "setup.py" or not (Path(tree) / "setup.py").is_file():
        return entry
    earlier = expected_from_records(Path(tree), plan)
    if earlier is not None:
        tracker.sources_total, tracker.expected_seconds = earlier[0], earlier[1]
        entry.update(sources=earlier[0], sources_from="record", expected_seconds=earlier[1])
        return entry
    argv = [plan.python, "-c", COUNT_SCRIPT]
    shown = [plan.python, "-c", "<count the sources of setup.py's ext_modules>"]

    def count() -> None:
        echo_command(shown, cwd=str(tree))
        if log is not None:
            log.write(f"\n+ {' '.join(shown)}  (counting sources for the progress line)\n".encode())
        try:
            proc = subprocess.run(
                argv,
                cwd=str(tree),
                env=dict(env),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
            )
        except (OSError, subprocess.SubprocessError):
            return
        exts = _parse(proc.stdout)
        if exts:
            total = sum(int(e.get("sources") or 0) for e in exts)
            if total > 0:
                tracker.sources_total = total
                entry.update(sources=total, sources_from="setup.py", extensions=exts)
        elif log is not None:
            log.write(b"[torchbuild] progress: could not count setup.py's sources; showing compiles without a total\n")

    thread = threading.Thread(target=count, name="torchbuild-count-sources", daemon=True)
    thread.start()
    entry["_thread"] = thread
    tracker.wait_total = thread.join
    return entry


def record_entry(entry: dict[str, Any], tracker: ProgressTracker) -> dict[str, Any] | None:
    """The record's ``progress``: ``compiles`` (counted in the log), ``sources`` and where
    that came from, ``compile_seconds`` (first compile to the end of the phase), or None
    when the build echoed no compile (ninja builds have ninja's own ``[N/M]``)."""
    thread = entry.pop("_thread", None)
    if thread is not None:
        thread.join(timeout=5.0)
    if not tracker.compiles:
        return None
    out = dict(entry)
    out["compiles"] = tracker.compiles
    secs = tracker.phase_times.get("python extensions")
    out["compile_seconds"] = round(secs, 3) if secs is not None else None
    if out.get("sources") and out["sources"] != tracker.compiles:
        console.print(
            f"progress: counted {tracker.compiles} compiles, expected {out['sources']}", markup=False, style="dim"
        )
    return out
