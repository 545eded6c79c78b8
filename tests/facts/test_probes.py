"""Probe tests against the real tools of this machine (gcc, cmake, ninja, git, nvcc).

Each expected value comes from a second, independent source (``gcc -dumpfullversion``,
``cuda.h``'s ``CUDA_VERSION``, the tool's own first line), never from a literal.  Where a
tool is absent the test is skipped, so the suite passes on a fresh machine of this kind.
nvidia-smi and NVML are not on this machine: their parsers are tested in
``test_gpu_formats.py`` on output recorded in the formats of
shared/reference/cuda-compat-facts.md §6.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from torchbuild.facts import compilers, cuda, system, tools
from torchbuild.facts.python import PythonProbeError, python_info


def _out(*argv: str) -> str:
    return subprocess.run(list(argv), capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_gcc_version_matches_dumpfullversion():
    c = compilers.probe_compiler("gcc")
    assert c is not None and c.kind == "gcc"
    assert c.version == _out("gcc", "-dumpfullversion").strip()
    assert c.path == os.path.abspath(shutil.which("gcc"))


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_cxx_from_env_is_honoured_and_launcher_stripped(monkeypatch):
    monkeypatch.setenv("CXX", "ccache g++")
    c = compilers.find_compiler("cxx")
    assert c.from_env == "CXX" and c.kind == "gcc"
    assert c.path == os.path.abspath(shutil.which("g++"))
    assert c.version == _out("g++", "-dumpfullversion").strip()


def test_cc_env_naming_missing_compiler_is_a_fact_not_a_crash(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/gcc-99")
    c = compilers.find_compiler("c")
    assert c is not None and c.path is None and c.from_env == "CC"


@pytest.mark.parametrize("name", ["cmake", "ninja", "git"])
def test_tool_versions_match_first_line(name):
    if shutil.which(name) is None:
        pytest.skip(f"no {name}")
    first = _out(name, "--version").splitlines()[0]
    t = tools.probe_tool(name)
    assert t.path == os.path.abspath(shutil.which(name))
    assert t.version and t.version in first
    # the last number-like token of the line is the version for all three tools
    assert t.version == re.findall(r"\d+\.\d+(?:\.\d+)?", first)[-1]


def test_missing_tool_is_none():
    t = tools.probe_tool("surely-not-a-tool-xyz")
    assert t.path is None and t.version is None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_nvcc_version_agrees_with_cuda_h_and_list_gpu_code():
    tk = cuda.probe_cuda([])
    assert tk is not None and tk.nvcc
    # independent: CUDA_VERSION in the toolkit's cuda.h (1000*major + 10*minor)
    text = (Path(tk.home) / "include" / "cuda.h").read_text(errors="replace")
    n = int(re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text).group(1))
    assert tk.version == f"{n // 1000}.{n % 1000 // 10}"
    assert tk.full_version.startswith(tk.version + ".")
    listed = _out(tk.nvcc, "--list-gpu-code").split()
    assert tk.gpu_codes == listed
    assert Path(tk.home, "bin", "nvcc").is_file()
    # every header recorded as present really is there
    for h, d in tk.headers.items():
        if d is not None:
            assert Path(d, h).is_file()


def test_nvcc_wrapper_script_is_followed_and_torch_rule_is_reported(tmp_path, monkeypatch):
    """A PATH nvcc that is a shell wrapper (as /usr/local/bin/nvcc here): our root follows
    it; torch's _find_cuda_home rule (dirname(dirname(which nvcc))) does not."""
    tk = tmp_path / "cuda-9.9"
    (tk / "bin").mkdir(parents=True)
    (tk / "include").mkdir()
    (tk / "include" / "cuda_runtime.h").write_text("/* */\n")
    (tk / "include" / "cuda.h").write_text("#define CUDA_VERSION 9090\n")
    real = tk / "bin" / "nvcc"
    real.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 9.9, V9.9.1'\n")
    real.chmod(0o755)
    wrap_dir = tmp_path / "wrap" / "bin"
    wrap_dir.mkdir(parents=True)
    wrap = wrap_dir / "nvcc"
    wrap.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrap_dir}:/usr/bin:/bin")
    env = {"PATH": os.environ["PATH"]}
    home, how = cuda.find_cuda_home(env)
    assert (home, how) == (str(tk), "nvcc-wrapper")
    assert cuda.torch_cuda_home(env) == str(tmp_path / "wrap")
    probed = cuda.probe_cuda([], env)
    assert probed.version == "9.9" and probed.full_version == "9.9.1"
    assert probed.torch_cuda_home_has_headers is False
    assert probed.headers["cuda_runtime.h"] == str(tk / "include")


