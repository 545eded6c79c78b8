"""The commands a plan runs, by mode (pure: no probe, no I/O).

Split from :mod:`torchbuild.decisions.plan.make`, which decides the settings; this module
turns them into argument lists.  Sources: PyTorch's own ways to build
(https://github.com/pytorch/pytorch/blob/v2.6.0/CONTRIBUTING.md: ``python setup.py develop``, run
here as its pip equivalent ``pip install -e . -v --no-build-isolation``, which PyTorch's own
instructions adopted in https://github.com/pytorch/pytorch/pull/156027; ``pip wheel``) and the
CMake-only libtorch build (https://github.com/pytorch/pytorch/blob/v2.6.0/docs/libtorch.rst).
"""

from __future__ import annotations

from pathlib import Path

from .model import Command, Setting

__all__ = ["mode_commands", "incremental_commands"]


def mode_commands(
    *,
    mode: str,
    kind: str,
    install: bool,
    python: str,
    tree: str,
    wheel_dir: str,
    build_type: str,
    cuda: bool,
    arch_list: list[str],
    options: dict[str, Setting],
    env: dict[str, Setting],
    jobs: int,
) -> tuple[list[Command], str | None]:
    """The build commands for ``mode`` ("develop", "install", "wheel" or "libtorch").

    :param kind: "pytorch" or "extension" (an extension's pip steps take ``--no-deps``: its
        own requirements are resolved separately, with torch pinned).
    :param install: wheel mode: also install the wheel (``{wheel}`` is filled in at run time).
    :param env: the plan's environment; libtorch mode moves the compiler launchers from it
        into CMake definitions and drops the setup.py-only variables (mutated in place).
    :param jobs: parallel compile jobs (libtorch's ``cmake --build -j``).
    :returns: (commands in order, the CMake build folder or None for pip's own).
    """
    commands: list[Command] = []
    build_dir: str | None = None
    pip = [python, "-m", "pip"]
    if mode == "develop":
        commands.append(
            Command(
                pip
                + ["install", "-e", ".", "-v", "--no-build-isolation"]
                + (["--no-deps"] if kind == "extension" else []),
                tree,
                "build",
            )
        )
    elif mode == "install":
        commands.append(
            Command(
                pip + ["install", ".", "-v", "--no-build-isolation"] + (["--no-deps"] if kind == "extension" else []),
                tree,
                "build",
            )
        )
    elif mode == "wheel":
        commands.append(
            Command(pip + ["wheel", ".", "-v", "--no-build-isolation", "--no-deps", "-w", wheel_dir], tree, "build")
        )
        if install:
            commands.append(Command(pip + ["install", "--no-deps", "--force-reinstall", "{wheel}"], tree, "install"))
    else:  # libtorch
        build_dir = str(Path(tree) / "build-libtorch")
        defs = {
            "BUILD_SHARED_LIBS": "ON",
            "CMAKE_BUILD_TYPE": build_type,
            "BUILD_PYTHON": "OFF",
            "Python_EXECUTABLE": python,
            "USE_CUDA": "ON" if cuda else "OFF",
            "CMAKE_INSTALL_PREFIX": str(Path(tree) / ".torchbuild" / "libtorch"),
        }
        if cuda:
            defs["TORCH_CUDA_ARCH_LIST"] = ";".join(arch_list)
        for k, s in options.items():
            defs[k] = str(s.value)
        for lang in ["C", "CXX", "CUDA"]:
            if f"CMAKE_{lang}_COMPILER_LAUNCHER" in env:
                defs[f"CMAKE_{lang}_COMPILER_LAUNCHER"] = str(env.pop(f"CMAKE_{lang}_COMPILER_LAUNCHER").value)
        commands.append(
            Command(
                ["cmake", "-S", tree, "-B", build_dir, "-G", "Ninja"] + [f"-D{k}={v}" for k, v in defs.items()],
                tree,
                "configure",
            )
        )
        commands.append(Command(["cmake", "--build", build_dir, "--target", "install", "-j", str(jobs)], tree, "build"))
        for k in ("DEBUG", "REL_WITH_DEB_INFO", "USE_CUDA", "CMAKE_BUILD_TYPE"):
            env.pop(k, None)
    return commands, build_dir


def incremental_commands(tree: str, build_type: str, jobs: int) -> list[Command]:
    """The CMake build that PyTorch's setup.py runs on a configured ``build/``
    (``cmake --build build --target install --config TYPE -j N``,
    https://github.com/pytorch/pytorch/blob/v2.6.0/tools/setup_helpers/cmake.py), for an
    incremental rebuild of a tree installed in develop mode, as two commands: the build,
    then the install step, which the build skips when ninja had nothing to do
    (``Command.skip_when_no_work``)."""
    build = str(Path(tree) / "build")
    return [
        Command(["cmake", "--build", build, "--config", build_type, "-j", str(jobs)], tree, "build"),
        Command(
            ["cmake", "--build", build, "--target", "install", "--config", build_type, "-j", str(jobs)],
            tree,
            "install",
            skip_when_no_work=True,
        ),
    ]
