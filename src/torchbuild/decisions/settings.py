"""Everything a user can set, in one typed model, and the one validator of what they wrote.

A setting reaches torchbuild from one of four places:

* a profile key: ``[profile.NAME]`` in ``torchbuild.toml``, ``[tool.torchbuild.profile.NAME]``
  in ``pyproject.toml``, or a built-in profile of ``knowledge/data/profiles.toml``;
* a command-line flag of ``plan``, ``build``, ``doctor`` or ``source check``;
* ``--set KEY=VALUE`` (and a profile's ``set`` table): a build variable, passed on to the build;
  the few whose value torchbuild itself reads (``MAX_JOBS``) are typed here as well;
* an environment variable torchbuild reads for itself (``TORCHBUILD_CACHE``,
  ``TORCHBUILD_TRACEBACK``, ``DISTCC_HOSTS``).  The build variables a build script reads from
  the environment (``CUDA_HOME``, ``MAX_JOBS`` ...) are facts of the machine, not settings.

:data:`SPECS` says, for each setting, its type, range or allowed values and every place it can
come from; :func:`convert` checks one value against it.  A bad value is one line naming where
it came from (file and key, flag, ``--set`` item or environment variable), the value as
written and what is allowed, with "did you mean" for a misspelt name; it raises
:class:`~torchbuild.errors.ProfileError` (a file) or :class:`~torchbuild.errors.UsageError`
(exit 2 both) before anything is run or written.  :func:`json_schema` derives the JSON Schema
of ``torchbuild.toml`` from the same model (checked in as
``knowledge/data/torchbuild.schema.json``; ``scripts/gen-schema`` rewrites it, a test fails
when it is stale).

Why dataclasses and a small validator, not pydantic or msgspec: there are a dozen settings of
six simple kinds, and what matters is the one-line message (origin, value as written, what is
allowed, did-you-mean), which either library would need a translation layer to produce from
its own error objects; pydantic adds a compiled dependency and tens of milliseconds to every
start of a command-line tool that must start fast (the parser is built on each call), and both
generate a schema of their Python classes rather than of the TOML file a user edits.  This
module imports only the standard library, :mod:`torchbuild.errors` and the vocabularies of
:mod:`torchbuild.decisions.choices`, and is pure (no I/O).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ProfileError, UsageError
from .choices import BUILD_TYPES, CACHES, DISTRIBUTORS, MODES

__all__ = [
    "Spec",
    "SPECS",
    "PROFILE_KEYS",
    "SET_VARIABLES",
    "ENV_VARIABLES",
    "EnvSettings",
    "did_you_mean",
    "parse_sets",
    "convert",
    "flag_value",
    "check_profile",
    "read_env",
    "json_schema",
    "schema_text",
    "SCHEMA_FILE",
]

Kind = Literal["bool", "int", "str", "choice", "arch", "table"]

#: A build variable name, as ``--set`` and a profile's ``set`` table take it.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Scalar types a profile's ``set`` value may have (written to the environment with ``str``).
_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class Spec:
    """One setting: its name, type and allowed values, and where it can come from.

    :ivar name: the profile key (``jobs``), else the flag's or variable's own name.
    :ivar kind: ``bool``, ``int`` (with :attr:`minimum`), ``str``, ``choice`` (one of
        :attr:`choices`, compared without case when :attr:`ignore_case`), ``arch`` (a CUDA arch
        list: a string or a list of strings, parsed by ``decisions.plan.parse_arch_list``) or
        ``table`` (``set``: build variable -> scalar).
    :ivar allowed: what is allowed, in words, as error messages say it.
    :ivar help: what the setting does (the schema's description).
    :ivar profile: a key of a profile table.
    :ivar flags: the command-line flags that set it.
    :ivar env: the environment variable that sets it.
    """

    name: str
    kind: Kind
    allowed: str
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    ignore_case: bool = False
    profile: bool = False
    flags: tuple[str, ...] = ()
    env: str | None = None


def _one_of(choices: tuple[str, ...]) -> str:
    return "one of " + ", ".join(choices)


_POSITIVE = "a positive integer (the number of parallel compile jobs)"

#: Every setting (profile keys first, in the order the built-in profiles file documents them).
SPECS: tuple[Spec, ...] = (
    Spec("inherits", "str", "a profile name", "the profile this one extends (built-in or user)", profile=True),
    Spec("description", "str", "a string", "what the profile is for (for the people who read the file)", profile=True),
    Spec(
        "mode",
        "choice",
        _one_of(MODES),
        "develop (editable install), wheel, install, or libtorch (C++ only)",
        choices=MODES,
        profile=True,
        flags=("--mode",),
    ),
    Spec(
        "build_type",
        "choice",
        _one_of(BUILD_TYPES),
        "CMake build type (any case)",
        choices=BUILD_TYPES,
        ignore_case=True,
        profile=True,
        flags=("--build-type",),
    ),
    Spec(
        "cuda",
        "bool",
        "true or false",
        "build with CUDA (absent: decided from the machine)",
        profile=True,
        flags=("--cuda", "--no-cuda"),
    ),
    Spec(
        "arch",
        "arch",
        'a string such as "8.6;9.0+PTX" or a list of strings',
        "TORCH_CUDA_ARCH_LIST: compute capabilities such as 8.6, 9.0a, 9.0+PTX, sm_86 (absent: the GPUs present)",
        profile=True,
        flags=("--arch",),
    ),
    Spec(
        "cache",
        "choice",
        _one_of(CACHES),
        "compiler cache (auto = sccache, else ccache, else none)",
        choices=CACHES,
        profile=True,
        flags=("--cache",),
    ),
    Spec(
        "jobs",
        "int",
        _POSITIVE,
        "parallel compile jobs (absent: from cores and free memory)",
        minimum=1,
        profile=True,
        flags=("--jobs", "-j"),
    ),
    Spec(
        "set",
        "table",
        'a table of build variables, e.g. { BUILD_TEST = "0" }',
        "build variables (USE_*, BUILD_*, CMAKE_*, or a variable the package's setup.py reads)",
        profile=True,
        flags=("--set",),
    ),
    Spec(
        "nvcc_flags",
        "str",
        "a string",
        "TORCH_NVCC_FLAGS for a PyTorch tree built with CUDA",
        profile=True,
    ),
    Spec(
        "distribute",
        "choice",
        _one_of(DISTRIBUTORS),
        "distributed compilation engine",
        choices=DISTRIBUTORS,
        flags=("--distribute",),
    ),
    Spec(
        "hosts",
        "str",
        "a string",
        "distcc hosts 'HOST[:PORT][/SLOTS] ...' or the sccache-dist scheduler URL",
        flags=("--hosts",),
        env="DISTCC_HOSTS",
    ),
    Spec("cache_dir", "str", "a folder", "torchbuild's cache folder", env="TORCHBUILD_CACHE"),
    Spec(
        "traceback",
        "choice",
        "0 or 1 (or unset)",
        "print a Python traceback with an error",
        choices=("0", "1"),
        env="TORCHBUILD_TRACEBACK",
    ),
)

_BY_NAME = {s.name: s for s in SPECS}
_BY_FLAG = {f: s for s in SPECS for f in s.flags}

#: Keys a profile table may have.
PROFILE_KEYS: tuple[str, ...] = tuple(s.name for s in SPECS if s.profile)

#: Build variables whose value torchbuild itself reads, typed (any other ``set`` value is passed on as written).
SET_VARIABLES: dict[str, Spec] = {"MAX_JOBS": Spec("MAX_JOBS", "int", _POSITIVE, "parallel compile jobs", minimum=1)}

#: Environment variables torchbuild reads for itself -> their setting.
ENV_VARIABLES: dict[str, Spec] = {s.env: s for s in SPECS if s.env}


def did_you_mean(name: str, choices: list[str] | tuple[str, ...] | set[str], n: int = 3) -> str:
    """`` Did you mean: A, B?`` for the closest ``choices`` (difflib), or ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.6)
    if not close:
        upper = name.upper()
        close = [c for c in choices if upper and (upper in c.upper() or c.upper() in upper)][:n]
    return f" Did you mean: {', '.join(close)}?" if close else ""


