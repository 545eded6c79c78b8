"""Run a build command: own process group, full unbuffered log, live progress.

* The command runs in its own session/process group (``start_new_session``), so
  Ctrl-C stops the whole tree of compilers (SIGINT to the group, then SIGTERM, then
  SIGKILL after a grace period) and nothing is left running.
* Every byte of output goes, unbuffered and unaltered, to the log file, which is
  opened in append mode and never truncated.
* Lines are parsed for progress: ninja's ``[N/M]`` status (``NINJA_STATUS`` default
  ``"[%f/%t] "``; https://ninja-build.org/manual.html, NINJA_STATUS), CMake's configure
  lines, setuptools' ``building 'X' extension`` steps, pip's install lines.
  On a terminal a rich progress bar shows phase, ``[N/M]``, rate and ETA; elsewhere
  (CI) plain lines, at most one every few seconds.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import InterruptedBuildError, UsageError
from ..ui import console, echo_command

__all__ = ["ProgressTracker", "RunResult", "run_logged", "open_new_log"]

NINJA_STATUS = re.compile(rb"^\[(\d+)/(\d+)\]\s*(.*)$")
#: ninja edges that run on every build and change nothing that is compiled or linked, so they
#: do not count as work: CMake's install step, and PyTorch's ``gen_torch_version`` target
#: (``add_custom_target(gen_torch_version ALL ...)``, COMMENT "Regenerating version file...",
#: https://github.com/pytorch/pytorch/blob/v2.6.0/torch/CMakeLists.txt: a custom target is
#: always out of date).
NOT_WORK = (b"Install the project", b"Regenerating version file")
SETUPTOOLS_EXT = re.compile(rb"^building '([^']+)' extension")
#: seconds the display waits at the first compile for a total still being counted
WAIT_TOTAL_S = 120.0
#: One compile that setuptools (distutils' ``spawn``) echoes before running it when ninja is
#: off (``use_ninja=False``, as torch-scatter's setup.py): the compiler (a path or a name:
#: gcc, g++, cc, c++, clang, clang++, nvcc, with a target prefix or version suffix, or
#: torchbuild's wrapper of that name) with ``-c``.
SETUPTOOLS_COMPILE = re.compile(
    rb"^(?:\S*/)?(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|nvcc)(?:-[\d.]+)?\s(?:.*\s)?-c\s"
)
PHASES: list[tuple[re.Pattern[bytes], str]] = [
    (
        re.compile(
            rb"^-- (The (C|CXX|CUDA) compiler identification|Configuring done|Build files have been written"
            rb"|Check for working)"
        ),
        "configure",
    ),
    (re.compile(rb"^(Running|\+) cmake |cmake -G|cmake -S|^-- Configuring"), "configure"),
    (re.compile(rb"^running build_ext|^building '"), "python extensions"),
    (
        re.compile(
            rb"^(Installing collected packages|Successfully installed|running develop|Created wheel for"
            rb"|  Building editable)"
        ),
        "install",
    ),
]


@dataclass
class ProgressTracker:
    """Turns output lines into progress state (pure apart from the clock).

    ``phase`` is the current phase name; ``done``/``total`` the last ninja ``[N/M]``;
    ``steps`` the setuptools extensions started; ``rate`` edges per second over the
    current ninja run; ``eta`` seconds or None.
    """

    phase: str = "start"
    done: int = 0
    total: int = 0
    steps: list[str] = field(default_factory=list)
    last_line: str = ""
    #: ninja said ``ninja: no work to do.`` (nothing was out of date)
    ninja_idle: bool = False
    #: ninja edges run other than CMake's ``Install the project...`` step
    edges_run: int = 0
    ninja_runs: int = 0
    #: compiles a setuptools build without ninja has started (its echoed compiler commands)
    compiles: int = 0
    #: how many compiles that build runs in all (from the setup.py run or an earlier record;
    #: :mod:`torchbuild.actions.ext_progress`), 0 when unknown
    sources_total: int = 0
    #: seconds the same plan's compiles took in an earlier build (for the ETA), or None
    expected_seconds: float | None = None
    #: waits (at most the given seconds) for a total still being counted; called at the
    #: first compile and when the command ends
    wait_total: Callable[[float], None] | None = field(default=None, repr=False)
    _compile_start: float | None = None
    _run_start: float = 0.0
    _run_done0: int = 0
    phase_times: dict[str, float] = field(default_factory=dict)
    _phase_start: float = field(default_factory=time.monotonic)

    def _set_phase(self, phase: str, now: float) -> None:
        if phase != self.phase:
            self.phase_times[self.phase] = self.phase_times.get(self.phase, 0.0) + now - self._phase_start
            self.phase = phase
            self._phase_start = now

    def finish(self, now: float | None = None) -> None:
        """Close the current phase's timing."""
        now = time.monotonic() if now is None else now
        self.phase_times[self.phase] = self.phase_times.get(self.phase, 0.0) + now - self._phase_start
        self._phase_start = now

    def feed(self, line: bytes, now: float | None = None) -> None:
        """Update the state from one output line (bytes, without the newline)."""
        now = time.monotonic() if now is None else now
        stripped = line.strip()
        if not stripped:
            return
        self.last_line = stripped[:200].decode("utf-8", "replace")
        if stripped == b"ninja: no work to do.":
            self.ninja_idle = True
        m = NINJA_STATUS.match(stripped)
        if m:
            done, total = int(m.group(1)), int(m.group(2))
            if total != self.total or done < self.done:  # a new ninja run
                self._run_start, self._run_done0 = now, max(done - 1, 0)
                self.ninja_runs += 1
            self.done, self.total = done, total
            what = m.group(3)
            if not what.startswith(NOT_WORK):
                self.edges_run += 1
            self._set_phase("link" if what.startswith((b"Linking", b"Creating library")) else "compile", now)
            return
        if SETUPTOOLS_COMPILE.match(stripped):
            self.compiles += 1
            if self._compile_start is None:
                self._compile_start = now
                if not self.sources_total and self.wait_total is not None:
                    # the count of sources runs beside the build (a torch import, as pip's own
                    # run of setup.py); wait for it here, so [N/M] has its M from the first
                    # compile.  Only the display waits: the build's output stays in the pipe.
                    self.wait_total(WAIT_TOTAL_S)
            self._set_phase("python extensions", now)
            return
        m = SETUPTOOLS_EXT.match(stripped)
        if m:
            self.steps.append(m.group(1).decode("utf-8", "replace"))
            self._set_phase("python extensions", now)
            return
        for pattern, phase in PHASES:
            if pattern.search(stripped):
                self._set_phase(phase, now)
                return

    @property
    def no_work(self) -> bool:
        """True when ninja ran and found nothing out of date (only CMake's install step ran)."""
        return (self.ninja_idle or self.ninja_runs > 0) and self.edges_run == 0

    @property
    def rate(self) -> float | None:
        """Ninja edges finished per second in the current run, or None."""
        elapsed = time.monotonic() - self._run_start
        n = self.done - self._run_done0
        return n / elapsed if self.total and elapsed > 0 and n > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or None."""
        r = self.rate
        return (self.total - self.done) / r if r else None

    @property
    def compile_eta(self) -> float | None:
        """Seconds left in a setuptools build's compiles: the earlier build's time for them
        less the time since the first compile started here, scaled to what is left when that
        runs out (never below 0); None without an earlier build of the same plan."""
        if self.expected_seconds is None or self._compile_start is None:
            return None
        elapsed = time.monotonic() - self._compile_start
        left = self.expected_seconds - elapsed
        if left <= 0 and self.sources_total and self.compiles < self.sources_total:
            left = elapsed / max(self.compiles, 1) * (self.sources_total - self.compiles)
        return max(left, 0.0)

    def bar(self) -> tuple[int, int]:
        """(done, total) for a progress bar: ninja's ``[N/M]``, else the setuptools
        compiles and their total (0 when unknown)."""
        if self.total:
            return self.done, self.total
        return self.compiles, max(self.sources_total, self.compiles) if self.sources_total else 0

    def describe(self) -> str:
        """One plain line: ``[compile] 120/3400 (3.5%) 2.1/s ETA 26m10s``; a setuptools build
        without ninja: ``[python extensions] [3/7] building 'x._C' extension ETA 1m05s``
        (``[3]`` when the total is unknown)."""
        parts = [f"[{self.phase}]"]
        if self.total and self.phase in ("compile", "link"):
            parts.append(f"{self.done}/{self.total} ({100 * self.done / self.total:.1f}%)")
            if self.rate:
                parts.append(f"{self.rate:.1f}/s")
            if self.eta is not None:
                parts.append(f"ETA {_fmt_secs(self.eta)}")
        elif self.compiles and self.phase == "python extensions":
            total = max(self.sources_total, self.compiles) if self.sources_total else 0
            parts.append(f"[{self.compiles}/{total}]" if total else f"[{self.compiles}]")
            if self.steps:
                parts.append(f"building '{self.steps[-1]}' extension")
            eta = self.compile_eta
            if eta is not None:
                parts.append(f"ETA {_fmt_secs(eta)}")
        elif self.steps and self.phase == "python extensions":
            parts.append(f"step {len(self.steps)}: building '{self.steps[-1]}' extension")
        return " ".join(parts)


def _fmt_secs(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass
class RunResult:
    """``returncode`` of the command, ``seconds`` it ran, the tracker's final state."""

    returncode: int
    seconds: float
    tracker: ProgressTracker


