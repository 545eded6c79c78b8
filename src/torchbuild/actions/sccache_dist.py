"""sccache-dist configuration files: scheduler, build server and client.

The formats follow sccache's docs/DistributedQuickstart.md: the scheduler's
``public_addr``, ``[client_auth]`` and ``[server_auth]``; a build server's ``cache_dir``,
``public_addr``, ``scheduler_url``, ``[builder]`` (``type = "overlay"``, ``build_dir``,
``bwrap_path``: build servers sandbox compiles with bubblewrap and run as root) and
``[scheduler_auth]``; the client's ``[dist]`` ``scheduler_url``, ``toolchains``,
``toolchain_cache_size`` and ``[dist.auth]``.  Clients and servers authenticate with
shared random tokens (``type = "token"`` on both sides; the docs also describe
``jwt_hs256`` server tokens made with ``sccache-dist auth``).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from ..errors import UsageError

__all__ = ["write_dist_configs", "dist_configs"]


def _addr(value: str, what: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UsageError(f"{what} {value!r}: give HOST:PORT.", fix=f"e.g. {what} 10.0.0.1:10600")
    return host, int(port)


def dist_configs(*, scheduler: str, server: str, client_token: str, server_token: str) -> dict[str, str]:
    """The three TOML files as text: ``scheduler.conf``, ``server.conf``, ``client.conf``.

    :param scheduler: ``HOST:PORT`` the scheduler listens on (clients and servers use
        ``http://HOST:PORT``); ``server``: a build server's public ``HOST:PORT``.
    :param client_token: shared secret between clients and the scheduler;
        ``server_token``: between build servers and the scheduler.
    :raises UsageError: an address that is not HOST:PORT.
    """
    sh, sp = _addr(scheduler, "--scheduler")
    _addr(server, "--server")
    url = f"http://{sh}:{sp}"
    return {
        "scheduler.conf": (
            "# sccache-dist scheduler (sccache docs/DistributedQuickstart.md). "
            "Start: sccache-dist scheduler --config scheduler.conf\n"
            f'public_addr = "{sh}:{sp}"\n\n'
            "[client_auth]\n"
            'type = "token"\n'
            f'token = "{client_token}"\n\n'
            "[server_auth]\n"
            'type = "token"\n'
            f'token = "{server_token}"\n'
        ),
        "server.conf": (
            "# sccache-dist build server (Linux, as root: it sandboxes compiles with bubblewrap >= 0.3.0).\n"
            "# Start: sudo sccache-dist server --config server.conf\n"
            'cache_dir = "/tmp/sccache-dist-toolchains"\n'
            f'public_addr = "{server}"\n'
            f'scheduler_url = "{url}"\n\n'
            "[builder]\n"
            'type = "overlay"\n'
            'build_dir = "/tmp/sccache-dist-build"\n'
            'bwrap_path = "/usr/bin/bwrap"\n\n'
            "[scheduler_auth]\n"
            'type = "token"\n'
            f'token = "{server_token}"\n'
        ),
        "client.conf": (
            "# sccache client: SCCACHE_CONF=<this file>, then sccache --stop-server; "
            "check with sccache --dist-status.\n"
            "[dist]\n"
            f'scheduler_url = "{url}"\n'
            "toolchains = []\n"
            "toolchain_cache_size = 5368709120\n\n"
            "[dist.auth]\n"
            'type = "token"\n'
            f'token = "{client_token}"\n'
        ),
    }


_README = """sccache-dist files written by `torchbuild cache config --dist`.

1. Scheduler (one per cluster):  sccache-dist scheduler --config scheduler.conf
2. Each build server (root, bubblewrap installed; edit public_addr per machine):
       sudo sccache-dist server --config server.conf
3. Each client:  export SCCACHE_CONF=$PWD/client.conf; sccache --stop-server; sccache --dist-status
   then: torchbuild build SOURCE --cache sccache --distribute sccache-dist --jobs <cluster CPUs>
The tokens are secrets: keep these files readable only by their users. sccache compiles
locally whenever the scheduler or a server cannot be reached.
"""


def write_dist_configs(folder: Path, *, scheduler: str, server: str) -> list[Path]:
    """Write ``scheduler.conf``, ``server.conf``, ``client.conf`` and ``README.txt`` into
    ``folder`` with fresh random tokens (:func:`secrets.token_hex`, 32 bytes), mode 0600.

    :returns: the files written.
    :raises UsageError: a file exists already (never overwritten) or a bad address.
    """
    texts = dist_configs(
        scheduler=scheduler, server=server, client_token=secrets.token_hex(32), server_token=secrets.token_hex(32)
    )
    texts["README.txt"] = _README
    folder = Path(folder)
    for name in texts:
        if (folder / name).exists():
            raise UsageError(
                f"{folder / name} exists; torchbuild does not overwrite configuration.",
                fix="choose another --out folder or move the old files away.",
            )
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in texts.items():
        p = folder / name
        p.write_text(text, encoding="utf-8")
        p.chmod(0o600 if name.endswith(".conf") else 0o644)
        out.append(p)
    return out