def convert(
    spec: Spec,
    value: object,
    *,
    shown: str,
    label: str | None = None,
    error: type[UsageError] = UsageError,
    toml: bool = False,
) -> Any:
    """``value`` as the type of ``spec``, or one line saying why not.

    :param spec: the setting.
    :param value: what the user wrote (a TOML value, or the text of a flag or variable).
    :param shown: where it came from and the value as written, e.g. ``"/x/torchbuild.toml:
        profile 'p': jobs = 'many'"``, ``"--jobs 'abc'"``, ``"environment variable X='y'"``.
    :param label: the name in "``label`` must be ...": default ``spec.name``.
    :param error: the class raised: :class:`ProfileError` for a file, else :class:`UsageError`.
    :param toml: the value comes from a TOML file (the message says a boolean or integer is
        written without quotes).
    :returns: bool, int, str (a choice in its canonical spelling), list of str (``arch``) or
        ``dict[str, str]`` (``table``).
    :raises UsageError: (``error``, exit 2) a value of the wrong type, out of range or not allowed.
    """
    ok: bool
    out: Any = value
    suggest = ""
    text = value.strip() if isinstance(value, str) else None
    if spec.kind == "bool":
        ok = isinstance(value, bool)
    elif spec.kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            out = value
        elif text is not None and not toml and re.fullmatch(r"-?\d+", text):  # the text of a flag or variable
            out = int(text)
        else:
            out = None
        ok = out is not None and (spec.minimum is None or out >= spec.minimum)
    elif spec.kind == "choice":
        match = [
            c
            for c in spec.choices
            if text is not None and (c == text or spec.ignore_case and c.lower() == text.lower())
        ]
        ok = bool(match)
        out = match[0] if match else value
        suggest = did_you_mean(text, spec.choices) if text is not None and not ok else ""
    elif spec.kind == "arch":
        ok = isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        out = ";".join(value) if isinstance(value, list) else value
    elif spec.kind == "table":
        if isinstance(value, dict):
            return _table(value, shown=shown, error=error)
        ok = False
    else:
        ok = isinstance(value, str)
    if not ok:
        what = label or spec.name
        allowed = spec.allowed
        if toml and spec.kind in ("bool", "int"):
            allowed += f" (a TOML {'boolean' if spec.kind == 'bool' else 'integer'}, without quotes)"
        raise error(f"{shown} is not allowed; {what} must be {allowed}.{suggest}")  # the message says the fix
    return out


