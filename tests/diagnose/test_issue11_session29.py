"""Issue 11, session 29: rows and rules from the dev logs of batches 187-208, each checked with the message
of the real program that prints it: torch's cpp_extension (a g++ below its minimum), pybind11's setup
helpers (no C++ compiler), the dynamic loader, dlsym and GNU ld (a LAPACK routine, a torch C-shim function,
an NVRTC function), pip on fiona's sdist (no GDAL), setuptools' version conflict, gcc without OpenFst;
and the dev logs themselves."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import ROWS, assert_dev_log, build_python_module, causes_of
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag
from .conftest import run_tool as _run

GCC = shutil.which("gcc") or "gcc"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def test_torch_cpp_extension_warning_for_a_gcc_below_its_minimum(tmp_path):
    """torch's own check (``get_compiler_abi_compatibility_and_version``) run with a g++ that reports 4.8.5,
    as CentOS 7's does: its warning ("Your compiler (g++ 4.8.5) may be ABI-incompatible with PyTorch!") is
    the only line of such a log, and names compiler_too_old (a hint: not stated as a finding)."""
    pytest.importorskip("torch")
    fake = tmp_path / "g++"
    fake.write_text(
        '#!/bin/sh\ncase "$*" in\n  *dumpfullversion*) echo 4.8.5 ;;\n'
        '  *) echo "gcc version 4.8.5 20150623 (Red Hat 4.8.5-44) (GCC)" >&2 ;;\nesac\n'
    )
    fake.chmod(0o755)
    code = "from torch.utils.cpp_extension import get_compiler_abi_compatibility_and_version as f; print(f('g++'))"
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    out = proc.stdout + proc.stderr
    assert "(False, '4.8.5')" in proc.stdout and "Your compiler (g++ 4.8.5) may be ABI-incompatible" in out, out
    d = _diag(out.splitlines())
    assert d.root.cause_id == "compiler_too_old" and d.root.values.get("version") == "4.8.5", causes_of(d)
    assert d.root.confidence < 0.7


def test_pybind11_setup_helpers_without_a_compiler():
    """pybind11's ``auto_cpp_level`` (the installed pybind11), with CC/CXX naming a compiler that does not
    exist, raises "Unsupported compiler -- at least C++11 support is needed!": compiler_missing."""
    pytest.importorskip("pybind11")
    code = textwrap.dedent(
        """
        from pybind11.setup_helpers import auto_cpp_level
        import distutils.ccompiler, distutils.sysconfig
        c = distutils.ccompiler.new_compiler()
        distutils.sysconfig.customize_compiler(c)
        auto_cpp_level(c)
        """
    )
    env = {**os.environ, "CC": "/nonexistent/gcc", "CXX": "/nonexistent/g++"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert "Unsupported compiler -- at least C++11 support is needed!" in proc.stderr, proc.stderr
    d = _diag(proc.stderr.splitlines())
    assert d.root.cause_id == "compiler_missing", causes_of(d)


def _module_needing(tmp_path: Path, name: str, symbol: str) -> str:
    """Build a Python extension module ``name`` whose function calls the C function ``symbol``, which
    nothing defines (a shared object may keep undefined symbols), and import it in a child Python:
    the loader's own ImportError."""
    build_python_module(
        tmp_path,
        name,
        "#include <Python.h>\n"
        f"void {symbol}(void);\n"
        f"static PyObject* f(PyObject* s, PyObject* a) {{ {symbol}(); Py_RETURN_NONE; }}\n"
        'static PyMethodDef M[] = {{"f", f, METH_NOARGS, 0}, {0}};\n'
        f'static struct PyModuleDef D = {{PyModuleDef_HEAD_INIT, "{name}", 0, -1, M}};\n'
        f"PyMODINIT_FUNC PyInit_{name}(void) {{ return PyModule_Create(&D); }}\n",
    )
    proc = _run([sys.executable, "-c", f"import {name}"], cwd=tmp_path)
    assert f"undefined symbol: {symbol}" in proc.stderr, proc.stderr
    return proc.stderr