def open_new_log(directory: Path, stem: str) -> tuple[Path, BinaryIO]:
    """Create a new log file ``<directory>/<stem>.log`` that did not exist before
    (``-1``, ``-2``... appended on a clash): a log is never overwritten.

    :returns: (path, binary file opened for append, unbuffered).
    :raises UsageError: the directory cannot be created or written.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _ignore_in_git(directory.parent)
    except OSError as exc:
        raise UsageError(
            f"cannot create the log folder {directory}: {exc.strerror}.",
            fix="make the source tree writable, or copy it somewhere writable.",
        ) from exc
    for i in range(1000):
        path = directory / (f"{stem}.log" if i == 0 else f"{stem}-{i}.log")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise UsageError(f"cannot write the log {path}: {exc.strerror}.", fix="make the tree writable.") from exc
        return path, os.fdopen(fd, "ab", buffering=0)
    raise UsageError(f"too many logs named {stem} in {directory}.", fix="remove old logs.")


def _ignore_in_git(folder: Path) -> None:
    """Make ``folder`` (``<tree>/.torchbuild``) ignore itself in git (a ``.gitignore`` of
    ``*`` inside it, as pytest does for ``.pytest_cache``), so builds leave ``git status``
    clean without touching the tree's own ignore files."""
    if folder.name == ".torchbuild" and not (folder / ".gitignore").exists():
        (folder / ".gitignore").write_text("# written by torchbuild: logs, records, wheels\n*\n", encoding="utf-8")


