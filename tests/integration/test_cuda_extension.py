"""A CUDA extension built for real against the CUDA build of torch (2.14.1+cu130).

This machine has no GPU and a minimal CUDA 13.0 toolkit (nvcc and the runtime, no
cuBLAS/cuSPARSE/cuSOLVER headers), and ``nvcc`` on PATH is a wrapper script in
``/usr/local/bin``, so ``torch.utils.cpp_extension`` would pick ``CUDA_HOME=/usr/local``.
Doctor must notice both before compiling; the plan must fix both (``CUDA_HOME`` and the
headers of the ``nvidia-*`` wheels on ``CPATH``); the compile for an explicit ``--arch``
must then succeed.  The torch is installed from the wheel on disk into a session venv
(several GB, a few minutes); the test is skipped, saying why, where pip cannot get it.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SETUP = """
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, CppExtension

if os.getenv("FORCE_CUDA", "0") == "1":
    ext = CUDAExtension("tiny_cuda._C", ["csrc/bind.cpp", "csrc/kernel.cu"], define_macros=[("WITH_CUDA", None)])
else:
    ext = CppExtension("tiny_cuda._C", ["csrc/bind.cpp"])
setup(name="tiny_cuda", version="0.1", packages=["tiny_cuda"], ext_modules=[ext],
      cmdclass={"build_ext": BuildExtension})
"""

BIND = """
#include <torch/extension.h>
#ifdef WITH_CUDA
torch::Tensor scale_cuda(torch::Tensor x, double a);
#endif
torch::Tensor scale(torch::Tensor x, double a) {
#ifdef WITH_CUDA
  if (x.is_cuda()) return scale_cuda(x, a);
#endif
  return x * a;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale); }
"""

KERNEL = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>  // pulls in cusparse.h, cublas_v2.h, cusolverDn.h
__global__ void scale_kernel(const float* x, float* y, float a, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
torch::Tensor scale_cuda(torch::Tensor x, double a) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), (float)a, n);
  return y;
}
"""


@pytest.fixture()
def nvcc() -> str:
    path = shutil.which("nvcc")
    if path is None:
        pytest.skip("no nvcc on this machine")
    return path


def _tree(root: Path) -> Path:
    (root / "csrc").mkdir(parents=True)
    (root / "tiny_cuda").mkdir()
    (root / "tiny_cuda" / "__init__.py").write_text("import torch\nfrom . import _C\nscale = _C.scale\n")
    (root / "setup.py").write_text(SETUP)
    (root / "csrc" / "bind.cpp").write_text(BIND)
    (root / "csrc" / "kernel.cu").write_text(KERNEL)
    return root


def test_cuda_extension_without_arch_or_gpu_is_stopped_with_how_to_choose(cli, tmp_path, nvcc, cuda_torch_python):
    tree = _tree(tmp_path / "tiny")
    r = cli("build", str(tree), "--python", str(cuda_torch_python), "--cuda", "--mode", "wheel", "--no-install")
    assert r.returncode == 2
    assert "no GPU was detected" in r.stderr and "--arch" in r.stderr
    assert not (tree / ".torchbuild" / "logs").exists()


def test_cuda_extension_compiles_for_an_explicit_arch(cli, tmp_path, nvcc, cuda_torch_python):
    tree = _tree(tmp_path / "tiny")
    r = cli(
        "build",
        str(tree),
        "--python",
        str(cuda_torch_python),
        "--cuda",
        "--arch",
        "8.9",
        "--mode",
        "wheel",
        "--no-install",
        "--cache",
        "none",
        "--json",
        timeout=1800,
    )
    assert r.returncode == 0, r.stderr[-5000:]
    # doctor named what this machine's toolkit lacks, and where it is, before compiling
    assert "[cuda_home]" in r.stderr and "[cuda_headers]" in r.stderr and "cusparse.h" in r.stderr
    env = r.json["plan"]["env"]
    assert env["FORCE_CUDA"]["value"] == "1" and env["TORCH_CUDA_ARCH_LIST"]["value"] == "8.9"
    assert "nvidia" in env["CPATH"]["value"] and not env["CUDA_HOME"]["value"].endswith("/usr/local")
    log = Path(r.json["log"]).read_text(errors="replace")
    assert "kernel.cu" in log and "arch=compute_89,code=sm_89" in log
    with zipfile.ZipFile(r.json["wheel"]) as zf:
        so = [n for n in zf.namelist() if n.startswith("tiny_cuda/_C") and n.endswith(".so")]
        assert so and zf.getinfo(so[0]).file_size > 0
        data = zf.read(so[0])
    assert b".nv_fatbin" in data  # device code is in the binary
