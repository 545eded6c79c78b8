"""One redactor for every place a cache URL can show: the build record, the cache tools'
configuration output and their error messages, and the plan's cache setting.  ccache's own
URL form ``redis://PASSWORD@HOST`` (a password without a user name) was left in the clear
by the two redactors this one replaces."""

from __future__ import annotations

import json
import stat

import pytest

from torchbuild.actions import cache as cc
from torchbuild.actions.record import write_record
from torchbuild.decisions.cache_plan import parse_cache_url
from torchbuild.decisions.redact import redact

from .conftest import make_cache_env

URLS = [
    ("redis://alice:s3cret@10.0.0.5:6380/2", "redis://alice:***@10.0.0.5:6380/2"),
    ("redis://:s3cret@10.0.0.5:6379/0", "redis://:***@10.0.0.5:6379/0"),
    ("redis://s3cret@10.0.0.5:6379/0", "redis://***@10.0.0.5:6379/0"),  # ccache: PASSWORD@HOST
    ("https://alice:s3cret@mirror.example.org/simple", "https://alice:***@mirror.example.org/simple"),
]


@pytest.mark.parametrize(("url", "shown"), URLS)
def test_redact(url, shown):
    assert redact(url) == shown
    assert redact(f"CCACHE_REMOTE_STORAGE={url} ccache -s") == f"CCACHE_REMOTE_STORAGE={shown} ccache -s"


def test_user_name_without_password_is_kept():
    assert redact("ssh://git@github.com/pytorch/pytorch") == "ssh://git@github.com/pytorch/pytorch"
    assert redact("redis://cache-host:6379/1") == "redis://cache-host:6379/1"


@pytest.mark.parametrize(("url", "shown"), URLS)
def test_record_hides_the_password(tmp_path, url, shown):
    p = write_record(tmp_path, "20260101-000000", {"plan": {"env": {"CCACHE_REMOTE_STORAGE": url}}})
    text = p.read_text()
    assert "s3cret" not in text
    assert json.loads(text)["plan"]["env"]["CCACHE_REMOTE_STORAGE"] == shown


def test_plan_setting_shows_the_same_redaction():
    u = parse_cache_url("redis://alice:s3cret@10.0.0.5:6380/2")
    assert u.redacted() == redact(u.ccache_url()) == "redis://alice:***@10.0.0.5:6380/2"


def test_ccache_config_hides_a_password_only_url(tmp_path, ccache_exe):
    env = make_cache_env(tmp_path)
    env["CCACHE_REMOTE_STORAGE"] = "redis://s3cret@127.0.0.1:1/0"
    conf = cc.show_config("ccache", exe=ccache_exe, env=env)
    assert "s3cret" not in json.dumps(conf)
    assert conf["config"]["remote_storage"]["value"] == "redis://***@127.0.0.1:1/0"


def test_cache_tool_error_message_hides_the_password(tmp_path):
    """A cache command that fails with the URL in its last line: the error shows no password."""
    exe = tmp_path / "ccache"
    exe.write_text("#!/bin/sh\necho 'remote storage redis://alice:s3cret@10.0.0.5:6379 refused' >&2\nexit 1\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(cc.CacheToolError) as info:
        cc.read_stats("ccache", exe=str(exe), env=make_cache_env(tmp_path))
    assert "s3cret" not in str(info.value) and "redis://alice:***@10.0.0.5:6379" in str(info.value)
