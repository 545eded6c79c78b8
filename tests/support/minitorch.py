"""A generated, really buildable tree with PyTorch's build interface ("minitorch").

:func:`make_minitorch` writes a small git repository that a source-tree detector
takes for a PyTorch checkout and that builds for real, in seconds:

* ``setup.py`` imitates PyTorch's setuptools-era front end (``setup.py`` +
  ``tools/setup_helpers``, PyTorch <= 2.13; ``shared/reference/pytorch-build-facts.md``
  §1a-1c): build type from ``CMAKE_BUILD_TYPE``/``DEBUG``/``REL_WITH_DEB_INFO``; every
  environment variable starting ``BUILD_``, ``USE_``, ``CMAKE_`` (or ending
  ``EXITCODE``) forwarded verbatim as ``-D``, with PyTorch's renames, passthroughs and
  low-priority aliases; ``BUILD_PYTHON``/``BUILD_TEST``/``USE_NUMPY`` forced as Python
  booleans; ``CMAKE_INSTALL_PREFIX=<tree>/torch``; CMake configures into ``build/``
  **only when ``build/CMakeCache.txt`` (or, with Ninja, ``build/build.ninja``) is
  missing** (the stale-settings trap), ``CMAKE_FRESH=1`` deletes the cache first,
  ``CMAKE_ONLY=1`` stops after configure; the generator is Ninja when ``ninja`` is on
  PATH and ``USE_NINJA`` is not negative (``CMAKE_GENERATOR`` decides when set);
  ``cmake --build . --target install --config <type>`` gets ``-j MAX_JOBS`` only when
  ``MAX_JOBS`` is set; both cmake command lines are printed; Ninja's ``[N/M]`` lines
  reach the output (``pip -v``).
* ``CMakeLists.txt`` declares options with ``option(...)`` and
  ``cmake_dependent_option(...)`` as PyTorch's does (§6), builds ``libc10.so`` (4 .cpp)
  and ``libtorch_cpu.so`` (5-6 .cpp), installs them into ``torch/lib``, and the Python
  extension ``torch._C`` (2 .cpp, RPATH ``$ORIGIN/lib``).  ``BUILD_TEST`` adds a C++
  test binary in ``build/bin``; ``USE_DISTRIBUTED`` adds a source file; ``USE_OPENMP``
  finds OpenMP; ``USE_CCACHE`` sets ccache as compiler launcher when installed.
  minitorch has no CUDA or ROCm code: ``USE_CUDA``/``USE_ROCM`` default ON as in
  PyTorch and are then turned OFF with PyTorch's warning ("Not compiling with CUDA"),
  so a build always ends CPU-only (``torch.version.cuda is None``).
* ``third_party/minifmt`` is a git submodule (a separate local repository, the sibling
  directory ``<dest>-minifmt-origin``) providing a static library that ``c10`` uses, so
  a missing submodule really breaks the build.  Like PyTorch's ``check_submodules()``,
  ``setup.py`` stops before CMake with ``Could not find any of CMakeLists.txt, ... in
  third_party/minifmt`` / ``Did you run 'git submodule update --init --recursive'?``;
  unlike PyTorch it never runs ``git submodule update`` itself (the tests stay offline
  and the tree unchanged).
* The Python package is really named ``torch``: ``torch/__init__.py`` imports ``_C``,
  ``torch/version.py`` is written by ``setup.py`` (``__version__`` = ``version.txt`` +
  ``+git<sha7>`` or ``PYTORCH_BUILD_VERSION``, ``git_version``, ``cuda = None``,
  ``debug``), ``torch.__config__.show()`` returns text in the real format (§10),
  generated from the configured CMake values (so it shows the *configured* settings,
  stale ones included), ``parallel_info()``, ``torch._C._GLIBCXX_USE_CXX11_ABI``,
  ``torch.cuda.is_available()`` (False) and a tiny tensor: ``torch.tensor([1.0, 2.0])``,
  ``torch.add(a, b).tolist()`` and ``torch._C._add([1, 2], [3, 4]) == [4.0, 6.0]``
  (computed in ``libtorch_cpu.so``).

Never install the generated tree into a Python that has the real torch; use
:func:`make_build_venv`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from support.git import git

__all__ = [
    "InjectedError",
    "INJECTED_ERROR",
    "SUBMODULE_PATH",
    "make_minitorch",
    "make_build_venv",
    "build_env",
]

#: Path of the submodule inside the tree.
SUBMODULE_PATH = "third_party/minifmt"

_TIMEOUT = 120  # seconds for any pip command


@dataclass(frozen=True)
class InjectedError:
    """Where ``make_minitorch(..., inject_error=True)`` puts its C++ compile error.

    :ivar file: path relative to the tree root (``aten/src/ATen/native/BinaryOps.cpp``).
    :ivar line: 1-based line number of the bad statement.
    :ivar identifier: the undeclared name the compiler reports.
    :ivar message: the substring of GCC's diagnostic (``was not declared in this scope``).
    """

    file: str
    line: int
    identifier: str
    message: str


# --------------------------------------------------------------------------------------
# The tree's files.  ``@INJECT@`` in BinaryOps.cpp is replaced by a correct or a broken line.
# --------------------------------------------------------------------------------------

_SETUP_PY = r'''
"""minitorch's setup.py: PyTorch's setuptools-era build interface, in small.