def _table(value: Mapping[Any, Any], *, shown: str, error: type[UsageError]) -> dict[str, str]:
    """A profile's ``set`` table as ``{NAME: text}``; names and typed variables checked."""
    out: dict[str, str] = {}
    base = shown.rsplit(" = ", 1)[0]
    for k, v in value.items():
        item = f"{base}.{k} = {v!r}"
        if not isinstance(k, str) or not _NAME.fullmatch(k):
            raise error(
                f"{item}: {k!r} is not allowed; a build variable name must be letters, digits and _.",
                fix='write set = { BUILD_TEST = "0" }.',
            )
        if not isinstance(v, _SCALARS):
            raise error(
                f"{item} is not allowed; set.{k} must be a string, number or boolean.",
                fix=f'write set.{k} as a string, e.g. "0".',
            )
        if k in SET_VARIABLES:
            convert(SET_VARIABLES[k], str(v), shown=item, label=f"set.{k}", error=error)
        out[k] = str(v)
    return out


def parse_sets(items: list[str]) -> list[tuple[str, str]]:
    """``--set KEY=VALUE`` items as ``(KEY, VALUE)`` pairs, in order: the one parser of
    ``--set`` (``plan``, ``build``, ``doctor``, ``source check``).

    :raises UsageError: an item without ``=``, whose KEY is not a variable name, or whose
        value a typed variable (:data:`SET_VARIABLES`, e.g. ``MAX_JOBS``) does not allow.
    """
    out = []
    for item in items:
        if "=" not in item:
            raise UsageError(f"--set {item!r} is not KEY=VALUE. Write e.g. --set USE_CUDNN=0.")
        k, v = item.split("=", 1)
        k = k.strip()
        if not _NAME.fullmatch(k):
            raise UsageError(f"--set {item!r}: {k!r} is not a variable name. Write e.g. --set USE_CUDNN=0.")
        if k in SET_VARIABLES:
            convert(SET_VARIABLES[k], v, shown=f"--set {k}={v!r}", label=k)
        out.append((k, v))
    return out


def flag_value(flag: str, value: object) -> Any:
    """The value of command-line ``flag`` (``"--jobs"``) as its setting's type; None stays None.

    :raises UsageError: a value the setting does not allow (one line, e.g. ``--jobs 'abc' is
        not allowed; --jobs must be a positive integer ...``).
    """
    if value is None:
        return None
    return convert(_BY_FLAG[flag], value, shown=f"{flag} {value!r}", label=flag)


def check_profile(body: Mapping[str, Any], name: str, where: str) -> None:
    """Check one profile table: every key known, every value of its setting's type.

    :param body: the table as TOML read it (``_file``, added by the reader, is skipped).
    :param name: the profile's name.
    :param where: the file that defines it, or ``"built-in"``.
    :raises ProfileError: an unknown key (with "did you mean") or a bad value (file, profile,
        key, value as written, what is allowed).
    """
    for key, value in body.items():
        if key == "_file":
            continue
        if key not in PROFILE_KEYS:
            raise ProfileError(
                f"{where}: profile {name!r} has unknown key {key!r}.{did_you_mean(key, PROFILE_KEYS)}",
                fix=f"use only {', '.join(PROFILE_KEYS)}.",
            )
        convert(
            _BY_NAME[key], value, shown=f"{where}: profile {name!r}: {key} = {value!r}", error=ProfileError, toml=True
        )


