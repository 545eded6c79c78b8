"""Issue 11, session 43: rows written from round A's dev logs (batches 596 and later), before its measurement.

* a relocation that does not fit, in the wording of the linkers other than GNU ld: LLVM's lld ("relocation
  R_X86_64_PC32 out of range: N is not in [-2147483648, 2147483647]") and GNU gold ("relocation overflow: reference
  to 'sym'"): a GPU binary built for too many architectures, as GNU ld's "relocation truncated to fit" already says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import assert_dev_log, diagnose_text, run_tool

#: A C file whose reference to ``big2`` cannot reach past the 3 GB array before it with a 32-bit PC-relative
#: relocation (the small code model): every linker refuses it, each in its own words, without writing 3 GB.
_TOO_FAR = "char big1[3000000000UL];\nchar big2[16];\nint main(void) { return big1[1] + big2[1]; }\n"


def _link(tmp_path: Path, linker: str) -> str:
    """Compile and link :data:`_TOO_FAR` with the real gcc and ``-fuse-ld=<linker>``; returns what it printed."""
    (tmp_path / "big.c").write_text(_TOO_FAR)
    assert run_tool(["gcc", "-O0", "-c", "big.c", "-o", "big.o"], tmp_path).returncode == 0
    p = run_tool(["gcc", f"-fuse-ld={linker}", "big.o", "-o", "big"], tmp_path)
    assert p.returncode != 0
    return p.stderr


def test_a_relocation_that_gold_or_lld_cannot_fit_is_too_many_architectures(tmp_path: Path):
    """ROCm/composable_kernel#789 (batch 596 dev): lld's "relocation R_X86_64_PC32 out of range" linking ckProfiler
    for ten GPU targets; the fix was fewer targets.  GNU gold (Debian 12's binutils 2.40, run here) says
    "relocation overflow: reference to 'big2' defined in big.o" for the same overflow, and GNU ld "relocation
    truncated to fit" (the older row).  Without CUDA or ROCm in the log the arch list is only a guess (at most 0.5, as
    for GNU ld's wording); after an nvcc command it is surer."""
    gold = shutil.which("ld.gold")
    # the line as this machine's gold printed it; the real gold prints it again where it is installed
    printed = "big.o:big.c:function main: error: relocation overflow: reference to 'big2' defined in big.o"
    if gold is not None:
        printed = _link(tmp_path, "gold")
        assert "relocation overflow: reference to 'big2'" in printed
    bfd = _link(tmp_path, "bfd")
    assert "relocation truncated to fit" in bfd
    nvcc = "/usr/local/cuda/bin/nvcc -gencode arch=compute_80,code=sm_80 -c kernel.cu -o kernel.o\n"
    for text, row in ((printed, "relocation-out-of-range"), (bfd, "relocation-truncated-fatbin")):
        alone = diagnose_text(text).root
        assert (alone.cause_id, alone.signature, alone.confidence <= 0.5) == ("cuda_arch_list_too_large", row, True)
        after_nvcc = diagnose_text(nvcc + text).root
        assert (after_nvcc.cause_id, after_nvcc.signature) == ("cuda_arch_list_too_large", row)
        assert after_nvcc.confidence > alone.confidence
    d = assert_dev_log(
        "link-composable-kernel-ckprofiler-lld-relocation-out-of-range-ten-targets.log",
        596,
        "cuda_arch_list_too_large",
        0.7,
    )
    assert "R_X86_64_PC32" in d.root.explanation