def test_headers_missing_from_toolkit_are_found_in_nvidia_wheels(tmp_path, monkeypatch):
    tk = tmp_path / "cuda"
    (tk / "include").mkdir(parents=True)
    (tk / "include" / "cuda_runtime.h").write_text("")
    (tk / "version.json").write_text(json.dumps({"cuda": {"name": "CUDA SDK", "version": "13.0.20250801"}}))
    site = tmp_path / "site"
    inc = site / "nvidia" / "cu13" / "include"
    inc.mkdir(parents=True)
    for h in ("cusparse.h", "cublas_v2.h"):
        (inc / h).write_text("")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no nvcc: version from version.json
    got = cuda.probe_cuda([str(site)], {"CUDA_HOME": str(tk), "PATH": "/usr/bin:/bin"})
    assert got.found_by == "CUDA_HOME" and got.version == "13.0"
    assert got.headers["cusparse.h"] == str(inc)
    assert got.headers["cublas_v2.h"] == str(inc)
    assert got.headers["cuda_runtime.h"] == str(tk / "include")
    assert got.headers["cusolverDn.h"] is None


def test_libraries_are_found_by_exact_name_in_toolkit_and_wheel_folders(tmp_path, monkeypatch):
    """``libcublas`` is not satisfied by ``libcublasLt.so`` or ``libcublas_static.a``; a
    versioned ``.so.N``, a plain ``.so`` and a static ``.a`` each count; the toolkit's
    folder is preferred to a wheel's."""
    tk = tmp_path / "cuda"
    lib = tk / "lib64"
    lib.mkdir(parents=True)
    (tk / "include").mkdir()
    (tk / "version.json").write_text(json.dumps({"cuda": {"version": "13.0.1"}}))
    for name in ("libcudart.so.13", "libcublasLt.so", "libcublas_static.a", "libcufft.a", "libnvrtc.so.13.0.88"):
        (lib / name).write_text("")
    wheel_lib = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    wheel_lib.mkdir(parents=True)
    for name in ("libcublas.so.13", "libcudart.so.13"):
        (wheel_lib / name).write_text("")
    monkeypatch.setattr(cuda, "_system_lib_dirs", lambda: [])
    got = cuda.probe_cuda([str(tmp_path / "site")], {"CUDA_HOME": str(tk), "PATH": "/usr/bin:/bin"})
    assert got.libraries["libcudart"] == str(lib)
    assert got.libraries["libcublasLt"] == str(lib)
    assert got.libraries["libcublas"] == str(wheel_lib)
    assert got.libraries["libcufft"] == str(lib)
    assert got.libraries["libnvrtc"] == str(lib)
    assert got.libraries["libcusparse"] is None and got.libraries["libcurand"] is None


def test_cudnn_version_header(tmp_path):
    inc = tmp_path / "cudnn" / "include"
    inc.mkdir(parents=True)
    (inc / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 24\n#define CUDNN_PATCHLEVEL 0\n"
        "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
    )
    got = cuda.probe_cudnn(None, [], {"CUDNN_INCLUDE_DIR": str(inc)})
    assert got.version == "9.24.0" and got.include_dir == str(inc)


