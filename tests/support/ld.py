"""Real GNU ld failing on a symbol version: the shape of a prebuilt library linked against an older copy of a library
it needs (a glibc without GLIBC_2.27, a libcudart.so.12 of an older CUDA 12), built here with version scripts."""

from __future__ import annotations

import subprocess
from pathlib import Path


def gcc(args: list[str], cwd: Path) -> None:
    """Run the real ``gcc`` with ``args`` in ``cwd`` (a build step that must succeed; at most 120 s).

    :raises AssertionError: gcc failed (its stderr is the message).
    """
    out = subprocess.run(["gcc", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr


def link_against_older(tmp_path: Path, *, soname: str, version: str, symbol: str) -> subprocess.CompletedProcess[str]:
    """Link a program with ``libuser.so`` (built against a ``soname`` that exports ``symbol`` at the version node
    ``version``) and an older ``soname`` without that symbol; returns the failed link's result (gcc's stdout/stderr).

    :param tmp_path: an empty folder; the sources, both libraries (``new/``, ``old/``) and the program go there.
    :param soname: the library's file name and DT_SONAME, e.g. ``"libcudart.so.12"`` (a ``lib<name>.so...`` name).
    :param version: the symbol version of ``symbol`` in the newer library, e.g. ``"GLIBC_9.99"``.
    :param symbol: a C function name the newer library defines and ``libuser.so`` calls.
    :raises AssertionError: a build step that should succeed failed (its stderr is the message).
    """
    name = soname.split(".so")[0].removeprefix("lib")
    for d in ("new", "old"):
        (tmp_path / d).mkdir()
    (tmp_path / "new.c").write_text(f"int {symbol}(void) {{ return 1; }}\nint other(void) {{ return 0; }}\n")
    (tmp_path / "new.map").write_text(f"{version} {{ global: {symbol}; other; local: *; }};\n")
    (tmp_path / "old.c").write_text("int other(void) { return 0; }\n")
    (tmp_path / "old.map").write_text("OLD_1.0 { global: other; local: *; };\n")
    (tmp_path / "user.c").write_text(f"int {symbol}(void);\nint user(void) {{ return {symbol}(); }}\n")
    (tmp_path / "main.c").write_text("int user(void);\nint main(void) { return user(); }\n")
    so = ["-shared", "-fPIC", f"-Wl,-soname,{soname}"]
    for d in ("new", "old"):
        gcc([*so, f"{d}.c", f"-Wl,--version-script={d}.map", "-o", f"{d}/{soname}"], tmp_path)
        if soname != f"lib{name}.so":
            (tmp_path / d / f"lib{name}.so").symlink_to(soname)
    gcc(["-shared", "-fPIC", "user.c", "-Lnew", f"-l{name}", "-o", "libuser.so"], tmp_path)
    return subprocess.run(
        ["gcc", "main.c", "-L.", "-luser", "-Lold", f"-l{name}", "-Wl,-rpath-link,old", "-o", "main"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
