"""Benchmark: cold build of torch-scatter==2.1.2 (CPU) by torchbuild vs plain pip.

Baseline (issue 2): ``pip wheel --no-build-isolation --no-deps`` of the same sdist on
the same machine in the same run.  The package passes ``use_ninja=False``, so plain
pip compiles one extension after another; torchbuild compiles them in parallel
(``build_ext --parallel``).  Goal: ratio <= 0.6 on 2 cores.

Run by hand (about 8 minutes per round on 2 cores):

    python benchmarks/bench_scatter_build.py [--rounds 1]

Each round unpacks a fresh copy of the sdist for each side (no build/ left over, no
compiler cache: ``--cache none``), alternating which side goes first.  torchbuild's
side includes what it adds to a first build of a tree: doctor, the plan, and the run of
setup.py beside the build that counts the sources for its ``[N/M]`` line.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path


def fresh_tree(sdist: Path, where: Path) -> Path:
    where.mkdir(parents=True)
    with tarfile.open(sdist) as tf:
        tf.extractall(where, filter="data")
    return next(where.iterdir())


def timed(argv: list[str], cwd: Path) -> float:
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--no-build-isolation",
                "-d",
                str(tmp / "sd"),
                "torch-scatter==2.1.2",
            ],
            check=True,
        )
        sdist = next((tmp / "sd").glob("*.tar.gz"))
        ours, base = [], []
        for r in range(args.rounds):
            order = ["tb", "pip"] if r % 2 == 0 else ["pip", "tb"]
            for side in order:
                tree = fresh_tree(sdist, tmp / f"{side}-{r}")
                out = tmp / f"out-{side}-{r}"
                if side == "tb":
                    s = timed(
                        [
                            sys.executable,
                            "-m",
                            "torchbuild",
                            "build",
                            str(tree),
                            "--no-install",
                            "--mode",
                            "wheel",
                            "--cache",
                            "none",
                            "--wheel-dir",
                            str(out),
                            "--no-verify",
                        ],
                        tree,
                    )
                    ours.append(s)
                else:
                    s = timed(
                        [
                            sys.executable,
                            "-m",
                            "pip",
                            "wheel",
                            "--no-build-isolation",
                            "--no-deps",
                            "-w",
                            str(out),
                            str(tree),
                        ],
                        tree,
                    )
                    base.append(s)
                print(f"round {r}: {side:<4} {s:7.1f} s", flush=True)
                shutil.rmtree(tree)
        a, b = min(ours), min(base)
        print(
            f"torchbuild build: {a:.1f} s   pip wheel: {b:.1f} s   ratio: {a / b:.2f} (goal <= 0.6: "
            f"{'met' if a / b <= 0.6 else 'MISSED'})"
        )


if __name__ == "__main__":
    main()