def test_resources_match_os_and_psutil(tmp_path):
    r = system.resources(tmp_path / "not" / "yet")
    assert r.disk_path == str(tmp_path)
    assert r.cpu_count == min(len(os.sched_getaffinity(0)), int(r.cgroup_cpu_limit or 10**6)) or r.cpu_count == 1
    vm = psutil.virtual_memory()
    assert r.memory_total_bytes == min(vm.total, r.cgroup_memory_limit_bytes or vm.total)
    assert 0 < r.memory_available_bytes <= r.memory_total_bytes
    assert abs(r.disk_free_bytes - shutil.disk_usage(tmp_path).free) < 256 << 20


def test_os_info_matches_os_release_and_libc():
    info = system.os_info()
    assert info.system == "Linux"
    text = Path("/etc/os-release").read_text()
    assert info.distro_id == system.parse_os_release(text)["ID"]
    libc = os.confstr("CS_GNU_LIBC_VERSION")
    assert f"{info.libc} {info.libc_version}" == libc


def test_python_info_current_and_other_interpreter():
    me = python_info()
    assert me.executable == sys.executable
    assert me.version == "{}.{}.{}".format(*sys.version_info[:3])
    assert me.has_headers == Path(me.include_dir, "Python.h").is_file()
    other = "/usr/bin/python3"
    if not Path(other).exists():
        pytest.skip("no second interpreter")
    got = python_info(other)
    assert got.version == _out(other, "-c", "import platform; print(platform.python_version())").strip()
    assert got.purelib and got.sys_path


def test_python_info_missing_interpreter_raises():
    with pytest.raises(PythonProbeError):
        python_info("/nonexistent/python3")


def _fake_pyenv(root: Path, real: str, name: str) -> Path:
    """A pyenv layout: ``libexec/pyenv`` answering ``which NAME`` (and running ``exec``)
    as pyenv does, a version folder holding ``name`` (a link to the real ``real``), and
    the shim in the exact text pyenv 2.x writes (this machine's /root/.pyenv/shims/*)."""
    (root / "libexec").mkdir(parents=True)
    (root / "versions" / "3.11.7" / "bin").mkdir(parents=True)
    (root / "shims").mkdir()
    os.symlink(real, root / "versions" / "3.11.7" / "bin" / name)
    pyenv = root / "libexec" / "pyenv"
    pyenv.write_text(
        "#!/usr/bin/env bash\nset -e\n"
        'case "$1" in\n'
        '  which) echo "$PYENV_ROOT/versions/3.11.7/bin/$2" ;;\n'
        '  exec) shift; p="$1"; shift; exec "$PYENV_ROOT/versions/3.11.7/bin/$p" "$@" ;;\n'
        "esac\n"
    )
    pyenv.chmod(0o755)
    shim = root / "shims" / name
    shim.write_text(
        '#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="${0##*/}"\n\n'
        f'export PYENV_ROOT="{root}"\nSHIM_PATH=${{0%/*}}\n'
        f'if [[ $SHIM_PATH != "{root}/shims" ]]; then\n  export _PYENV_SHIM_PATH="$SHIM_PATH"\nfi\n'
        f'exec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    shim.chmod(0o755)
    return shim


@pytest.mark.skipif(shutil.which("ccache") is None, reason="no ccache")
def test_pyenv_shim_is_looked_through(tmp_path, monkeypatch):
    real = os.path.realpath(shutil.which("ccache"))
    shim = _fake_pyenv(tmp_path / "pyenv", real, "ccache")
    assert subprocess.run([str(shim), "--version"], capture_output=True, text=True).stdout == _out(real, "--version")
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    t = tools.probe_tool("ccache")
    assert t.shim == str(shim)
    assert t.path == str(tmp_path / "pyenv" / "versions" / "3.11.7" / "bin" / "ccache")
    assert t.version == tools.parse_tool_version("ccache", _out(real, "--version"))
    # a plain script or binary is no shim
    assert tools.probe_tool("git").shim is None
    assert tools.shim_question("ccache", real) is None
    assert tools.shim_question("ccache", str(shim)) == [
        "env",
        f"PYENV_ROOT={tmp_path / 'pyenv'}",
        str(tmp_path / "pyenv" / "libexec" / "pyenv"),
        "which",
        "ccache",
    ]