Environment variables (as PyTorch's setup.py and tools/setup_helpers read them):
  DEBUG / REL_WITH_DEB_INFO / CMAKE_BUILD_TYPE   build type (Release by default)
  MAX_JOBS                                       cmake --build . -j MAX_JOBS
  USE_NINJA=0, CMAKE_GENERATOR                   generator choice
  CMAKE_FRESH=1                                  delete build/CMakeCache.txt first
  CMAKE_ONLY=1                                   stop after configure
  BUILD_*, USE_*, CMAKE_*                        passed to CMake verbatim as -D
  PYTORCH_BUILD_VERSION, PYTORCH_BUILD_NUMBER    version override
  USE_SYSTEM_LIBS                                skip the submodule check
"""
import multiprocessing
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

cwd = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = "build"
CMAKE_MINIMUM_VERSION_STRING = "3.18"

TRUTHY = ["ON", "1", "YES", "TRUE", "Y"]
NEGATIVE = ["OFF", "0", "NO", "FALSE", "N"]


def check_env_flag(name, default=""):
    return os.getenv(name, default).upper() in TRUTHY


def check_negative_env_flag(name, default=""):
    return os.getenv(name, default).upper() in NEGATIVE


def report(*args):
    print(*args, file=sys.stderr, flush=True)


# ---- tools/setup_helpers/env.py: the build type is written back into the environment
if "CMAKE_BUILD_TYPE" not in os.environ:
    if check_env_flag("DEBUG"):
        os.environ["CMAKE_BUILD_TYPE"] = "Debug"
    elif check_env_flag("REL_WITH_DEB_INFO"):
        os.environ["CMAKE_BUILD_TYPE"] = "RelWithDebInfo"
    else:
        os.environ["CMAKE_BUILD_TYPE"] = "Release"
if "CFLAGS" in os.environ and "CXXFLAGS" not in os.environ:
    os.environ["CXXFLAGS"] = os.environ["CFLAGS"]


def cache_path():
    return os.path.join(cwd, BUILD_DIR, "CMakeCache.txt")


def read_cache():
    """NAME -> VALUE of build/CMakeCache.txt, INTERNAL and STATIC entries skipped."""
    values = {}
    if not os.path.isfile(cache_path()):
        return values
    with open(cache_path(), encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", "//")) or "=" not in line or ":" not in line:
                continue
            key_type, value = line.split("=", 1)
            key, _, typ = key_type.partition(":")
            if typ in ("INTERNAL", "STATIC"):
                continue
            values[key] = value
    return values


def build_type():
    """BuildType(): the cache beats the environment once build/CMakeCache.txt exists."""
    cached = read_cache().get("CMAKE_BUILD_TYPE")
    return cached or os.environ["CMAKE_BUILD_TYPE"]


def git_sha():
    try:
        return subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=cwd, timeout=60).decode().strip()
    except Exception:
        return "Unknown"


def get_version():
    version = os.getenv("PYTORCH_BUILD_VERSION")
    if version:
        number = int(os.getenv("PYTORCH_BUILD_NUMBER", "0") or 0)
        if number > 1:
            version += ".post" + str(number)
        return version
    with open(os.path.join(cwd, "version.txt"), encoding="utf-8") as f:
        version = f.read().strip()
    sha = git_sha()
    if sha != "Unknown":
        version += "+git" + sha[:7]
    return version


VERSION = get_version()


def write_version_file():
    """tools/generate_torch_version.py: torch/version.py."""
    debug = build_type() == "Debug"
    text = (
        "from typing import Optional\n\n"
        '__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "xpu"]\n'
        "__version__ = {!r}\n"
        "debug = {!r}\n"
        "cuda: Optional[str] = None\n"
        "git_version = {!r}\n"
        "hip: Optional[str] = None\n"
        "xpu: Optional[str] = None\n"
    ).format(VERSION, debug, git_sha())
    with open(os.path.join(cwd, "torch", "version.py"), "w", encoding="utf-8") as f:
        f.write(text)


def check_submodules():
    """setup.py's check_submodules(), without the automatic `git submodule update`."""
    if check_env_flag("USE_SYSTEM_LIBS"):
        return
    gitmodules = os.path.join(cwd, ".gitmodules")
    if not os.path.isfile(gitmodules):
        return
    with open(gitmodules, encoding="utf-8") as f:
        folders = [line.split("=", 1)[1].strip() for line in f if line.strip().startswith("path")]
    files = ["CMakeLists.txt", "Makefile", "setup.py", "LICENSE", "LICENSE.md", "LICENSE.txt"]
    for folder in folders:
        if not any(os.path.exists(os.path.join(cwd, folder, name)) for name in files):
            report("Could not find any of {} in {}".format(", ".join(files), folder))
            report("Did you run 'git submodule update --init --recursive'?")
            sys.exit(1)


# ---- tools/setup_helpers/cmake.py: the env -> CMake rule
RENAMED = {"CUDNN_LIB_DIR": "CUDNN_LIBRARY", "USE_CUDA_STATIC_LINK": "CAFFE2_STATIC_LINK_CUDA"}
PASSTHROUGH = (
    "UBSAN_FLAGS BLAS WITH_BLAS CUDA_HOST_COMPILER CUDA_NVCC_EXECUTABLE CUDA_SEPARABLE_COMPILATION "
    "CUDNN_LIBRARY CUDNN_INCLUDE_DIR CUDNN_ROOT EXPERIMENTAL_SINGLE_THREAD_POOL INSTALL_TEST JAVA_HOME "
    "INTEL_MKL_DIR INTEL_OMP_DIR MKL_THREADING MKLDNN_CPU_RUNTIME MSVC_Z7_OVERRIDE "
    "CAFFE2_USE_MSVC_STATIC_RUNTIME Numa_INCLUDE_DIR Numa_LIBRARIES ONNX_ML ONNX_NAMESPACE ATEN_THREADING "
    "WERROR OPENSSL_ROOT_DIR STATIC_DISPATCH_BACKEND SELECTED_OP_LIST TORCH_CUDA_ARCH_LIST "
    "TORCH_XPU_ARCH_LIST TRACING_BASED PYTHON_LIB_REL_PATH"
).split()
LOW_PRIORITY_ALIASES = {
    "CUDA_HOST_COMPILER": "CMAKE_CUDA_HOST_COMPILER",
    "CUDAHOSTCXX": "CUDA_HOST_COMPILER",
    "CMAKE_CUDA_HOST_COMPILER": "CUDA_HOST_COMPILER",
    "CMAKE_CUDA_COMPILER": "CUDA_NVCC_EXECUTABLE",
    "CUDACXX": "CUDA_NVCC_EXECUTABLE",
}


def cmake_build_options():
    env = os.environ
    if "CMAKE_INSTALL_PREFIX" in env:
        report(
            "The following variable(s) should not be specified in the environment variable. "
            "They are directly set by PyTorch build script: CMAKE_INSTALL_PREFIX"
        )
        sys.exit(1)
    options = {}
    for var, val in env.items():
        target = RENAMED.get(var) or (var if var in PASSTHROUGH else None)
        if target is not None:
            options[target] = val
        elif var.startswith(("BUILD_", "USE_", "CMAKE_")) or var.endswith(("EXITCODE", "EXITCODE__TRYRUN_OUTPUT")):
            options[var] = val
    for var, target in LOW_PRIORITY_ALIASES.items():
        if var in env and target not in options:
            options[target] = env[var]
    purelib = sysconfig.get_paths()["purelib"]
    options.update(
        {
            "BUILD_PYTHON": True,
            "BUILD_TEST": not check_negative_env_flag("BUILD_TEST"),
            "USE_NUMPY": not check_negative_env_flag("USE_NUMPY"),
            "CMAKE_PREFIX_PATH": purelib + (";" + env["CMAKE_PREFIX_PATH"] if env.get("CMAKE_PREFIX_PATH") else ""),
            "Python_EXECUTABLE": sys.executable,
            "TORCH_BUILD_VERSION": VERSION,
            "CMAKE_INSTALL_PREFIX": os.path.join(cwd, "torch"),
        }
    )
    return options


def use_ninja():
    generator = os.environ.get("CMAKE_GENERATOR")
    if generator:
        return generator.lower() == "ninja"
    return shutil.which("ninja") is not None and not check_negative_env_flag("USE_NINJA")


def run(command, build_dir):
    print(" ".join(command), flush=True)
    try:
        subprocess.check_call(command, cwd=build_dir)
    except (subprocess.CalledProcessError, KeyboardInterrupt):
        sys.exit(1)


def build_libs():
    build_dir = os.path.join(cwd, BUILD_DIR)
    os.makedirs(build_dir, exist_ok=True)
    cmake = shutil.which("cmake") or shutil.which("cmake3")
    if cmake is None:
        report("RuntimeError: no cmake or cmake3 with version >= " + CMAKE_MINIMUM_VERSION_STRING + ", found: []")
        sys.exit(1)
    if check_env_flag("CMAKE_FRESH") and os.path.exists(cache_path()):
        os.remove(cache_path())
    ninja = use_ninja()
    needs_configure = not os.path.exists(cache_path()) or (
        ninja and not os.path.exists(os.path.join(build_dir, "build.ninja"))
    )
    report("-- Building version " + VERSION)
    if needs_configure:
        command = [cmake]
        if ninja:
            command.append("-GNinja")
        for key, value in sorted(cmake_build_options().items()):
            command.append("-D{}={}".format(key, value))
        command.append(cwd)
        run(command, build_dir)
    if check_env_flag("CMAKE_ONLY"):
        report('Finished running cmake. Run "ccmake build" or "cmake-gui build" to adjust build options and '
               '"python setup.py install" to build.')
        sys.exit(0)
    command = [cmake, "--build", ".", "--target", "install", "--config", build_type()]
    max_jobs = os.getenv("MAX_JOBS")
    if max_jobs is not None or not ninja:
        command += ["-j", str(max_jobs or multiprocessing.cpu_count())]
    run(command, build_dir)


def print_summary():
    cache = read_cache()
    report("-- Building with build type " + cache.get("CMAKE_BUILD_TYPE", "?"))
    for key, on, off in [
        ("USE_CUDA", "-- Detected CUDA", "-- Not using CUDA"),
        ("USE_CUDNN", "-- Using cuDNN", "-- Not using cuDNN"),
        ("USE_DISTRIBUTED", "-- Using distributed", "-- Not using distributed"),
        ("USE_OPENMP", "-- Using OpenMP", "-- Not using OpenMP"),
        ("USE_NUMPY", "-- Using NumPy", "-- Not using NumPy"),
    ]:
        report(on if cache.get(key, "OFF").upper() in TRUTHY else off)


class build_ext(_build_ext):
    """Runs CMake + Ninja, then hands the CMake-built torch._C to setuptools."""

    def run(self):
        check_submodules()
        write_version_file()
        build_libs()
        print_summary()
        super().run()

    def build_extensions(self):
        lib_src = os.path.join(cwd, "torch", "lib")
        lib_dst = os.path.join(os.path.realpath(self.build_lib), "torch", "lib")
        if os.path.realpath(lib_src) != os.path.realpath(lib_dst) and os.path.isdir(lib_src):
            self.copy_tree(lib_src, lib_dst)
        for ext in self.extensions:
            filename = self.get_ext_filename(self.get_ext_fullname(ext.name))
            src = os.path.join(cwd, filename)
            if not os.path.exists(src):
                report("error: CMake did not produce " + src)
                sys.exit(1)
            dst = os.path.join(os.path.realpath(self.build_lib), filename)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.realpath(src) != os.path.realpath(dst):
                self.copy_file(src, dst)


# PyTorch writes torch/version.py before setup() runs, so build_py packs it into a wheel
write_version_file()
setup(
    name="torch",
    version=VERSION,
    description="minitorch: a tiny tree with PyTorch's build interface (torchbuild tests)",
    packages=["torch", "torch.cuda"],
    package_data={"torch": ["lib/*.so*"]},
    ext_modules=[Extension("torch._C", sources=[])],
    cmdclass={"build_ext": build_ext},
    python_requires=">=3.9",
    zip_safe=False,
)
'''

_PYPROJECT = r"""
[build-system]
# As PyTorch <= 2.13: setuptools drives the build through setup.py.
requires = ["setuptools>=62.3.0", "wheel"]
build-backend = "setuptools.build_meta"
"""

_CMAKELISTS = r"""
cmake_minimum_required(VERSION 3.18 FATAL_ERROR)
project(Torch CXX C)

if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(LINUX TRUE)
else()
  set(LINUX FALSE)
endif()

include(CMakeDependentOption)

set(CMAKE_CXX_STANDARD 17 CACHE STRING "The C++ standard whose features are requested to build this target.")
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

if(NOT CMAKE_BUILD_TYPE)
  message(STATUS "Build type not set - defaulting to Release")
  set(CMAKE_BUILD_TYPE "Release" CACHE STRING
    "Choose the type of build from: Debug Release RelWithDebInfo MinSizeRel Coverage." FORCE)
endif()

# ---[ Options.
# Note to developers: options are declared as in PyTorch's top CMakeLists.txt.
option(BUILD_BINARY "Build C++ binaries" OFF)
option(BUILD_PYTHON "Build Python binaries" ON)
option(BUILD_SHARED_LIBS "Build libtorch_cpu.so" ON)
option(BUILD_TEST "Build C++ test binaries (need gtest and gbenchmark)" OFF)
option(USE_CUDA "Use CUDA" ON)
cmake_dependent_option(
  USE_CUDNN "Use cuDNN" ON
  "USE_CUDA" OFF)
cmake_dependent_option(USE_STATIC_CUDNN "Use cuDNN static libraries" OFF
  "USE_CUDNN" OFF)
cmake_dependent_option(USE_ROCM "Use ROCm" ON "LINUX" OFF)
option(USE_DISTRIBUTED "Use distributed" ON)
cmake_dependent_option(
  USE_GLOO "Use Gloo. Only available if USE_DISTRIBUTED is on." ON
  "USE_DISTRIBUTED" OFF)
cmake_dependent_option(USE_NCCL "Use NCCL" ON
  "USE_CUDA OR USE_ROCM;UNIX;NOT APPLE" OFF)
option(USE_NUMPY "Use NumPy" ON)
option(USE_OPENMP "Use OpenMP for parallel code" ON)
cmake_dependent_option(
  USE_CCACHE "Attempt using CCache to wrap the compilation" ON "UNIX" OFF)
option(WERROR "Build with -Werror supported by the compiler" OFF)
option(DEBUG_CUDA "When compiling DEBUG, also attempt to compile CUDA with debug flags (may cause nvcc to OOM)" OFF)
option(USE_SYSTEM_LIBS "Use all available system-provided libraries." OFF)

macro(torch_update_option variable value)
  get_property(__help_string CACHE ${variable} PROPERTY HELPSTRING)
  set(${variable} ${value} CACHE BOOL ${__help_string} FORCE)
endmacro()

# ---[ ccache, as PyTorch does it
if(USE_CCACHE)
  find_program(CCACHE_PROGRAM ccache)
  if(CCACHE_PROGRAM)
    foreach(lang C CXX)
      if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER "${CCACHE_PROGRAM}" CACHE STRING "${lang} compiler launcher")
      endif()
    endforeach()
  else()
    message(STATUS "Could not find ccache. Consider installing ccache to speed up compilation.")
  endif()
endif()

# ---[ CUDA / ROCm: minitorch has no GPU code, so it behaves as PyTorch does without a toolkit.
if(USE_CUDA)
  message(WARNING "Not compiling with CUDA. Suppress this warning with -DUSE_CUDA=OFF.")
  torch_update_option(USE_CUDA OFF)
  torch_update_option(USE_CUDNN OFF)
  torch_update_option(USE_NCCL OFF)
endif()
if(USE_ROCM)
  message(STATUS "ROCm not found. Not compiling with ROCm.")
  torch_update_option(USE_ROCM OFF)
  torch_update_option(USE_NCCL OFF)
endif()

# ---[ Python
if(BUILD_PYTHON)
  find_package(Python REQUIRED COMPONENTS Interpreter Development.Module OPTIONAL_COMPONENTS NumPy)
  if(USE_NUMPY AND NOT Python_NumPy_FOUND)
    message(WARNING "NumPy could not be found. Not building with NumPy. Suppress this warning with -DUSE_NUMPY=OFF")
    torch_update_option(USE_NUMPY OFF)
  endif()
endif()

# ---[ OpenMP
if(USE_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
  if(OpenMP_CXX_FOUND)
    message(STATUS "Adding OpenMP CXX_FLAGS: ${OpenMP_CXX_FLAGS}")
  else()
    message(WARNING "OpenMP not found. Not compiling with OpenMP. Suppress this warning with -DUSE_OPENMP=OFF")
    torch_update_option(USE_OPENMP OFF)
  endif()
endif()

string(APPEND CMAKE_CXX_FLAGS " -fvisibility-inlines-hidden -Wall -Wextra -Werror=return-type -Wno-unused-parameter")
if(WERROR)
  string(APPEND CMAKE_CXX_FLAGS " -Werror")
endif()

# ---[ Version
if(NOT TORCH_BUILD_VERSION)
  file(READ "${PROJECT_SOURCE_DIR}/version.txt" TORCH_BUILD_VERSION)
  string(STRIP "${TORCH_BUILD_VERSION}" TORCH_BUILD_VERSION)
endif()
string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" TORCH_VERSION "${TORCH_BUILD_VERSION}")
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  OUTPUT_VARIABLE COMMIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)

# ---[ Build settings, compiled into libtorch_cpu (torch.__config__.show()).
configure_file(${PROJECT_SOURCE_DIR}/c10/macros/cmake_macros.h.in
               ${PROJECT_BINARY_DIR}/include/c10/macros/cmake_macros.h)

include(cmake/Summary.cmake)

add_subdirectory(third_party/minifmt)
add_subdirectory(c10)
add_subdirectory(caffe2)
if(BUILD_PYTHON)
  add_subdirectory(torch)
endif()

torch_print_configuration_summary()
"""

_SUMMARY_CMAKE = r"""
# Prints the configuration, as PyTorch's cmake/Summary.cmake does.
function(torch_print_configuration_summary)
  message(STATUS "")
  message(STATUS "******** Summary ********")
  message(STATUS "General:")
  message(STATUS "  CMake version         : ${CMAKE_VERSION}")
  message(STATUS "  CMake command         : ${CMAKE_COMMAND}")
  message(STATUS "  System                : ${CMAKE_SYSTEM_NAME}")
  message(STATUS "  C++ compiler          : ${CMAKE_CXX_COMPILER}")
  message(STATUS "  C++ compiler id       : ${CMAKE_CXX_COMPILER_ID}")
  message(STATUS "  C++ compiler version  : ${CMAKE_CXX_COMPILER_VERSION}")
  message(STATUS "  CXX flags             : ${CMAKE_CXX_FLAGS}")
  message(STATUS "  Build type            : ${CMAKE_BUILD_TYPE}")
  message(STATUS "  CMAKE_INSTALL_PREFIX  : ${CMAKE_INSTALL_PREFIX}")
  message(STATUS "  TORCH_VERSION         : ${TORCH_VERSION}")
  message(STATUS "  BUILD_PYTHON          : ${BUILD_PYTHON}")
  message(STATUS "  BUILD_SHARED_LIBS     : ${BUILD_SHARED_LIBS}")
  message(STATUS "  BUILD_TEST            : ${BUILD_TEST}")
  message(STATUS "  USE_CCACHE            : ${USE_CCACHE}")
  message(STATUS "  USE_CUDA              : ${USE_CUDA}")
  message(STATUS "  USE_CUDNN             : ${USE_CUDNN}")
  message(STATUS "  USE_ROCM              : ${USE_ROCM}")
  message(STATUS "  USE_DISTRIBUTED       : ${USE_DISTRIBUTED}")
  message(STATUS "    USE_GLOO            : ${USE_GLOO}")
  message(STATUS "  USE_NCCL              : ${USE_NCCL}")
  message(STATUS "  USE_NUMPY             : ${USE_NUMPY}")
  message(STATUS "  USE_OPENMP            : ${USE_OPENMP}")
endfunction()
"""

_MACROS_IN = r"""
#pragma once
// Generated by CMake from c10/macros/cmake_macros.h.in (PyTorch: caffe2/core/macros.h.in).
#define TORCH_BUILD_VERSION_STRING "@TORCH_BUILD_VERSION@"
#define TORCH_BUILD_STRINGS { \
  {"TORCH_VERSION", "@TORCH_VERSION@"}, \
  {"COMMIT_SHA", "@COMMIT_SHA@"}, \
  {"CXX_COMPILER", "@CMAKE_CXX_COMPILER@"}, \
  {"CXX_FLAGS", "@CMAKE_CXX_FLAGS@"}, \
  {"BUILD_TYPE", "@CMAKE_BUILD_TYPE@"}, \
  {"BLAS_INFO", ""}, \
  {"LAPACK_INFO", ""}, \
  {"USE_CUDA", "@USE_CUDA@"}, \
  {"USE_ROCM", "@USE_ROCM@"}, \
  {"CUDA_VERSION", ""}, \
  {"USE_CUDNN", "@USE_CUDNN@"}, \
  {"USE_NCCL", "@USE_NCCL@"}, \
  {"USE_GLOO", "@USE_GLOO@"}, \
  {"USE_MPI", "OFF"}, \
  {"USE_OPENMP", "@USE_OPENMP@"}, \
  {"USE_DISTRIBUTED", "@USE_DISTRIBUTED@"}, \
  {"USE_NUMPY", "@USE_NUMPY@"}, \
}
"""

_MINIFMT_CMAKELISTS = r"""
cmake_minimum_required(VERSION 3.18)
project(minifmt CXX)
add_library(minifmt STATIC src/format.cc)
target_include_directories(minifmt PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
set_target_properties(minifmt PROPERTIES POSITION_INDEPENDENT_CODE ON)
"""

_MINIFMT_H = r"""
#pragma once
#include <string>
#include <initializer_list>

namespace minifmt {
// Replaces each "{}" in `pattern` by the next argument.
std::string format(const std::string& pattern, std::initializer_list<std::string> args);
}  // namespace minifmt
"""

_MINIFMT_CC = r"""
#include <minifmt/format.h>

namespace minifmt {
std::string format(const std::string& pattern, std::initializer_list<std::string> args) {
  std::string out;
  auto it = args.begin();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 1 < pattern.size() && pattern[i + 1] == '}' && it != args.end()) {
      out += *it++;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}
}  // namespace minifmt
"""

_C10_CMAKELISTS = r"""
set(C10_SRCS
  core/Allocator.cpp
  core/Device.cpp
  util/Logging.cpp
  util/StringUtil.cpp
)
add_library(c10 ${C10_SRCS})
target_include_directories(c10 PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/include)
target_link_libraries(c10 PRIVATE minifmt)
set_target_properties(c10 PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS c10 LIBRARY DESTINATION lib ARCHIVE DESTINATION lib)

if(BUILD_TEST)
  add_executable(c10_StringUtil_test test/util/StringUtil_test.cpp)
  target_link_libraries(c10_StringUtil_test PRIVATE c10)
endif()
"""

_C10_FILES = {
    "c10/macros/Export.h": r"""
#pragma once
#define C10_API __attribute__((__visibility__("default")))
#define TORCH_API C10_API
""",
    "c10/core/Allocator.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <cstddef>

namespace c10 {
C10_API void* alloc_cpu(std::size_t nbytes);
C10_API void free_cpu(void* data);
C10_API std::size_t allocated_bytes();
}  // namespace c10
""",
    "c10/core/Allocator.cpp": r"""
#include <c10/core/Allocator.h>
#include <c10/util/Logging.h>
#include <atomic>
#include <cstdlib>
#include <new>

namespace c10 {
namespace {
std::atomic<std::size_t> g_allocated{0};
constexpr std::size_t kAlignment = 64;
}  // namespace

void* alloc_cpu(std::size_t nbytes) {
  if (nbytes == 0) {
    return nullptr;
  }
  std::size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded);
  if (data == nullptr) {
    throw std::bad_alloc();
  }
  g_allocated += rounded;
  return data;
}

void free_cpu(void* data) { std::free(data); }

std::size_t allocated_bytes() { return g_allocated.load(); }
}  // namespace c10
""",
    "c10/core/Device.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <string>

namespace c10 {
enum class DeviceType { CPU = 0, CUDA = 1 };
C10_API std::string DeviceTypeName(DeviceType type, bool lower_case = false);
}  // namespace c10
""",
    "c10/core/Device.cpp": r"""
#include <c10/core/Device.h>
#include <c10/util/StringUtil.h>

namespace c10 {
std::string DeviceTypeName(DeviceType type, bool lower_case) {
  std::string name = type == DeviceType::CPU ? "CPU" : "CUDA";
  return lower_case ? to_lower(name) : name;
}
}  // namespace c10
""",
    "c10/util/Logging.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <string>

namespace c10 {
// "file:line: message", formatted with minifmt (third_party/minifmt).
C10_API std::string format_location(const std::string& file, int line, const std::string& message);
}  // namespace c10
""",
    "c10/util/Logging.cpp": r"""
#include <c10/util/Logging.h>
#include <minifmt/format.h>

namespace c10 {
std::string format_location(const std::string& file, int line, const std::string& message) {
  return minifmt::format("{}:{}: {}", {file, std::to_string(line), message});
}
}  // namespace c10
""",
    "c10/util/StringUtil.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <string>
#include <vector>

namespace c10 {
C10_API std::string join(const std::string& sep, const std::vector<std::string>& parts);
C10_API std::string to_lower(std::string text);
}  // namespace c10
""",
    "c10/util/StringUtil.cpp": r"""
#include <c10/util/StringUtil.h>
#include <cctype>

namespace c10 {
std::string join(const std::string& sep, const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string to_lower(std::string text) {
  for (auto& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}
}  // namespace c10
""",
    "c10/test/util/StringUtil_test.cpp": r"""
#include <c10/util/StringUtil.h>
#include <cstdio>

int main() {
  if (c10::join(", ", {"a", "b"}) != "a, b") {
    std::puts("FAILED");
    return 1;
  }
  std::puts("OK");
  return 0;
}
""",
}

_CAFFE2_CMAKELISTS = r"""
# libtorch_cpu, as PyTorch's caffe2/CMakeLists.txt builds it from aten/ and torch/csrc/.
set(TORCH_SRC_DIR ${PROJECT_SOURCE_DIR}/torch)
set(ATen_CPU_SRCS
  ${PROJECT_SOURCE_DIR}/aten/src/ATen/Context.cpp
  ${PROJECT_SOURCE_DIR}/aten/src/ATen/Parallel.cpp
  ${PROJECT_SOURCE_DIR}/aten/src/ATen/Version.cpp
  ${PROJECT_SOURCE_DIR}/aten/src/ATen/native/BinaryOps.cpp
  ${PROJECT_SOURCE_DIR}/aten/src/ATen/native/UnaryOps.cpp
)
if(USE_DISTRIBUTED)
  list(APPEND ATen_CPU_SRCS ${TORCH_SRC_DIR}/csrc/distributed/c10d/ProcessGroup.cpp)
endif()
add_library(torch_cpu ${ATen_CPU_SRCS})
target_include_directories(torch_cpu PUBLIC ${PROJECT_SOURCE_DIR}/aten/src ${PROJECT_SOURCE_DIR})
target_link_libraries(torch_cpu PUBLIC c10)
if(USE_DISTRIBUTED)
  target_compile_definitions(torch_cpu PRIVATE USE_DISTRIBUTED)
endif()
if(USE_OPENMP)
  target_compile_definitions(torch_cpu PRIVATE AT_PARALLEL_OPENMP=1)
  target_link_libraries(torch_cpu PRIVATE OpenMP::OpenMP_CXX)
endif()
set_target_properties(torch_cpu PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS torch_cpu LIBRARY DESTINATION lib ARCHIVE DESTINATION lib)
"""

_ATEN_FILES = {
    "aten/src/ATen/Context.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <string>

namespace at {
// "CPU capability usage: ..." as ATen reports it.
TORCH_API std::string get_cpu_capability();
}  // namespace at
""",
    "aten/src/ATen/Context.cpp": r"""
#include <ATen/Context.h>

namespace at {
std::string get_cpu_capability() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) {
    return "AVX512";
  }
  if (__builtin_cpu_supports("avx2")) {
    return "AVX2";
  }
  return "DEFAULT";
#else
  return "DEFAULT";
#endif
}
}  // namespace at
""",
    "aten/src/ATen/Parallel.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <string>

namespace at {
TORCH_API int get_num_threads();
TORCH_API std::string get_parallel_info();
}  // namespace at
""",
    "aten/src/ATen/Parallel.cpp": r"""
#include <ATen/Parallel.h>
#include <cstdlib>
#include <sstream>
#include <thread>
#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

namespace at {
int get_num_threads() {
#if AT_PARALLEL_OPENMP
  return omp_get_max_threads();
#else
  return static_cast<int>(std::thread::hardware_concurrency());
#endif
}

static std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "[not set]";
}

std::string get_parallel_info() {
  std::ostringstream ss;
  ss << "ATen/Parallel:\n\tat::get_num_threads() : " << get_num_threads() << std::endl;
  ss << "\tat::get_num_interop_threads() : " << get_num_threads() << std::endl;
#if AT_PARALLEL_OPENMP
  ss << "OpenMP " << _OPENMP << std::endl;
  ss << "\tomp_get_max_threads() : " << omp_get_max_threads() << std::endl;
#endif
  ss << "std::thread::hardware_concurrency() : " << std::thread::hardware_concurrency() << std::endl;
  ss << "Environment variables:" << std::endl;
  ss << "\tOMP_NUM_THREADS : " << env("OMP_NUM_THREADS") << std::endl;
  ss << "\tMKL_NUM_THREADS : " << env("MKL_NUM_THREADS") << std::endl;
#if AT_PARALLEL_OPENMP
  ss << "ATen parallel backend: OpenMP" << std::endl;
#else
  ss << "ATen parallel backend: native thread pool" << std::endl;
#endif
  return ss.str();
}
}  // namespace at
""",
    "aten/src/ATen/Version.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <map>
#include <string>

namespace at {
// The text of torch.__config__.show() (aten/src/ATen/Version.cpp in PyTorch).
TORCH_API std::string show_config();
TORCH_API std::string get_cxx_flags();
TORCH_API std::map<std::string, std::string> build_options();
}  // namespace at
""",
    "aten/src/ATen/Version.cpp": r"""
#include <ATen/Context.h>
#include <ATen/Version.h>
#include <c10/macros/cmake_macros.h>
#include <sstream>

namespace at {
std::map<std::string, std::string> build_options() {
  return TORCH_BUILD_STRINGS;
}

std::string show_config() {
  std::ostringstream ss;
  ss << "PyTorch built with:\n";
#if defined(__clang__)
  ss << "  - clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__ << "\n";
#elif defined(__GNUC__)
  ss << "  - GCC " << __GNUC__ << "." << __GNUC_MINOR__ << "\n";
#endif
#if defined(__cplusplus)
  ss << "  - C++ Version: " << __cplusplus << "\n";
#endif
#if AT_PARALLEL_OPENMP
  ss << "  - OpenMP " << _OPENMP;
  const char* ver_str = nullptr;
  switch (_OPENMP) {
    case 201307: ver_str = "4.0"; break;
    case 201511: ver_str = "4.5"; break;
    case 201811: ver_str = "5.0"; break;
    case 202011: ver_str = "5.1"; break;
    default: break;
  }
  if (ver_str) {
    ss << " (a.k.a. OpenMP " << ver_str << ")";
  }
  ss << "\n";
#endif
  ss << "  - CPU capability usage: " << get_cpu_capability() << "\n";
  ss << "  - Build settings: ";
  for (const auto& pair : build_options()) {
    if (!pair.second.empty()) {
      ss << pair.first << "=" << pair.second << ", ";
    }
  }
  ss << "\n";
  return ss.str();
}

std::string get_cxx_flags() { return build_options()["CXX_FLAGS"]; }
}  // namespace at
""",
    "aten/src/ATen/native/BinaryOps.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <vector>

namespace at::native {
TORCH_API std::vector<double> add(const std::vector<double>& a, const std::vector<double>& b);
TORCH_API std::vector<double> mul(const std::vector<double>& a, const std::vector<double>& b);
}  // namespace at::native
""",
    "aten/src/ATen/native/BinaryOps.cpp": r"""
#include <ATen/native/BinaryOps.h>
#include <c10/core/Allocator.h>
#include <c10/util/Logging.h>
#include <stdexcept>

namespace at::native {
static void check_same_size(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument(c10::format_location(__FILE__, __LINE__, "The size of tensor a (" +
        std::to_string(a.size()) + ") must match the size of tensor b (" + std::to_string(b.size()) + ")"));
  }
}

std::vector<double> add(const std::vector<double>& a, const std::vector<double>& b) {
  check_same_size(a, b);
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
@INJECT@
  }
  return out;
}

std::vector<double> mul(const std::vector<double>& a, const std::vector<double>& b) {
  check_same_size(a, b);
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out[i] = a[i] * b[i];
  }
  return out;
}
}  // namespace at::native
""",
    "aten/src/ATen/native/UnaryOps.h": r"""
#pragma once
#include <c10/macros/Export.h>
#include <vector>

namespace at::native {
TORCH_API std::vector<double> neg(const std::vector<double>& a);
}  // namespace at::native
""",
    "aten/src/ATen/native/UnaryOps.cpp": r"""
#include <ATen/native/UnaryOps.h>

namespace at::native {
std::vector<double> neg(const std::vector<double>& a) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out[i] = -a[i];
  }
  return out;
}
}  // namespace at::native
""",
}

_INJECT_OK = "    out[i] = a[i] + b[i];"
_INJECT_IDENT = "b_undeclared"
_INJECT_BAD = f"    out[i] = a[i] + {_INJECT_IDENT}[i];  // injected compile error"

_TORCH_CMAKELISTS = r"""
# The Python extension torch._C (PyTorch: torch/CMakeLists.txt + torch/csrc/stub.c).
Python_add_library(_C MODULE WITH_SOABI
  ${CMAKE_CURRENT_SOURCE_DIR}/csrc/Module.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/csrc/utils/python_list.cpp)
target_link_libraries(_C PRIVATE torch_cpu c10)
target_include_directories(_C PRIVATE ${PROJECT_SOURCE_DIR})
set_target_properties(_C PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
install(TARGETS _C LIBRARY DESTINATION .)
"""

_TORCH_FILES = {
    "torch/csrc/distributed/c10d/ProcessGroup.cpp": r"""
#include <c10/util/StringUtil.h>
#include <string>

namespace c10d {
// A stand-in for the distributed sources that USE_DISTRIBUTED adds to libtorch_cpu.
std::string backend_names() { return c10::join(",", {"gloo"}); }
}  // namespace c10d
""",
    "torch/csrc/utils/python_list.h": r"""
#pragma once
#include <Python.h>
#include <vector>

namespace torch::utils {
// A Python sequence of numbers -> doubles; returns false with a Python error set.
bool to_doubles(PyObject* seq, std::vector<double>& out);
PyObject* from_doubles(const std::vector<double>& values);
}  // namespace torch::utils
""",
    "torch/csrc/utils/python_list.cpp": r"""
#include <torch/csrc/utils/python_list.h>

namespace torch::utils {
bool to_doubles(PyObject* seq, std::vector<double>& out) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of numbers");
  if (!fast) {
    return false;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  out.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
    if (PyErr_Occurred()) {
      Py_DECREF(fast);
      return false;
    }
  }
  Py_DECREF(fast);
  return true;
}

PyObject* from_doubles(const std::vector<double>& values) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(values.size()));
  if (!list) {
    return nullptr;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyFloat_FromDouble(values[i]));
  }
  return list;
}
}  // namespace torch::utils
""",
    "torch/csrc/Module.cpp": r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/UnaryOps.h>
#include <c10/macros/cmake_macros.h>
#include <torch/csrc/utils/python_list.h>
#include <stdexcept>

using torch::utils::from_doubles;
using torch::utils::to_doubles;

static PyObject* binary(PyObject* args,
                        std::vector<double> (*op)(const std::vector<double>&, const std::vector<double>&)) {
  PyObject *a = nullptr, *b = nullptr;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) {
    return nullptr;
  }
  std::vector<double> va, vb;
  if (!to_doubles(a, va) || !to_doubles(b, vb)) {
    return nullptr;
  }
  try {
    return from_doubles(op(va, vb));
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

static PyObject* py_add(PyObject*, PyObject* args) { return binary(args, at::native::add); }
static PyObject* py_mul(PyObject*, PyObject* args) { return binary(args, at::native::mul); }

static PyObject* py_neg(PyObject*, PyObject* a) {
  std::vector<double> va;
  if (!to_doubles(a, va)) {
    return nullptr;
  }
  return from_doubles(at::native::neg(va));
}

static PyObject* py_show_config(PyObject*, PyObject*) { return PyUnicode_FromString(at::show_config().c_str()); }
static PyObject* py_cxx_flags(PyObject*, PyObject*) { return PyUnicode_FromString(at::get_cxx_flags().c_str()); }
static PyObject* py_parallel_info(PyObject*, PyObject*) {
  return PyUnicode_FromString(at::get_parallel_info().c_str());
}
static PyObject* py_num_threads(PyObject*, PyObject*) { return PyLong_FromLong(at::get_num_threads()); }

static PyMethodDef methods[] = {
    {"_add", py_add, METH_VARARGS, "_add(a, b) -> list: element-wise a + b, computed in libtorch_cpu"},
    {"_mul", py_mul, METH_VARARGS, "_mul(a, b) -> list: element-wise a * b"},
    {"_neg", py_neg, METH_O, "_neg(a) -> list: element-wise -a"},
    {"_show_config", py_show_config, METH_NOARGS, "the text of torch.__config__.show()"},
    {"_cxx_flags", py_cxx_flags, METH_NOARGS, "CXX_FLAGS of the build"},
    {"_parallel_info", py_parallel_info, METH_NOARGS, "the text of torch.__config__.parallel_info()"},
    {"_get_num_threads", py_num_threads, METH_NOARGS, "at::get_num_threads()"},
    {nullptr, nullptr, 0, nullptr},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "torch._C", "minitorch's C extension", -1, methods};

PyMODINIT_FUNC PyInit__C(void) {
  PyObject* m = PyModule_Create(&module_def);
  if (!m) {
    return nullptr;
  }
  PyModule_AddObject(m, "_GLIBCXX_USE_CXX11_ABI", PyBool_FromLong(_GLIBCXX_USE_CXX11_ABI));
  PyModule_AddStringConstant(m, "_build_version", TORCH_BUILD_VERSION_STRING);
  return m;
}
""",
    "torch/__init__.py": r'''
"""minitorch: PyTorch's package layout in small (generated by torchbuild's tests).

``torch._C`` is the compiled extension; it links ``torch/lib/libtorch_cpu.so`` and
``torch/lib/libc10.so`` through its ``$ORIGIN/lib`` RPATH.
"""

from torch import _C
from torch import __config__, cuda, version
from torch.version import __version__

__all__ = ["Tensor", "tensor", "add", "mul", "neg", "__version__"]


class Tensor:
    """A one-dimensional float tensor whose arithmetic runs in libtorch_cpu."""

    def __init__(self, data):
        self._data = [float(x) for x in data]

    def tolist(self):
        return list(self._data)

    def __len__(self):
        return len(self._data)

    def __add__(self, other):
        return add(self, other)

    def __mul__(self, other):
        return mul(self, other)

    def __neg__(self):
        return neg(self)

    def __repr__(self):
        return "tensor({})".format(self._data)


def tensor(data):
    return Tensor(data)


def add(a, b):
    return Tensor(_C._add(a.tolist(), b.tolist()))


def mul(a, b):
    return Tensor(_C._mul(a.tolist(), b.tolist()))


def neg(a):
    return Tensor(_C._neg(a.tolist()))
''',
    "torch/__config__.py": r'''
import torch


def show():
    """Return a human-readable string with descriptions of the configuration of PyTorch."""
    return torch._C._show_config()


def _cxx_flags():
    """Returns the CXX_FLAGS used when building PyTorch."""
    return torch._C._cxx_flags()


def parallel_info():
    r"""Returns detailed string with parallelization settings"""
    return torch._C._parallel_info()
''',
    "torch/cuda/__init__.py": r'''
"""minitorch is built without CUDA: the same answers as a CPU-only PyTorch."""


def is_available():
    return False


def device_count():
    return 0


def get_arch_list():
    return []
''',
}


def injected_error_location() -> InjectedError:
    """The file, line and message of the compile error ``inject_error=True`` adds.

    Computed from the template (the line of ``@INJECT@`` in ``BinaryOps.cpp``), never
    hard-coded, so editing the template keeps it right.
    """
    rel = "aten/src/ATen/native/BinaryOps.cpp"
    text = _ATEN_FILES[rel].lstrip("\n")
    line = text.splitlines().index("@INJECT@") + 1
    return InjectedError(file=rel, line=line, identifier=_INJECT_IDENT, message="was not declared in this scope")


#: Where ``inject_error=True`` breaks the build (see :func:`injected_error_location`).
INJECTED_ERROR = injected_error_location()


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _minifmt_files() -> dict[str, str]:
    return {
        "CMakeLists.txt": _MINIFMT_CMAKELISTS,
        "include/minifmt/format.h": _MINIFMT_H,
        "src/format.cc": _MINIFMT_CC,
        "LICENSE": "MIT License (minifmt, a test fixture of torchbuild)\n",
    }


def make_minitorch(
    dest: Path,
    *,
    submodule: bool = True,
    init_submodule: bool = True,
    inject_error: bool = False,
    version: str = "2.13.0",
) -> Path:
    """Generate a minitorch git repository at ``dest`` (see the module docstring).

    :param dest: directory to create (must not exist or be empty).  With ``submodule``,
        the submodule's origin repository is created next to it, at
        ``<dest>-minifmt-origin`` (its URL in ``.gitmodules`` is that absolute path).
    :param submodule: ``third_party/minifmt`` is a git submodule (``.gitmodules``);
        False vendors the same files as ordinary tracked files (no ``.gitmodules``).
    :param init_submodule: False leaves the submodule declared (``.gitmodules`` and the
        gitlink committed) but not initialised and its folder empty, as after a
        ``git clone`` without ``--recursive`` (``git submodule status`` shows ``-``).
    :param inject_error: put a real C++ compile error (an undeclared identifier) at
        :data:`INJECTED_ERROR` (``aten/src/ATen/native/BinaryOps.cpp``, line
        ``INJECTED_ERROR.line``); the tree is committed with it.
    :param version: content of ``version.txt``.
    :returns: ``dest`` (absolute).
    :raises FileExistsError: ``dest`` exists and is not empty.
    :raises RuntimeError: a git command failed (message has its output).
    """
    dest = Path(dest).absolute()
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} exists and is not empty")
    dest.mkdir(parents=True, exist_ok=True)

    binary_ops = _ATEN_FILES["aten/src/ATen/native/BinaryOps.cpp"].replace(
        "@INJECT@", _INJECT_BAD if inject_error else _INJECT_OK
    )
    files: dict[str, str] = {
        "setup.py": _SETUP_PY,
        "version.txt": version + "\n",
        "CMakeLists.txt": _CMAKELISTS,
        "cmake/Summary.cmake": _SUMMARY_CMAKE,
        "c10/CMakeLists.txt": _C10_CMAKELISTS,
        "c10/macros/cmake_macros.h.in": _MACROS_IN,
        "caffe2/CMakeLists.txt": _CAFFE2_CMAKELISTS,
        "torch/CMakeLists.txt": _TORCH_CMAKELISTS,
        "pyproject.toml": _PYPROJECT,
        "README.md": "# minitorch\n\nA tiny tree with PyTorch's build interface, generated by torchbuild's tests.\n",
        ".gitignore": "\n".join(
            [
                "build/",
                "torch/lib/",
                "torch/_C*.so",
                "torch/version.py",
                "*.egg-info/",
                "__pycache__/",
                "compile_commands.json",
                ".torchbuild/",
                "dist/",
                "",
            ]
        ),
        **_C10_FILES,
        **_ATEN_FILES,
        **_TORCH_FILES,
    }
    files["aten/src/ATen/native/BinaryOps.cpp"] = binary_ops
    _write(dest, files)

    git("init", "-q", cwd=dest)
    if submodule:
        origin = dest.parent / f"{dest.name}-minifmt-origin"
        if origin.exists() and any(origin.iterdir()):
            raise FileExistsError(f"{origin} exists and is not empty")
        origin.mkdir(parents=True, exist_ok=True)
        _write(origin, _minifmt_files())
        git("init", "-q", cwd=origin)
        git("add", "-A", cwd=origin)
        git("commit", "-q", "-m", "minifmt 1.0", cwd=origin)
        git("submodule", "add", "-q", str(origin), SUBMODULE_PATH, cwd=dest)
    else:
        _write(dest / SUBMODULE_PATH, _minifmt_files())
    git("add", "-A", cwd=dest)
    message = f"minitorch {version}" + (" (with an injected compile error)" if inject_error else "")
    git("commit", "-q", "-m", message, cwd=dest)
    if submodule and not init_submodule:
        git("submodule", "deinit", "-q", "-f", SUBMODULE_PATH, cwd=dest)
        modules = dest / ".git" / "modules" / SUBMODULE_PATH
        if modules.exists():
            shutil.rmtree(modules)
    return dest


def make_build_venv(dest: Path) -> Path:
    """Create a virtual environment at ``dest`` that can build minitorch, and return its python.

    ``python -m venv`` from the running interpreter, then ``pip install setuptools wheel``
    (pip's configured indexes; seconds).  The venv has no system site-packages, so the
    real ``torch`` of the global Python can never shadow or be replaced by minitorch.

    :param dest: directory of the venv (created).
    :returns: path of the venv's ``bin/python``.
    :raises subprocess.CalledProcessError: venv creation or pip failed.
    :raises subprocess.TimeoutExpired: after 120 s (venv) / 300 s (pip).
    """
    dest = Path(dest).absolute()
    subprocess.run([sys.executable, "-m", "venv", str(dest)], check=True, timeout=120, capture_output=True)
    python = dest / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "setuptools", "wheel"],
        check=True,
        timeout=300,
        capture_output=True,
    )
    return python


def build_env(venv_python: Path | str, **overrides: str) -> dict[str, str]:
    """An environment for building minitorch with ``venv_python``: the current
    environment without ``PYTHONPATH``/``PYTHONHOME``/``VIRTUAL_ENV`` and without any
    ``BUILD_*``/``USE_*``/``CMAKE_*``/``MAX_JOBS``/``DEBUG``/``REL_WITH_DEB_INFO`` from the
    test runner (they would reach CMake), the venv's ``bin`` first on ``PATH``, then
    ``overrides``.
    """
    drop_prefixes = ("BUILD_", "USE_", "CMAKE_", "PYTORCH_BUILD_")
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAX_JOBS", "DEBUG", "REL_WITH_DEB_INFO", "CFLAGS", "CXXFLAGS"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(drop_prefixes)}
    bindir = str(Path(venv_python).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.update(overrides)
    return env
