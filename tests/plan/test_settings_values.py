"""Bad setting values in profiles and ``--set`` are one clear error (exit 2) naming where
the value came from, the value as written and what is allowed; never a silent wrong
plan (``cuda = "false"`` taken as true) and never a traceback (``int("many")``).
Facts are the recorded H100 server of test_plan.py."""

from __future__ import annotations

import pytest
from test_plan import H100, pytorch_facts

from torchbuild.decisions.plan import Intent, make_plan
from torchbuild.errors import ProfileError, UsageError

FILE = "/x/torchbuild.toml"


def _plan_with(profile_body: dict, **intent):
    user = {"p": {**profile_body, "_file": FILE}}
    return make_plan(pytorch_facts(gpus=[H100]), Intent(profile="p", **intent), user_profiles=user)


def test_profile_cuda_as_the_string_false_is_refused_not_taken_as_true():
    with pytest.raises(ProfileError) as exc:
        _plan_with({"cuda": "false"})
    msg = exc.value.message
    assert FILE in msg and "cuda" in msg and "'false'" in msg and "true or false" in msg
    assert exc.value.exit_code == 2


def test_profile_cuda_boolean_false_still_plans_a_cpu_build():
    assert _plan_with({"cuda": False}).cuda.value is False


@pytest.mark.parametrize("jobs", ["many", 0, -2, 2.5, True])
def test_profile_jobs_must_be_a_positive_integer(jobs):
    with pytest.raises(ProfileError) as exc:
        _plan_with({"jobs": jobs})
    assert FILE in exc.value.message and "jobs" in exc.value.message and "positive integer" in exc.value.message


@pytest.mark.parametrize("value", ["abc", "-3", "0", ""])
def test_set_max_jobs_must_be_a_positive_integer(value):
    with pytest.raises(UsageError) as exc:
        make_plan(pytorch_facts(gpus=[H100]), Intent(sets=[f"MAX_JOBS={value}"]))
    assert "--set MAX_JOBS" in exc.value.message and repr(value) in exc.value.message
    assert "positive integer" in exc.value.message


def test_set_max_jobs_valid_value_is_used():
    plan = make_plan(pytorch_facts(gpus=[H100]), Intent(sets=["MAX_JOBS=3"]))
    assert plan.jobs.value == 3 and plan.env_values()["MAX_JOBS"] == "3"