@dataclass(frozen=True)
class EnvSettings:
    """The environment variables torchbuild reads for itself, checked.

    :ivar cache_dir: ``TORCHBUILD_CACHE`` (None: ``~/.cache/torchbuild``).
    :ivar traceback: ``TORCHBUILD_TRACEBACK=1``: print a traceback with an error.
    :ivar distcc_hosts: ``DISTCC_HOSTS`` (the hosts of ``--distribute distcc`` without ``--hosts``).
    """

    cache_dir: str | None = None
    traceback: bool = False
    distcc_hosts: str | None = None


def read_env(environ: Mapping[str, str]) -> EnvSettings:
    """Check the variables of :data:`ENV_VARIABLES` in ``environ``; an empty one counts as unset.

    :raises UsageError: a value the variable does not allow (``TORCHBUILD_TRACEBACK=yes``).
    """
    values: dict[str, Any] = {}
    for var, spec in ENV_VARIABLES.items():
        raw = environ.get(var)
        if raw:
            values[spec.name] = convert(spec, raw, shown=f"environment variable {var}={raw!r}", label=var)
    return EnvSettings(
        cache_dir=values.get("cache_dir"),
        traceback=values.get("traceback") == "1",
        distcc_hosts=values.get("hosts"),
    )


def _ci_pattern(words: tuple[str, ...]) -> str:
    """A regular expression (ECMA 262 and Python) matching ``words`` in any case."""
    alts = ["".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in w) for w in words]
    return "^(" + "|".join(alts) + ")$"


def _schema_of(spec: Spec) -> dict[str, Any]:
    doc: dict[str, Any] = {"description": f"{spec.help}; {spec.allowed}"}
    if spec.kind == "bool":
        doc["type"] = "boolean"
    elif spec.kind == "int":
        doc.update({"type": "integer", "minimum": spec.minimum})
    elif spec.kind == "choice" and spec.ignore_case:
        doc["anyOf"] = [{"enum": list(spec.choices)}, {"type": "string", "pattern": _ci_pattern(spec.choices)}]
    elif spec.kind == "choice":
        doc["enum"] = list(spec.choices)
    elif spec.kind == "arch":
        doc["anyOf"] = [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    elif spec.kind == "table":
        doc.update(
            {
                "type": "object",
                "patternProperties": {f"^{_NAME.pattern}$": {"type": ["string", "number", "boolean"]}},
                "additionalProperties": False,
                "properties": {
                    k: {
                        "description": f"{s.help}; {s.allowed}",
                        "anyOf": [
                            {"type": "integer", "minimum": s.minimum},
                            {"type": "string", "pattern": r"^\s*0*[1-9][0-9]*\s*$"},
                        ],
                    }
                    for k, s in SET_VARIABLES.items()
                },
            }
        )
    else:
        doc["type"] = "string"
    return doc


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``torchbuild.toml`` (and of ``[tool.torchbuild]`` in ``pyproject.toml``),
    derived from :data:`SPECS`.  Draft 4: the draft that Taplo, the TOML language server of
    editors, reads."""
    profile = {
        "type": "object",
        "description": "a build profile: plan values that command-line flags and --set override",
        "additionalProperties": False,
        "properties": {s.name: _schema_of(s) for s in SPECS if s.profile},
    }
    return {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "title": "torchbuild.toml",
        "description": "torchbuild build profiles ([profile.NAME]; in pyproject.toml: [tool.torchbuild.profile.NAME]). "
        "Generated from torchbuild.decisions.settings: do not edit; run scripts/gen-schema.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "profile": {
                "type": "object",
                "description": "build profiles by name; use one with --profile NAME",
                "additionalProperties": {"$ref": "#/definitions/profile"},
            }
        },
        "definitions": {"profile": profile},
    }


#: Where the generated schema is checked in, relative to the ``torchbuild`` package.
SCHEMA_FILE = "knowledge/data/torchbuild.schema.json"


def schema_text() -> str:
    """:func:`json_schema` as the checked-in file holds it (2-space indent, keys in model order, final newline)."""
    return json.dumps(json_schema(), indent=2) + "\n"
