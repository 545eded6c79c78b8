"""Benchmark: torchbuild on the real PyTorch 2.6.0 tree (issue 9).  Run by hand; prints ratios.

1. ``torchbuild doctor TREE`` against ``python -m torch.utils.collect_env`` (PyTorch's own
   environment report, from the torch installed in ``--python``).  Goal <= 0.1.
2. On a fully built tree (``build/`` complete, the tree installed in develop mode by
   torchbuild, so its incremental path applies): a no-op rebuild, and a rebuild after
   touching one file under ``aten/src/ATen/native/`` (mtime only), each with
   ``torchbuild build TREE <same plan>`` against PyTorch 2.6.0's own
   ``python setup.py develop`` in the same tree with the same environment (the plan's
   variables, from ``torchbuild plan --export dotenv``).  Goal <= 0.3 for each.

Each timing is the median of ``--repeat`` runs; the machine's load is printed with them
(a build running beside the benchmark makes every figure pessimistic).

    python benchmarks/bench_real_tree.py --tree /path/pytorch-v2.6.0 --python /path/venv/bin/python \
        [--plan-args "--profile-file F --profile P --system-libs"] [--skip-rebuild] [--repeat N] [--repeat-doctor N]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True) -> float:
    """Wall seconds of one run of ``argv`` (output discarded; a failure raises)."""
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if check and proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {shlex.join(argv)}\n{proc.stderr[-3000:]}")
    return dt


def median(argv: list[str], n: int, **kw) -> float:
    return statistics.median(timed(argv, **kw) for _ in range(n))


def plan_env(tree: Path, python: str, plan_args: list[str]) -> dict[str, str]:
    """The environment ``torchbuild plan --export dotenv`` gives for the tree."""
    out = subprocess.run(
        [sys.executable, "-m", "torchbuild", "plan", str(tree), "--python", python, *plan_args, "--export", "dotenv"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    env = dict(os.environ)
    for line in out.splitlines():
        k, _, v = line.partition("=")
        if k:
            env[k] = v.strip().strip("'\"")
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, required=True)
    ap.add_argument("--python", required=True, help="interpreter with torch installed (collect_env; the build's)")
    ap.add_argument("--plan-args", default="", help="extra plan/build flags (profile, --system-libs ...)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per rebuild timing (median)")
    ap.add_argument("--repeat-doctor", type=int, default=5, help="runs per doctor / collect_env timing (median)")
    ap.add_argument("--skip-rebuild", action="store_true")
    ap.add_argument("--touch", default="aten/src/ATen/native/Activation.cpp")
    args = ap.parse_args()
    tree = args.tree.resolve()
    extra = shlex.split(args.plan_args)
    print(f"load average before: {os.getloadavg()}")

    tb = [sys.executable, "-m", "torchbuild"]
    doctor = median(tb + ["doctor", str(tree), "--python", args.python, "--no-cuda"], args.repeat_doctor, check=False)
    collect = median([args.python, "-m", "torch.utils.collect_env"], args.repeat_doctor, cwd=Path("/"))
    print(
        f"doctor on the real tree: {doctor:.2f} s; collect_env: {collect:.2f} s; ratio {doctor / collect:.3f} "
        f"(goal <= 0.1)"
    )
    if args.skip_rebuild:
        return
    env = plan_env(tree, args.python, extra)
    build = tb + ["build", str(tree), "--python", args.python, "--mode", "develop", "--no-verify", *extra]
    setup = [args.python, "setup.py", "develop"]
    # warm both paths once (the first torchbuild run after a setup.py run sees a new record)
    timed(build, cwd=tree)
    timed(setup, cwd=tree, env=env)
    timed(build, cwd=tree)
    noop_tb = median(build, args.repeat, cwd=tree)
    noop_setup = median(setup, args.repeat, cwd=tree, env=env)
    timed(build, cwd=tree)  # back on torchbuild's record
    print(
        f"no-op rebuild: torchbuild {noop_tb:.1f} s; setup.py develop {noop_setup:.1f} s; "
        f"ratio {noop_tb / noop_setup:.3f} (goal <= 0.3)"
    )
    touched = tree / args.touch

    def touch_then(argv: list[str], **kw) -> float:
        touched.touch()
        return timed(argv, **kw)

    t_tb = statistics.median(touch_then(build, cwd=tree) for _ in range(args.repeat))
    t_setup = statistics.median(touch_then(setup, cwd=tree, env=env) for _ in range(args.repeat))
    timed(build, cwd=tree)
    print(
        f"rebuild after touching {args.touch}: torchbuild {t_tb:.1f} s; setup.py develop {t_setup:.1f} s; "
        f"ratio {t_tb / t_setup:.3f} (goal <= 0.3)"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
