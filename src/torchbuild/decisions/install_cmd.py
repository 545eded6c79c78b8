"""The command that installs a system package, as a fix line says it (pure; no I/O).

The package manager follows the detected OS (``OSInfo.system`` and ``distro_id`` from
``/etc/os-release``): ``apt-get`` on Debian and its derivatives, ``dnf`` on Fedora and the
RHEL family, ``brew`` on macOS.  ``sudo`` comes first only when the user is not root
(``OSInfo.root``; unknown counts as not root, as on a workstation): a root shell, a
container's usual user, may have no ``sudo`` at all.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEBIAN_LIKE", "RHEL_LIKE", "package_manager", "sudo_prefix", "install_command"]

DEBIAN_LIKE = ("debian", "ubuntu", "linuxmint", "pop", "raspbian", "kali", "elementary")
RHEL_LIKE = ("fedora", "rhel", "centos", "rocky", "almalinux", "amzn", "ol")


def package_manager(os_info: Any) -> str | None:
    """``"apt-get"``, ``"dnf"``, ``"brew"`` or None for ``os_info`` (an ``OSInfo``)."""
    if os_info is None:
        return None
    if getattr(os_info, "system", "") == "Darwin":
        return "brew"
    did = (getattr(os_info, "distro_id", None) or "").lower()
    if did in DEBIAN_LIKE:
        return "apt-get"
    if did in RHEL_LIKE:
        return "dnf"
    return None


def sudo_prefix(os_info: Any) -> str:
    """``""`` for root (and for brew, which refuses to run as root), else ``"sudo "``."""
    if getattr(os_info, "root", None) is True or package_manager(os_info) == "brew":
        return ""
    return "sudo "


def install_command(
    os_info: Any, apt: str, dnf: str | None = None, brew: str | None = None, other: str | None = None
) -> str:
    """``apt-get install APT`` / ``dnf install DNF`` / ``brew install BREW`` for this OS,
    with ``sudo`` only when not root; ``other`` (or a plain sentence) where none fits or
    the package has no name for that manager."""
    pm = package_manager(os_info)
    pkg = {"apt-get": apt, "dnf": dnf, "brew": brew}.get(pm or "")
    if pm is None or not pkg:
        return other or f"install {apt} with your package manager"
    return f"{sudo_prefix(os_info)}{pm} install {pkg}"