@needs_gcc
@pytest.mark.parametrize(
    ("symbol", "cause"),
    [
        ("dsyev_", "blas_not_found"),  # LAPACK's symmetric eigensolver, as faiss's _swigfaiss.so needed it
        ("zgesdd_", "blas_not_found"),
        ("aoti_torch_not_in_this_torch", "torch_extension_mismatch"),  # a C-shim function this torch lacks
        ("torch_library_impl", "torch_extension_mismatch"),  # torchaudio 2.11 on torch 2.9.1
        ("my_own_helper_", "unknown"),  # a name of neither kind stays unknown
    ],
)
def test_an_undefined_symbol_at_import_named_by_its_kind(tmp_path, symbol, cause):
    """The dynamic loader's "ImportError: X.so: undefined symbol: S" from a real import: a BLAS/LAPACK routine
    (Fortran name, trailing underscore) is blas_not_found; a function of torch's C shim is the extension
    built for another torch."""
    d = _diag(_module_needing(tmp_path, "symext", symbol).splitlines())
    assert d.root.cause_id == cause, causes_of(d)


@needs_gcc
def test_ld_undefined_reference_to_a_blas_routine(tmp_path):
    """GNU ld linking a program that calls sgemm_ without any BLAS: "undefined reference to `sgemm_'"."""
    (tmp_path / "m.c").write_text("void sgemm_(void);\nint main(void) { sgemm_(); return 0; }\n")
    proc = _run([GCC, "m.c", "-o", "m"], cwd=tmp_path)
    assert "undefined reference to `sgemm_'" in proc.stderr, proc.stderr
    d = _diag(proc.stderr.splitlines())
    assert d.root.cause_id == "blas_not_found", causes_of(d)


def test_pip_building_fiona_without_gdal(tmp_path):
    """pip preparing the metadata of fiona 1.8.22's sdist (its setup.py) on this machine, which has no GDAL:
    "A GDAL API version must be specified. Provide a path to gdal-config ..." is system_library_missing.
    Skipped where the package index cannot be reached."""
    if shutil.which("gdal-config"):
        pytest.skip("GDAL is installed here")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--no-build-isolation"]
        + ["fiona==1.8.22", "-d", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    if "GDAL API version" not in out:
        pytest.skip(f"pip could not fetch fiona's sdist here: {out[-300:]}")
    d = _diag(out.splitlines())
    assert d.root.cause_id == "system_library_missing", causes_of(d)


@pytest.mark.parametrize(
    ("module", "cause"),
    [
        ("_raymarching_face", "unknown"),  # a project's private compiled module: not a pip package
        ("_k2", "unknown"),
        ("monarch_cuda", "unknown"),  # named like a compiled module (*_cuda, *_ext, *_cpu, ...)
        ("compressai._CXX", "import_from_source_dir"),  # a package's private submodule: its compiled part
        ("gpytorch.libfft._libfft", "import_from_source_dir"),
        ("tb_absent_distribution", "python_dependency_missing"),  # a distribution stays a missing dependency
    ],
)
def test_a_missing_module_by_its_name(tmp_path, module, cause):
    """Python's own "ModuleNotFoundError: No module named 'X'", from a real import in a folder that holds the
    packages' Python files without their compiled modules (a source tree): a private top-level module is the
    project's compiled part that was not built (unknown, with the missing dependency second); a private
    submodule of a package is its compiled module."""
    parts = module.split(".")
    for k in range(1, len(parts)):
        pkg = tmp_path.joinpath(*parts[:k])
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text("")
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    line = proc.stderr.strip().splitlines()[-1]
    assert line == f"ModuleNotFoundError: No module named '{module}'", proc.stderr
    d = _diag(proc.stderr.splitlines())
    assert d.root.cause_id == cause, causes_of(d)
    if cause == "unknown":
        assert d.causes[1].cause_id == "python_dependency_missing"


def test_setuptools_version_conflict_report(tmp_path):
    """pkg_resources' ContextualVersionConflict.report() of setuptools 65.5.0 (the release the row cites; newer
    setuptools dropped pkg_resources, so it is installed into a venv of its own), as `python setup.py install`
    prints it after "error: " (pytorch/text#2045: a torch built from source against torchdata's pin).  Skipped
    only where pip cannot fetch that setuptools."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", py, "install", "-q", "setuptools==65.5.0"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        pytest.skip(f"pip could not install setuptools 65.5.0 here: {pip.stderr[-300:]}")
    code = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("ignore")
        import pkg_resources as p
        e = p.ContextualVersionConflict(
            p.Distribution(project_name="torch", version="2.0.0a0+gite7ace1f"),
            p.Requirement.parse("torch==1.13.1"),
            {"torchdata"},
        )
        print("error:", e.report())
        """
    )
    line = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=300, check=True).stdout.strip()
    assert line == "error: torch 2.0.0a0+gite7ace1f is installed but torch==1.13.1 is required by {'torchdata'}"
    d = _diag([line])
    assert d.root.cause_id == "dependency_version_conflict" and d.root.values.get("by") == "'torchdata'"


