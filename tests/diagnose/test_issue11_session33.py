"""Issue 11, session 33: the rows written this session, each from a real program's own message.

Where the program runs here, the test makes it print the message (torch 2.13.0's CPU wheel, Python itself);
otherwise the line is the program's text as its source and a real corpus log show it (the row's ``source``:
JAX's CUDA plugin, cuDNN 8's loader, the loader with another MKL, scikit-build, torch.compile's C++ builder).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import causes_of, diagnose_list

CORPUS = Path(__file__).parent / "realworld"


def _root(lines: list[str]) -> tuple[str, str | None, float]:
    d = diagnose_list(lines)
    return d.root.cause_id, d.root.signature, d.root.confidence


def test_a_cpu_only_torch_refuses_nvtx() -> None:
    """The real CPU build of torch raises "NVTX functions not installed. Are you sure you have a CUDA build?"
    from torch.cuda.nvtx's stub: the torch is a CPU-only build (torch_cpu_only), which the log alone shows."""
    torch = pytest.importorskip("torch")
    if torch.version.cuda is not None:
        pytest.skip("a CUDA build of torch has the NVTX functions")
    p = subprocess.run(
        [sys.executable, "-c", "import torch; torch.cuda.nvtx.range_push('step')"], capture_output=True, text=True
    )
    assert "NVTX functions not installed" in p.stderr, p.stderr
    d = diagnose_list(p.stderr.splitlines())
    assert (d.root.cause_id, d.root.signature) == ("torch_cpu_only", "torch-nvtx-stub-cpu-build"), causes_of(d)
    assert d.root.confidence >= 0.7


def test_python_started_in_an_unbuilt_torch_source_tree(tmp_path: Path) -> None:
    """Python run in a folder that holds a torch package without the version.py the build writes (as in a
    source tree: tools/generate_torch_version.py) fails with "No module named 'torch.version'": the unbuilt
    package of the source tree was imported (import_from_source_dir), not a missing dependency."""
    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .version import __version__\n")
    p = subprocess.run([sys.executable, "-c", "import torch"], cwd=tmp_path, capture_output=True, text=True)
    assert "No module named 'torch.version'" in p.stderr, p.stderr
    d = diagnose_list(p.stderr.splitlines())
    assert (d.root.cause_id, d.root.signature) == ("import_from_source_dir", "module-not-found-torch-version")


@pytest.mark.parametrize(
    ("line", "cause", "signature"),
    [
        # cuDNN 8's loader when the line ends at the library's name; with the loader's reason after "Error:",
        # the reason decides (the older rows)
        ("Error: Could not load library libcudnn_cnn_infer.so.8", "cudnn_unusable", "cudnn-sublibrary-not-loaded"),
        (
            "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object"
            " file: No such file or directory",
            "cudnn_unusable",
            "cudnn-library-not-found",
        ),
        (
            "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/local/cuda/8.0/lib64/libnvrtc.so: undefined"
            " symbol: nvrtcGetCUBIN",
            "cuda_version_mismatch",
            "cuda-library-symbol-missing",
        ),
        # an MKL of another release found first by the loader
        (
            "ImportError: /opt/intel/composer_xe_2015/mkl/lib/intel64/libmkl_gf_lp64.so: undefined symbol:"
            " mkl_lapack_sgelqf",
            "blas_not_found",
            "mkl-undefined-symbol-at-load",
        ),
        ("scikit-build could not get a working generator for your system. Aborting build.", "compiler_missing", None),
    ],
)
def test_a_tool_message_names_its_cause(line: str, cause: str, signature: str | None) -> None:
    """Each tool's own line names its cause by itself, with the row written for it (or the older row where the
    line carries the loader's reason)."""
    got = _root(["something ran", line])
    assert got[0] == cause, got
    if signature is not None:
        assert got[1] == signature, got


def test_jax_outdated_cudnn_is_found_without_an_error_word() -> None:
    """JAX's CUDA plugin prints "Outdated cuDNN installation found." with the versions on the lines below it and
    no "error" anywhere (conda-forge/jaxlib-feedstock#277): the gate lets the line be examined, and the cause is
    cuDNN (cudnn_unusable)."""
    text = (CORPUS / "runtime-jaxlib-feedstock-0430-needs-cudnn-91-has-897.log").read_text()
    assert "rror" not in text.replace("Unable to use CUDA", "")
    assert _root(text.splitlines())[:2] == ("cudnn_unusable", "jax-outdated-cudnn")


def test_torch_compile_missing_python_h_warning_is_a_hint() -> None:
    """torch.compile's "UserWarning: Can't find Python.h in DIR" (torch/_inductor/cpp_builder.py) is a warning:
    in a log that ends there it names python_headers_missing at hint strength (at most 0.5), and beside an error
    that a signature explains it never becomes the first error."""
    line = "/x/torch/_inductor/cpp_builder.py:1198: UserWarning: Can't find Python.h in /usr/include/python3.12"
    cause, sig, conf = _root(["Testing smoke_test_compile for cpu and torch.float16", line])
    assert (cause, sig) == ("python_headers_missing", "inductor-python-h-not-found")
    assert conf <= 0.5
    d = diagnose_list([line, "x.cu:1:10: fatal error: cuda_runtime.h: No such file or directory"])
    assert d.root.line == 2 and d.root.cause_id != "python_headers_missing", causes_of(d)


def test_msvc_lower_case_python_h_is_the_missing_headers() -> None:
    """MSVC on Windows (case-insensitive file names) reports the header as the code spells it: "Cannot open include
    file: 'python.h'" (ufrisk/LeechCore#10, an embeddable Python without an include folder) is the missing Python
    headers, like 'Python.h'."""
    line = r"C:\temp\leechcorepyc.c(12,10): fatal error C1083: Cannot open include file: 'python.h': No such"
    assert _root([line])[:2] == ("python_headers_missing", "python-h-missing")


def test_a_bare_time_stamp_before_each_line_is_a_ci_prefix() -> None:
    """PyTorch's CircleCI logs of 2019 put "May 23 16:18:47 " before every line (pytorch/pytorch#20865): the line
    behind it is diagnosed as it would be alone."""
    bare = ["Traceback (most recent call last):", "ModuleNotFoundError: No module named 'torch._C'"]
    stamped = [f"May 23 16:18:47 {line}" for line in bare]
    assert _root(stamped) == _root(bare)
    assert _root(stamped)[0] == "import_from_source_dir"
