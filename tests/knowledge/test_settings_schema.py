"""The JSON Schema of ``torchbuild.toml`` is generated from the settings model and checked in:
stale is a failure (regenerate with ``python scripts/gen-schema``), and the model and the
schema agree on what is valid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import tomllib

import torchbuild
from torchbuild.decisions.plan import builtin_profiles
from torchbuild.decisions.settings import SCHEMA_FILE, check_profile, json_schema, schema_text
from torchbuild.errors import ProfileError

REPO = Path(__file__).resolve().parents[2]
CHECKED_IN = Path(torchbuild.__file__).parent / SCHEMA_FILE


def test_checked_in_schema_is_not_stale():
    assert CHECKED_IN.read_text(encoding="utf-8") == schema_text(), (
        f"{CHECKED_IN} is stale: run python scripts/gen-schema"
    )


def test_gen_schema_check_mode_agrees(tmp_path):
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen-schema"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_schema_is_valid_draft4():
    jsonschema.Draft4Validator.check_schema(json.loads(CHECKED_IN.read_text(encoding="utf-8")))


VALID = """
[profile.cluster]
inherits = "release"
description = "our A100/H100 nodes"
mode = "wheel"
build_type = "relwithdebinfo"
cuda = true
arch = ["8.0", "9.0+PTX"]
cache = "sccache"
jobs = 8
nvcc_flags = "-Xfatbin -compress-all"
set = { USE_CUDNN = "1", BUILD_TEST = 0, MAX_JOBS = "6" }

[profile.cpu]
arch = "8.6"
cuda = false
"""


def _validator() -> jsonschema.Draft4Validator:
    return jsonschema.Draft4Validator(json_schema())


def test_a_valid_profile_file_validates_against_the_schema_and_the_model():
    doc = tomllib.loads(VALID)
    _validator().validate(doc)
    for name, body in doc["profile"].items():
        check_profile(body, name, "torchbuild.toml")


def test_builtin_profiles_validate_against_the_schema():
    _validator().validate({"profile": builtin_profiles()})


@pytest.mark.parametrize(
    "body",
    [
        'cuda = "false"',
        'jobs = "many"',
        "jobs = 0",
        'mode = "fast"',
        'build_type = "Fast"',
        "arch = 8.6",
        'cache = "yes"',
        'set = { MAX_JOBS = "abc" }',
        "set = { MAX_JOBS = -3 }",
        'set = { "BAD NAME" = "1" }',
        "set = { USE_X = [1] }",
        'set = "USE_CUDA=0"',
        'archs = ["8.0"]',
    ],
)
def test_model_and_schema_refuse_the_same_bad_values(body):
    doc = tomllib.loads(f"[profile.p]\n{body}\n")
    assert not _validator().is_valid(doc), body
    with pytest.raises(ProfileError) as exc:
        check_profile(doc["profile"]["p"], "p", "/x/torchbuild.toml")
    assert "\n" not in str(exc.value) and exc.value.exit_code == 2
    assert str(exc.value).startswith("/x/torchbuild.toml: profile 'p'")
