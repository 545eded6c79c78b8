"""Benchmark: ``torchbuild doctor`` wall time against ``python -m torch.utils.collect_env``.

Run by hand (not part of the test suite)::

    python benchmarks/bench_doctor.py [--runs 5] [--python PY]

Both commands run in the same environment (``PY``, default this interpreter, which must
have torch installed), alternating doctor / collect_env so load and caches hit both
alike.  Prints each run, the medians and the ratio doctor / collect_env (goal: <= 0.25).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def timed(argv: list[str]) -> float:
    """Wall seconds of one run of ``argv`` (output discarded; a failure is reported)."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - t0
    if p.returncode not in (0, 1):  # doctor exits 1 when it finds an error: still a complete run
        sys.exit(f"{argv} failed ({p.returncode}): {p.stderr[-500:]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    doctor = [a.python, "-m", "torchbuild", "doctor", "--python", a.python]
    collect = [a.python, "-m", "torch.utils.collect_env"]
    timed(doctor), timed(collect)  # warm-up: first-run disk caches
    d_times, c_times = [], []
    for i in range(a.runs):
        d_times.append(timed(doctor))
        c_times.append(timed(collect))
        print(f"run {i + 1}: doctor {d_times[-1]:.3f} s   collect_env {c_times[-1]:.3f} s")
    d, c = statistics.median(d_times), statistics.median(c_times)
    print(f"median: doctor {d:.3f} s, collect_env {c:.3f} s")
    print(f"ratio doctor/collect_env = {d / c:.3f} (goal <= 0.25)")


if __name__ == "__main__":
    main()
