"""Fix commands that install a system package: the OS's package manager, ``sudo`` only
when not root (issue 10, item 6).  Doctor runs on the recorded facts of a real machine
(``cuda118_gcc12.json``: Debian, nvcc 11.8 with GCC 12) with ``root`` set either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchbuild.decisions.doctor import check
from torchbuild.decisions.install_cmd import install_command, package_manager
from torchbuild.facts.model import Facts, OSInfo
from torchbuild.knowledge import compat

DATA = Path(__file__).resolve().parents[1] / "data" / "facts"


@pytest.mark.parametrize(
    "os_info,expected",
    [
        (OSInfo(system="Linux", distro_id="debian", root=True), "apt-get install ccache"),
        (OSInfo(system="Linux", distro_id="ubuntu", root=False), "sudo apt-get install ccache"),
        (OSInfo(system="Linux", distro_id="ubuntu", root=None), "sudo apt-get install ccache"),
        (OSInfo(system="Linux", distro_id="fedora", root=True), "dnf install ccache-dnf"),
        (OSInfo(system="Linux", distro_id="rocky", root=False), "sudo dnf install ccache-dnf"),
        (OSInfo(system="Darwin", root=False), "brew install ccache-brew"),
        (OSInfo(system="Linux", distro_id="arch", root=True), "install ccache with your package manager"),
    ],
)
def test_install_command_fits_the_os_and_the_user(os_info, expected):
    assert install_command(os_info, "ccache", "ccache-dnf", "ccache-brew") == expected


def test_no_name_for_that_manager_falls_back_to_the_sentence():
    assert install_command(OSInfo(system="Darwin"), "g++-12", other="install a newer clang") == "install a newer clang"
    assert package_manager(OSInfo(system="Linux", distro_id="amzn")) == "dnf"


@pytest.mark.parametrize("root", [True, False])
def test_doctor_fix_begins_with_sudo_only_when_not_root(root):
    facts = Facts.load(DATA / "cuda118_gcc12.json")
    facts.os.root = root
    [f] = [f for f in check(facts, wants_cuda=True, arch_list=["8.9"]) if f.check == "host_compiler"]
    limit = compat.host_compiler_limits("11.8").gcc_max
    expected = f"apt-get install g++-{limit} && export CC=gcc-{limit}"
    assert f.fix.startswith(("sudo " if not root else "") + expected)
    assert root is False or "sudo" not in f.fix


def test_probed_os_says_whether_this_is_root():
    import os

    from torchbuild.facts.system import os_info

    assert os_info().root is (os.geteuid() == 0)
