"""The runner with real processes: CMake + Ninja output parsed for progress, logs that
are never overwritten, and Ctrl-C stopping the whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from torchbuild.actions.runner import ProgressTracker, open_new_log, run_logged


def _cmake_project(root: Path, n: int = 4) -> Path:
    root.mkdir()
    srcs = []
    for i in range(n):
        (root / f"f{i}.cpp").write_text(f"int f{i}() {{ return {i}; }}\n")
        srcs.append(f"f{i}.cpp")
    (root / "CMakeLists.txt").write_text(
        textwrap.dedent(f"""
        cmake_minimum_required(VERSION 3.18)
        project(p CXX)
        add_library(p SHARED {" ".join(srcs)})
    """)
    )
    return root


def test_ninja_progress_phases_and_full_log(tmp_path):
    proj = _cmake_project(tmp_path / "proj")
    log_path, log = open_new_log(tmp_path / "logs", "b")
    tracker = ProgressTracker()
    env = dict(os.environ)
    r1 = run_logged(
        ["cmake", "-S", str(proj), "-B", str(proj / "build"), "-G", "Ninja"],
        cwd=proj,
        env=env,
        log=log,
        tracker=tracker,
        live=False,
    )
    r2 = run_logged(["cmake", "--build", str(proj / "build")], cwd=proj, env=env, log=log, tracker=tracker, live=False)
    log.close()
    assert r1.returncode == 0 and r2.returncode == 0
    assert tracker.total == 5 and tracker.done == 5  # 4 objects + 1 link, as ninja counts them
    assert tracker.phase == "link"
    assert {"configure", "compile", "link"} <= set(tracker.phase_times)
    text = log_path.read_text()
    assert "Build files have been written" in text and "[5/5] Linking CXX shared library" in text


def test_tracker_reads_setuptools_steps_and_ninja_restarts():
    t = ProgressTracker()
    for line in [b"running build_ext", b"building 'pkg._a' extension", b"gcc -c a.cpp", b"building 'pkg._b' extension"]:
        t.feed(line, now=1.0)
    assert t.phase == "python extensions" and t.steps == ["pkg._a", "pkg._b"]
    assert t.compiles == 1 and "[1] building 'pkg._b' extension" in t.describe()  # no total known: [N] alone
    t2 = ProgressTracker()
    t2.feed(b"building 'pkg._a' extension", now=1.0)
    assert "step 1: building 'pkg._a' extension" in t2.describe()  # no compile echoed yet
    t.feed(b"[1/10] Building CXX object x.o", now=2.0)
    t.feed(b"[10/10] Linking CXX shared library libx.so", now=3.0)
    assert (t.done, t.total, t.phase) == (10, 10, "link")
    t.feed(b"[1/3] Building CXX object y.o", now=4.0)  # a second ninja run starts over
    assert (t.done, t.total, t.phase) == (1, 3, "compile")


def test_setuptools_compiles_count_up_to_the_known_total_with_an_eta_from_an_earlier_build():
    """Lines as setuptools echoes them without ninja (torch-scatter's log, pip -v indents them)."""
    t = ProgressTracker(sources_total=3, expected_seconds=30.0)
    lines = [
        b"  building 'torch_scatter._scatter_cpu' extension",
        b"  /t/.torchbuild/wrappers/g++ -Wsign-compare -DNDEBUG -g -fwrapv -O3 -Wall -fPIC -I/t/csrc "
        b"-c csrc/scatter.cpp -o /t/build/temp/csrc/scatter.o -O3 -std=c++17",
        b"  /t/.torchbuild/wrappers/g++ -I/t/csrc -c csrc/cpu/scatter_cpu.cpp -o /t/build/temp/scatter_cpu.o",
        b"  /t/.torchbuild/wrappers/g++ -shared /t/build/temp/scatter.o -o /t/build/lib/_scatter_cpu.so",
        b"  /usr/local/cuda/bin/nvcc -I/t/csrc -c csrc/cuda/scatter_cuda.cu -o /t/build/temp/scatter_cuda.o",
    ]
    seen = []
    for line in lines:
        t.feed(line)
        seen.append(t.compiles)
    assert seen == [0, 1, 2, 2, 3]  # the link line is not a compile
    text = t.describe()
    assert "[3/3]" in text and "building 'torch_scatter._scatter_cpu' extension" in text and "ETA" in text
    assert t.bar() == (3, 3)
    assert 0 <= t.compile_eta <= 30.0


def test_logs_are_never_overwritten(tmp_path):
    p1, f1 = open_new_log(tmp_path, "same")
    f1.write(b"first\n")
    f1.close()
    p2, f2 = open_new_log(tmp_path, "same")
    f2.close()
    assert p1 != p2 and p1.read_bytes() == b"first\n"
    assert (tmp_path / ".gitignore").exists() is False  # only a .torchbuild folder ignores itself


def test_failure_exit_code_is_returned_and_logged(tmp_path):
    log_path, log = open_new_log(tmp_path, "f")
    r = run_logged(
        [sys.executable, "-c", "import sys; print('boom\\r\\nx'); sys.exit(3)"],
        cwd=tmp_path,
        env=dict(os.environ),
        log=log,
        live=False,
    )
    log.close()
    assert r.returncode == 3 and b"boom" in log_path.read_bytes()


def test_ctrl_c_stops_the_whole_process_group(tmp_path):
    """A build whose command starts children of its own: SIGINT to torchbuild's process must
    leave none of them running.  The driver restores Python's Ctrl-C handler first: a test
    runner started as a background job without job control (``nohup ... &`` in a script, some
    CI runners) passes SIGINT down as ignored, and Python then never raises KeyboardInterrupt
    (the whole suite hung here for 60 s that way); a user's terminal delivers Ctrl-C."""
    pidfile = tmp_path / "pids"
    driver = tmp_path / "driver.py"
    driver.write_text(
        textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from torchbuild.actions.runner import open_new_log, run_logged
        from torchbuild.errors import InterruptedBuildError
        _, log = open_new_log(Path({str(tmp_path)!r}) / "logs", "int")
        script = "sleep 300 & echo $! >> {pidfile}; sleep 300 & echo $! >> {pidfile}; echo started; wait"
        try:
            run_logged(["sh", "-c", script], cwd={str(tmp_path)!r}, env=dict(os.environ), log=log, live=False)
        except InterruptedBuildError as exc:
            print("INTERRUPTED", exc.exit_code, flush=True)
            sys.exit(exc.exit_code)
    """)
    )
    proc = subprocess.Popen([sys.executable, str(driver)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not (pidfile.exists() and len(pidfile.read_text().split()) == 2):
        time.sleep(0.1)
    pids = [int(p) for p in pidfile.read_text().split()]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "INTERRUPTED 130" in out, err
    time.sleep(0.5)
    for pid in pids:
        alive = True
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
            alive = state not in ("Z", "X")
        except ProcessLookupError:
            alive = False
        assert not alive, f"child {pid} still running"
    log = next((tmp_path / "logs").glob("int*.log")).read_bytes()
    assert b"started" in log and b"interrupted by the user" in log


def test_no_work_is_recognised_from_ninja_output():
    t = ProgressTracker()
    t.feed(b"[0/1] Install the project...")
    t.feed(b"-- Up-to-date: /x/torch/lib/libc10.so")
    assert t.no_work
    t2 = ProgressTracker()
    t2.feed(b"[1/2] Building CXX object a.o")
    t2.feed(b"[1/1] Install the project...")
    assert not t2.no_work
    t3 = ProgressTracker()
    t3.feed(b"ninja: no work to do.")
    assert t3.no_work
    assert not ProgressTracker().no_work  # no ninja at all: unknown, not "no work"


def test_plain_progress_names_every_phase_of_a_build_faster_than_a_second(tmp_path, capfd):
    """A real process that prints a CMake configure and a ninja build in well under a second
    (the minimal PyTorch tree's develop build with a warm machine): the plain output still
    names each phase as it starts (it printed only [start], or only the last phase, when the
    phases came in one read or lasted under 1 s)."""
    import re
    import sys

    lines = [
        "-- Configuring done",
        "-- Build files have been written to: /t/build",
        "[1/3] Building CXX object c10/CMakeFiles/c10.dir/core/a.cpp.o",
        "[2/3] Building CXX object c10/CMakeFiles/c10.dir/core/b.cpp.o",
        "[3/3] Linking CXX shared library lib/libc10.so",
    ]
    # one write: the phases arrive in a single read, as a fast build's do
    script = f"import sys\nsys.stdout.write({chr(10).join(lines)!r} + chr(10))\nsys.stdout.flush()\n"
    _, log = open_new_log(tmp_path, "fast")
    r = run_logged([sys.executable, "-c", script], cwd=tmp_path, env=dict(os.environ), log=log, live=False)
    log.close()
    assert r.returncode == 0
    err = capfd.readouterr().err
    assert re.search(r"^\[compile\] ", err, re.M) and re.search(r"^\[link\] ", err, re.M), err


def test_plain_progress_does_not_repeat_the_last_step_at_the_end(tmp_path, capfd):
    """A real process whose one ninja step is printed, then it runs on a while: the final
    plain line is not a second ``[compile] 1/1`` that differs only by its rate (the no-op
    rebuild of the real 2.6.0 tree printed its last step twice)."""
    import re
    import sys

    script = "import time\nprint('[1/1] Building CXX object a.o', flush=True)\ntime.sleep(1.5)\n"
    _, log = open_new_log(tmp_path, "one")
    r = run_logged([sys.executable, "-c", script], cwd=tmp_path, env=dict(os.environ), log=log, live=False)
    log.close()
    assert r.returncode == 0
    err = capfd.readouterr().err
    assert len(re.findall(r"^\[compile\] 1/1 ", err, re.M)) == 1, err


def test_plain_progress_shows_setuptools_compiles_rising_to_the_total(tmp_path, capfd):
    """A real process that prints what setuptools prints without ninja, a compile every
    1.2 s: each [N/M] is shown as it happens (within a second), N rises and reaches M."""
    import re
    import sys

    script = (
        "import time\nprint(\"building 'pkg._C' extension\", flush=True)\n"
        "for i in range(3):\n"
        "    print(f'/t/.torchbuild/wrappers/g++ -fPIC -c csrc/s{i}.cpp -o /t/b/s{i}.o', flush=True)\n"
        "    time.sleep(1.2)\n"
        "print('/t/.torchbuild/wrappers/g++ -shared /t/b/s0.o -o /t/b/_C.so', flush=True)\n"
    )
    _, log = open_new_log(tmp_path, "p")
    tracker = ProgressTracker(sources_total=3)
    r = run_logged(
        [sys.executable, "-c", script], cwd=tmp_path, env=dict(os.environ), log=log, tracker=tracker, live=False
    )
    log.close()
    assert r.returncode == 0
    seen = [(int(n), int(m)) for n, m in re.findall(r"\[python extensions\] \[(\d+)/(\d+)\]", capfd.readouterr().err)]
    ns = [n for n, _ in seen]
    assert ns == sorted(ns) and len(set(ns)) >= 2, seen  # rises
    assert seen[-1] == (3, 3) and {m for _, m in seen} == {3}  # and reaches M


def test_pytorch_always_run_steps_are_not_work():
    """Lines of a real no-op incremental rebuild of the PyTorch 2.6.0 tree (its log, this
    project's recorded run): ninja runs only ``gen_torch_version`` ("Regenerating version
    file...", a custom target that is always out of date) and the install step; neither is
    work.  A compile step is."""
    idle = ProgressTracker()
    for line in [
        b"[1/1] Regenerating version file...",
        b"[1/2] Regenerating version file...",
        b"[1/2] Install the project...",
        b'-- Install configuration: "Release"',
    ]:
        idle.feed(line)
    assert idle.no_work
    busy = ProgressTracker()
    busy.feed(b"[1/3] Regenerating version file...")
    busy.feed(b"[2/3] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/Activation.cpp.o")
    assert not busy.no_work


def test_install_step_is_skipped_only_when_installed_libraries_are_current(tmp_path):
    """``installed_libs_current``: every library that has a copy in torch/lib must be as new
    as the built one (whole seconds, as CMake's install keeps them); a library the tree never
    installs is left out; no copy at all is not current."""
    from torchbuild.actions.incremental_state import installed_libs_current

    built, installed = tmp_path / "build" / "lib", tmp_path / "torch" / "lib"
    built.mkdir(parents=True)
    installed.mkdir(parents=True)
    assert not installed_libs_current(tmp_path)  # nothing installed yet
    for name in ("libc10.so.2.6.0", "libtorch_cpu.so.2.6.0"):
        (built / name).write_bytes(b"\x7fELF")
        (installed / name).write_bytes(b"\x7fELF")
        os.utime(installed / name, (1000.0, 1000.0))
        os.utime(built / name, (1000.4, 1000.4))  # same second
    (built / "libnnapi_backend.so.2.6.0").write_bytes(b"\x7fELF")  # built, never installed
    assert installed_libs_current(tmp_path)
    os.utime(built / "libtorch_cpu.so.2.6.0", (2000.0, 2000.0))  # rebuilt, install stopped before copying
    assert not installed_libs_current(tmp_path)