def _stop_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """Stop the command's whole process group: SIGINT (what a terminal's Ctrl-C sends),
    then SIGTERM, then SIGKILL, ``grace`` seconds apart while the leader lives; members
    that outlive the leader (a shell's background jobs ignore SIGINT) get SIGTERM and
    SIGKILL too, so nothing of the build keeps running."""
    pgid = proc.pid
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    for sig in (signal.SIGTERM, signal.SIGKILL):
        time.sleep(0.2)
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return


def run_logged(
    argv: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    log: BinaryIO,
    tracker: ProgressTracker | None = None,
    on_line: Callable[[bytes], None] | None = None,
    live: bool | None = None,
    env_diff: Mapping[str, str] | None = None,
) -> RunResult:
    """Run ``argv`` in its own process group, teeing output to ``log`` and progress.

    :param argv: the command (an argument list; never a shell string).
    :param cwd: working directory.
    :param env: the complete environment for the command.
    :param log: binary file (from :func:`open_new_log`); a header line with the command
        is written, then every output byte.
    :param tracker: progress state to update (a new one when None).
    :param live: rich progress bar (True) or plain lines (False); default: whether
        stderr is a terminal.
    :param env_diff: the plan's variables, shown in the echoed command line.
    :returns: the exit status, seconds, tracker.
    :raises InterruptedBuildError: on Ctrl-C, after the process group is stopped.
    :raises UsageError: the program does not exist.
    """
    tracker = tracker or ProgressTracker()
    live = console.is_terminal if live is None else live
    echo_command(argv, cwd=str(cwd), env_diff=env_diff)
    log.write(f"\n+ {' '.join(argv)}\n".encode())
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=str(cwd),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            bufsize=0,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        raise UsageError(
            f"cannot run {argv[0]!r}: not found.", fix=f"install {Path(argv[0]).name} or put it on PATH."
        ) from exc
    assert proc.stdout is not None
    progress: Any = None  # rich.progress.Progress on a terminal
    task = None
    last_print = 0.0
    last_desc = ""
    last_compiles = 0
    last_phase = ""

    def state() -> tuple[object, ...]:
        # what a plain line says, less its rate and ETA (they change with every second)
        return (tracker.phase, tracker.bar(), len(tracker.steps))

    def say(desc: str, elapsed: float) -> None:
        console.print(f"{desc}  ({_fmt_secs(elapsed)} elapsed)", markup=False, highlight=False)

    last_state = state()
    if live:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        progress = Progress(
            TextColumn("[bold]{task.fields[phase]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[last]}"),
            console=console.rich,
            transient=True,
        )
        progress.start()
        task = progress.add_task("build", total=None, phase="start", last="")
    buf = b""
    try:
        fd = proc.stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], 2.0)
            chunk = os.read(fd, 65536) if ready else None
            if chunk == b"":
                break
            if chunk is None:  # no output for a while: keep the display alive
                now = time.monotonic()
                if progress is None and now - last_print >= 60.0:
                    say(tracker.describe(), now - start)
                    last_print = now
                continue
            log.write(chunk)
            buf += chunk
            *lines, buf = re.split(rb"\r\n|\n|\r", buf)
            if len(buf) > 1 << 20:  # a line of any length: keep memory bounded
                lines.append(buf[:4096])
                buf = b""
            for line in lines:
                tracker.feed(line)
                if on_line:
                    on_line(line)
                if progress is None and tracker.phase != last_phase:
                    # a new phase (configure, compile, link...) is said at once, line by line: a
                    # fast build prints several phases in one read
                    last_phase, last_compiles = tracker.phase, tracker.compiles
                    last_desc, last_print, last_state = tracker.describe(), time.monotonic(), state()
                    say(last_desc, last_print - start)
            now = time.monotonic()
            if progress is not None and task is not None:
                done, total = tracker.bar()
                progress.update(
                    task, phase=tracker.phase, completed=done, total=total or None, last=tracker.last_line[-60:]
                )
            elif now - last_print >= (1.0 if tracker.compiles != last_compiles else 5.0) or (
                tracker.compiles != last_compiles and tracker.compiles == tracker.sources_total
            ):
                # a setuptools compile started: say so within a second, so [N/M] is seen to rise; the last one
                # ([M/M]) at once, which a fast (cached) build would otherwise finish before the second is up
                last_compiles = tracker.compiles
                desc = tracker.describe()
                if desc != last_desc or now - last_print >= 60.0:  # a heartbeat at least once a minute
                    say(desc, now - start)
                    last_desc, last_print, last_state = desc, now, state()
        if buf:
            tracker.feed(buf)
        rc = proc.wait()
    except KeyboardInterrupt:
        if progress is not None:
            progress.stop()
        console.print("Interrupted: stopping the build's process group...", markup=False)
        _stop_group(proc)
        log.write(b"\n[torchbuild] interrupted by the user (Ctrl-C); process group stopped\n")
        raise InterruptedBuildError(
            "interrupted; the build's processes were stopped and the tree is kept as it is.",
            fix="run the same torchbuild build command again to continue incrementally.",
        ) from None
    finally:
        if progress is not None:
            progress.stop()
        if proc.poll() is None:
            _stop_group(proc, grace=2.0)
    tracker.finish()
    if tracker.compiles and not tracker.sources_total and tracker.wait_total is not None:
        tracker.wait_total(60.0)
    seconds = time.monotonic() - start
    if not live and state() != last_state:  # the end adds something: not the last line again at another rate
        say(tracker.describe(), seconds)
    return RunResult(rc, seconds, tracker)
