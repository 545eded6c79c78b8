"""Build records: never overwritten, and no cache password in them."""

from __future__ import annotations

import json

from torchbuild.actions.record import redact, write_record


def test_records_are_new_files_and_hide_url_passwords(tmp_path):
    data = {
        "plan": {
            "env": {
                "SCCACHE_REDIS_ENDPOINT": {"value": "redis://:s3cret@10.0.0.5:6379/0"},
                "OTHER": {"value": "redis://cache-host:6379/1"},
            }
        }
    }
    p1 = write_record(tmp_path, "20260101-000000", data)
    p2 = write_record(tmp_path, "20260101-000000", data)
    assert p1 != p2 and p1.exists() and p2.exists()
    text = p1.read_text()
    assert "s3cret" not in text and "redis://:***@10.0.0.5:6379/0" in text
    assert json.loads(text)["plan"]["env"]["OTHER"]["value"] == "redis://cache-host:6379/1"
    assert redact("https://user:pw@host/x") == "https://user:***@host/x"
