"""Benchmark `torchbuild diagnose` against grep on a large noisy ninja log (run by hand).

    python benchmarks/bench_diagnose.py [--mb 220] [--oneline-gb 0] [--failed-every 0]

Generates, in a temp directory, a PyTorch-like ninja log of --mb MB: progress lines,
compiler warnings with source snippets and notes from parallel jobs, and one real
failure (a FAILED block with a compile error) near the top.  Then times, in the same
run, `grep -c -E 'error|FAILED|fatal' LOG` and `python -m torchbuild diagnose LOG --json`
(end to end: interpreter start, imports, reading, diagnosis), and prints the ratio
(goal <= 3.0; best of --repeat runs after a first one that fills a private knowledge cache,
whose time is printed too) and the peak memory of diagnose (goal <= 150 MB, read from VmHWM).
With --oneline-gb N it also checks a log made of one N GB line.  With --failed-every N, one
step in N of the noise fails too (a `ninja -k 0` log: a FAILED: line, its command and a
compile error), so that the cost of reading many failed steps is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEAK = (
    "import json, re, sys, runpy\n"
    "sys.argv = ['torchbuild', 'diagnose', sys.argv[1], '--json']\n"
    "from torchbuild.cli import main\n"
    "import io, contextlib\n"
    "buf = io.StringIO()\n"
    "with contextlib.redirect_stdout(buf):\n"
    "    rc = main(sys.argv[1:])\n"
    "doc = json.loads(buf.getvalue())\n"
    "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
    "print(json.dumps({'rc': rc, 'cause': doc['causes'][0]['cause_id'], 'line': doc['causes'][0]['line'], "
    "'lines': doc['stats']['lines'], 'hwm_kib': hwm}))\n"
)


def make_log(path: Path, mb: int, failed_every: int = 0) -> int:
    rnd = random.Random(7)
    total = 600000
    head = [
        "-- Build files have been written to: /src/pytorch/build",
        "[1/8000] Generating ATen headers",
        "[2/8000] Building CXX object c10/CMakeFiles/c10.dir/core/Allocator.cpp.o",
        "FAILED: caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/BinaryOps.cpp.o",
        "/usr/bin/c++ -DAT_PER_OPERATOR_HEADERS -I/src/pytorch/aten/src -Wall -Werror=return-type -O3 -fPIC "
        "-std=gnu++17 -c /src/pytorch/aten/src/ATen/native/BinaryOps.cpp",
        "/src/pytorch/aten/src/ATen/native/BinaryOps.cpp:120:3: error: 'add_stub_v2' was not declared in this scope",
        "  120 |   add_stub_v2(device_type, iter, alpha);",
        "      |   ^~~~~~~~~~~",
    ]
    noise = []
    for i in range(2000):
        f = f"aten/src/ATen/native/cpu/Kernel{i}.cpp"
        noise.append(f"[{i + 3}/{total}] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/{f}.o")
        if failed_every and i % failed_every == 0:
            noise += [
                f"FAILED: caffe2/CMakeFiles/torch_cpu.dir/__/{f}.o",
                f"/usr/bin/c++ -I/src/pytorch/aten/src -O3 -fPIC -std=gnu++17 -c /src/pytorch/{f}",
                f"/src/pytorch/{f}:{rnd.randint(10, 900)}:3: error: 'kernel_stub_{i}' was not declared in this scope",
            ]
        if rnd.random() < 0.35:
            noise += [
                f"/src/pytorch/{f}: In function 'void at::native::kernel_{i}(at::TensorIterator&)':",
                f"/src/pytorch/{f}:{rnd.randint(10, 900)}:12: warning: unused variable 'tmp_{i}' [-Wunused-variable]",
                f"  {rnd.randint(10, 900)} |   const int64_t tmp_{i} = iter.numel();",
                "      |            ^~~~~",
                f"/src/pytorch/{f}:{rnd.randint(10, 900)}:5: note: in expansion of macro 'AT_DISPATCH_ALL_TYPES'",
            ]
        if rnd.random() < 0.05:
            noise.append(f'/src/pytorch/{f}(77): warning #177-D: variable "n" was declared but never referenced')
    block = ("\n".join(noise) + "\n").encode()
    with open(path, "wb") as out:
        out.write(("\n".join(head) + "\n").encode())
        n = 0
        while n < mb << 20:
            out.write(block)
            n += len(block)
        out.write(b"ninja: build stopped: subcommand failed.\n")
    return path.stat().st_size


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t, p


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=220)
    ap.add_argument("--oneline-gb", type=float, default=0.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--failed-every", type=int, default=0, help="one noise step in N fails too (0: none)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "build.log"
        size = make_log(log, a.mb, a.failed_every)
        subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL)  # warm the page cache for both
        g = min(timed(["grep", "-c", "-E", "error|FAILED|fatal", str(log)])[0] for _ in range(a.repeat))
        # a private, empty knowledge cache: the first run parses the TOML tables and stores
        # them (cold), the later ones read the stored form (warm, as every run after the first)
        os.environ["TORCHBUILD_CACHE"] = str(Path(tmp) / "cache")
        cold = timed([sys.executable, "-m", "torchbuild", "diagnose", str(log), "--json"])[0]
        runs = [timed([sys.executable, "-m", "torchbuild", "diagnose", str(log), "--json"]) for _ in range(a.repeat)]
        d = min(t for t, _ in runs)
        doc = json.loads(runs[0][1].stdout)
        inproc = subprocess.run(
            [
                sys.executable,
                "-c",
                "import time,sys; t=time.perf_counter(); from torchbuild.actions.diagnose_log import diagnose_file; "
                "diagnose_file(sys.argv[1]); print(time.perf_counter()-t)",
                str(log),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        ip = float(inproc.stdout)
        peak = json.loads(
            subprocess.run([sys.executable, "-c", PEAK, str(log)], capture_output=True, text=True, check=True).stdout
        )
        print(
            f"log: {size / 1e6:.0f} MB, {doc['stats']['lines']:,} lines; "
            f"root: {doc['causes'][0]['cause_id']} at line {doc['causes'][0]['line']}"
            f" (first error line {doc['first_error']['line'] if doc['first_error'] else None})"
        )
        print(f"grep -c -E: {g:.3f} s   diagnose (CLI, end to end): {d:.3f} s   ratio: {d / g:.2f}  (goal <= 3.0)")
        print(f"first run, knowledge cache empty: {cold:.3f} s   ratio: {cold / g:.2f}")
        print(f"diagnose_file() in process (imports + scan, no CLI start-up): {ip:.3f} s   ratio: {ip / g:.2f}")
        print(f"diagnose peak memory: {peak['hwm_kib'] / 1024:.0f} MB  (goal <= 150 MB)")
        if a.oneline_gb:
            one = Path(tmp) / "oneline.log"
            chunk = b"x" * (1 << 20)
            with open(one, "wb") as f:
                for _ in range(int(a.oneline_gb * 1024)):
                    f.write(chunk)
            t, _ = timed([sys.executable, "-c", PEAK, str(one)])
            pk = json.loads(
                subprocess.run(
                    [sys.executable, "-c", PEAK, str(one)], capture_output=True, text=True, check=True
                ).stdout
            )
            print(
                f"one-line {a.oneline_gb} GB log: {pk['lines']} line, cause {pk['cause']}, {t:.1f} s, "
                f"peak {pk['hwm_kib'] / 1024:.0f} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
