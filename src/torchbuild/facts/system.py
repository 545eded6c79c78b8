"""Operating system, libc, CPU cores, memory and free disk.

Sources: ``platform``, ``/etc/os-release`` (freedesktop os-release(5)), ``os.confstr
("CS_GNU_LIBC_VERSION")`` (glibc), ``/lib/ld-musl-*`` (musl), ``os.sched_getaffinity``,
cgroup v2 ``cpu.max``/``memory.max`` and v1 ``cpu.cfs_quota_us``/``memory.limit_in_bytes``,
:func:`psutil.virtual_memory` and :func:`shutil.disk_usage`.
"""

from __future__ import annotations

import glob
import os
import platform
import shutil
from pathlib import Path

from ._util import read_text
from .model import OSInfo, Resources

__all__ = ["os_info", "resources", "parse_os_release", "existing_ancestor"]


def parse_os_release(text: str) -> dict[str, str]:
    """``KEY=value`` lines of an os-release file, quotes removed."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def os_info() -> OSInfo:
    """The running OS: system, kernel release, distro (``/etc/os-release``), libc and version."""
    info = OSInfo(system=platform.system(), release=platform.release(), machine=platform.machine())
    if hasattr(os, "geteuid"):
        info.root = os.geteuid() == 0
    text = read_text("/etc/os-release") or read_text("/usr/lib/os-release")
    if text:
        rel = parse_os_release(text)
        info.distro = rel.get("PRETTY_NAME") or rel.get("NAME")
        info.distro_id = (rel.get("ID") or "").lower() or None
        info.distro_version = rel.get("VERSION_ID")
    if info.system == "Linux":
        try:
            libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
        except (ValueError, OSError):
            libc = ""
        if libc.startswith("glibc "):
            info.libc, info.libc_version = "glibc", libc.split()[1]
        elif glob.glob("/lib/ld-musl-*"):
            info.libc = "musl"
    return info


def _cgroup_limits() -> tuple[float | None, int | None, int | None]:
    """(cpu cores quota, memory limit bytes, memory currently used bytes) of this cgroup."""
    cpu = mem = used = None
    # cgroup v2: the process's group from /proc/self/cgroup ("0::/path")
    rel = ""
    text = read_text("/proc/self/cgroup") or ""
    for line in text.splitlines():
        if line.startswith("0::"):
            rel = line[3:].strip()
    for base in ([f"/sys/fs/cgroup{rel}"] if rel and rel != "/" else []) + ["/sys/fs/cgroup"]:
        cm = read_text(os.path.join(base, "cpu.max"))
        if cm and cpu is None:
            quota, _, period = cm.strip().partition(" ")
            if quota.isdigit() and period.isdigit() and int(period) > 0:
                cpu = int(quota) / int(period)
        mm = read_text(os.path.join(base, "memory.max"))
        if mm and mem is None and mm.strip().isdigit():
            mem = int(mm.strip())
            cur = read_text(os.path.join(base, "memory.current"))
            used = int(cur.strip()) if cur and cur.strip().isdigit() else None
    # cgroup v1
    if cpu is None:
        q = read_text("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        p = read_text("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
        try:
            if q and p and int(q) > 0 and int(p) > 0:
                cpu = int(q) / int(p)
        except ValueError:
            pass
    if mem is None:
        m = read_text("/sys/fs/cgroup/memory/memory.limit_in_bytes")
        if m and m.strip().isdigit() and int(m) < (1 << 60):
            mem = int(m)
            u = read_text("/sys/fs/cgroup/memory/memory.usage_in_bytes")
            used = int(u.strip()) if u and u.strip().isdigit() else None
    return cpu, mem, used


def existing_ancestor(path: Path) -> Path:
    """``path`` or its nearest existing parent (the build folder may not exist yet)."""
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def resources(disk_path: Path | None = None) -> Resources:
    """Usable CPU cores, memory and free disk at ``disk_path`` (default: the current folder).

    Cores: ``os.sched_getaffinity`` (else ``os.cpu_count``), capped by a cgroup CPU quota.
    Memory: :func:`psutil.virtual_memory` ``total``/``available`` (bytes), capped by a cgroup
    memory limit.  Disk: ``shutil.disk_usage(...).free`` (bytes) at the nearest existing folder.
    """
    import psutil  # imported here: 30 ms we only pay inside the thread pool

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    vm = psutil.virtual_memory()
    res = Resources(cpu_count=cores, memory_total_bytes=int(vm.total), memory_available_bytes=int(vm.available))
    if platform.system() == "Linux":
        cpu, mem, used = _cgroup_limits()
        if cpu is not None:
            res.cgroup_cpu_limit = cpu
            res.cpu_count = max(1, min(res.cpu_count, int(cpu)))
        if mem is not None and mem < res.memory_total_bytes:
            res.cgroup_memory_limit_bytes = mem
            res.memory_total_bytes = mem
            free_in_group = mem - used if used is not None else mem
            res.memory_available_bytes = max(0, min(res.memory_available_bytes, free_in_group))
    target = existing_ancestor(disk_path or Path.cwd())
    res.disk_path = str(target)
    try:
        res.disk_free_bytes = shutil.disk_usage(target).free
    except OSError:
        res.disk_free_bytes = None
    return res