@needs_gcc
def test_a_cuda_library_without_a_function_its_caller_looks_up(tmp_path):
    """dlsym's own error for a function a CUDA library of another release lacks: a stand-in libnvrtc.so built
    here without nvrtcGetCUBIN (which NVRTC has since CUDA 11.1), looked up through ctypes as cuDNN 8 does,
    gives "<path>/libnvrtc.so: undefined symbol: nvrtcGetCUBIN" (nanoporetech/dorado#166 printed it after
    cuDNN's "Could not load library ... Error: ")."""
    (tmp_path / "nvrtc.c").write_text("int nvrtcVersion(int* a, int* b) { *a = 8; *b = 0; return 0; }\n")
    lib = tmp_path / "libnvrtc.so"
    built = _run([GCC, "-shared", "-fPIC", "nvrtc.c", "-o", str(lib)], cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    code = f"import ctypes; ctypes.CDLL({str(lib)!r}).nvrtcGetCUBIN"
    proc = _run([sys.executable, "-c", code])
    error = proc.stderr.strip().splitlines()[-1].split(": ", 1)[1]
    assert error == f"{lib}: undefined symbol: nvrtcGetCUBIN", proc.stderr
    d = _diag([f"Could not load library libcudnn_cnn_infer.so.8. Error: {error}"])
    assert d.root.cause_id == "cuda_version_mismatch", causes_of(d)


@needs_gcc
def test_openfst_header_missing(tmp_path):
    """gcc compiling a file that includes OpenFst's <fst/util.h> where OpenFst is not installed (pynini's sdist)."""
    if Path("/usr/include/fst/util.h").exists():
        pytest.skip("OpenFst is installed here")
    (tmp_path / "w.cpp").write_text("#include <fst/util.h>\nint main() { return 0; }\n")
    proc = _run([GCC, "-c", "w.cpp"], cwd=tmp_path)
    assert "fst/util.h: No such file or directory" in proc.stderr, proc.stderr
    d = _diag(proc.stderr.splitlines())
    assert d.root.cause_id == "system_library_missing", causes_of(d)


#: Dev logs of this session's batches that a row or rule was written from: (file, batch, cause, least confidence).
DEV_LOGS = [
    # torch's cpp_extension warning for g++ 4.8.5, and nothing after it (fab-jul/L3C-PyTorch#1)
    ("build-l3c-torchac-backend-cpu-gcc485.log", 187, "compiler_too_old", 0.0),
    ("import-stf-compressai-cxx-shadowed-by-local-folder.log", 187, "import_from_source_dir", 0.0),
    # GitHub's markdown ate the opening backtick of "undefined reference to `pangolin::Split(std::string ...)'"
    ("slam-gcnv2-linking-pangolin-dbow2-binary-libtorch.log", 190, "cxx_abi_mismatch", 0.0),
    ("linux-geneface-raymarching-face-extension-not-installed.log", 192, "unknown", 0.0),
    ("atrain-core-torchaudio-2.11-with-torch-2.9.1-undefined-symbol.log", 196, "torch_extension_mismatch", 0.7),
    ("import-faiss-swigfaiss-undefined-dsyev-openblas.log", 197, "blas_not_found", 0.7),
    ("docker-chroma-hnswlib-wheel-unsupported-compiler-no-build-essential.log", 197, "compiler_missing", 0.0),
    # OpenMMLab's mmcv version assertion (open-mmlab/mmaction2#974, #1006)
    ("import-mmaction2-mmdet-requires-newer-mmcv.log", 200, "dependency_version_conflict", 0.7),
    ("import-mmaction2-colab-tutorial-mmcv-pin-too-old.log", 200, "dependency_version_conflict", 0.7),
    ("pip-fiona-windows-gdal-api-version-must-be-specified.log", 201, "system_library_missing", 0.0),
    ("import-gpytorch-libfft-unbuilt-source-checkout.log", 202, "import_from_source_dir", 0.0),
    # frozen applications whose bundle lacks torch's files: unknown, the symptom second (batch 203)
    ("frozen-pyinstaller-torch-c-hiddenimport-missing.log", 203, "unknown", 0.0),
    ("frozen-cxfreeze-torch-cudnn-adv-infer-winerror127.log", 203, "unknown", 0.0),
    ("dorado-libtorch-old-cuda8-nvrtc-on-ld-library-path.log", 205, "cuda_version_mismatch", 0.0),
    ("pip-pynini-2.1.5.post1-sdist-fst-util-h-missing-wetextprocessing.log", 207, "system_library_missing", 0.0),
    (
        "setuptools-torchtext-source-torch-2.0a0-vs-torchdata-pins-torch-1.13.1.log",
        208,
        "dependency_version_conflict",
        0.7,
    ),
]


@pytest.mark.parametrize(("name", "batch", "cause", "least"), DEV_LOGS)
def test_the_dev_logs_rows_were_written_from_name_their_cause(name, batch, cause, least):
    """Each dev log of batches 187-208 that a row or rule of this session was written from names its cause (a
    frozen application's with the symptom second)."""
    d = assert_dev_log(name, batch, cause, least)
    if name.startswith("frozen-"):
        assert d.causes[1].cause_id in ("import_from_source_dir", "shared_library_not_found"), causes_of(d)


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("import-cuml-pip-numpy-ufunc-size-changed.log", "numpy_abi_mismatch"),
        ("abort-pyg-import-onnx-ml-proto-already-in-database.log", "protobuf_conflict"),
        ("runtime-gpustack-cupy-cuda12x-and-cuda13x-together.log", "dependency_version_conflict"),
        ("linux-flashfftconv-monarch-cuda-kernels-not-installed.log", "unknown"),  # round B
    ],
)
def test_round_a_held_out_misses_read_after_the_measurement(name, cause):
    """Held-out logs of session 29's round A, read only after its measurement (so not evidence of carry-over):
    Cython's size check of numpy.ufunc (NVIDIA/cuml#182), C++ protobuf refusing onnx-ml.proto registered twice
    (pyg-team/pytorch_geometric#9220), CuPy's warning about several cupy-* packages (gpustack/gpustack#5459);
    and of round B: flashfftconv's monarch_cuda, never built (a compiled module's name, not a dependency)."""
    assert ROWS[name]["split"] == "holdout" and 187 <= ROWS[name]["batch"] <= 213
    d = _diag(_lines(name))
    assert d.root.cause_id == cause, causes_of(d)
