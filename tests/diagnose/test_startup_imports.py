"""What ``torchbuild diagnose LOG --json`` imports: a log-only command does not pay for the machine probes.

The fixed cost of starting diagnose is part of benchmarks/bench_diagnose.py's ratio against grep (goal <= 3x on a
220 MB log): the facts model and its thread pool (about 20 ms), the compatibility tables with ``packaging`` (about
7 ms) and rich (only to render for a person) are imported by the commands and rules that use them, not by every
diagnosis.  The run is a real ``python -m torchbuild`` in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

SNIPPET = """
import json, sys, io, contextlib
from torchbuild.cli import main
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = main(["diagnose", sys.argv[1], "--json"])
doc = json.loads(buf.getvalue())
print(json.dumps({"rc": rc, "cause": doc["causes"][0]["cause_id"], "modules": sorted(sys.modules)}))
"""

NOT_FOR_A_LOG = ("torchbuild.facts.model", "concurrent.futures", "torchbuild.knowledge.compat", "packaging", "rich")


def test_diagnose_json_imports_no_probe_model_no_compat_tables_no_rich(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(
        "FAILED: a.o\n/usr/local/cuda/bin/nvcc -c a.cu\n"
        "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions "
        "later than 12 are not supported!\n"
    )
    proc = subprocess.run([sys.executable, "-c", SNIPPET, str(log)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["rc"], out["cause"]) == (0, "host_compiler_unsupported")
    loaded = set(out["modules"])
    assert "torchbuild.facts.logfile" in loaded  # the log was read by the facts layer
    assert sorted(m for m in NOT_FOR_A_LOG if m in loaded) == []


def test_the_torchvision_rule_still_reads_its_tables_when_a_log_needs_them(tmp_path):
    """The rule that imports the compatibility tables on first use: torchvision 0.17 (made for torch 2.2) beside
    torch 2.4, the versions printed by the log (knowledge/data/domain_libraries.toml)."""
    log = tmp_path / "tv.log"
    log.write_text(
        "torch==2.4.0\ntorchvision==0.17.0\n"
        "ImportError: /x/site-packages/torchvision/_C.so: undefined symbol: _ZN3c1019UndefinedTensorImpl10_singletonE\n"
    )
    proc = subprocess.run([sys.executable, "-c", SNIPPET, str(log)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["cause"] == "torch_extension_mismatch"
    assert "torchbuild.knowledge.compat" in out["modules"]
