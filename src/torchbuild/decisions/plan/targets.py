"""``--cmake-target``: build only some CMake targets of a PyTorch tree."""

from __future__ import annotations

from pathlib import Path

from ...errors import ConflictingOptionsError, UsageError
from .model import Command, Setting

__all__ = ["cmake_target_commands"]


def cmake_target_commands(
    targets: list[str], kind: str, backend: str, mode: str, python: str, tree: str, jobs: int
) -> tuple[list[Command], Setting]:
    """Commands that configure a PyTorch tree as its setup.py does (``setup.py build --cmake-only``:
    the same environment-to-``-D`` translation) and build only ``targets`` with CMake.

    :param targets: CMake target names (``["c10"]``).
    :param jobs: parallel compile jobs for ninja.
    :returns: (commands, the plan's ``install`` setting: off).
    :raises ConflictingOptionsError: not a setup.py PyTorch tree, or libtorch mode.
    :raises UsageError: a name that is not a CMake target name.
    """
    if kind != "pytorch" or backend != "setup.py" or mode == "libtorch":
        raise ConflictingOptionsError(
            "--cmake-target builds targets of a PyTorch tree whose build front end is setup.py "
            f"(this is {'an extension' if kind != 'pytorch' else backend + ' / mode ' + mode}).",
            fix="drop --cmake-target.",
        )
    for t in targets:
        if not t or not all(ch.isalnum() or ch in "_-.+/" for ch in t):
            raise UsageError(f"--cmake-target {t!r} is not a CMake target name (e.g. c10, torch_cpu).")
    build = str(Path(tree) / "build")
    cmds = [
        Command([python, "setup.py", "build", "--cmake-only"], tree, "configure"),
        Command(["cmake", "--build", build, "--target", *targets, "--", f"-j{jobs}"], tree, "build"),
    ]
    return cmds, Setting(False, "--cmake-target builds CMake targets only; nothing to install")
