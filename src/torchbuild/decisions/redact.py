"""The one redactor: passwords in URLs never reach a record, a log line or an error message.

Used by the cache plan (:meth:`torchbuild.decisions.cache_plan.CacheURL.redacted`), the cache
tools' output and errors (:mod:`torchbuild.actions.cache`) and build records
(:func:`torchbuild.actions.record.write_record`).
"""

from __future__ import annotations

import re

__all__ = ["redact"]

#: ``scheme://USER:PASSWORD@`` (RFC 3986 userinfo with a password), any scheme.
_USER_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s\"']*:)[^@/\s\"']+@")
#: ``redis://PASSWORD@`` / ``rediss://PASSWORD@``: ccache's remote-storage form, where a userinfo
#: without a colon is the password (ccache manual, "Redis storage backend": https://ccache.dev/manual/latest.html).
_REDIS_PASSWORD = re.compile(r"(rediss?://)[^:/@\s\"']+@", re.I)


def redact(text: str) -> str:
    """``text`` with every URL password replaced by ``***``.

    ``redis://alice:s3cret@host`` -> ``redis://alice:***@host``, ``https://u:pw@h/x`` ->
    ``https://u:***@h/x``, ccache's ``redis://s3cret@host`` -> ``redis://***@host``.  A user
    name without a password (``ssh://git@host``) is kept.  Works on any text: a URL, a
    command line, a JSON document.
    """
    return _REDIS_PASSWORD.sub(r"\1***@", _USER_PASSWORD.sub(r"\1***@", text))
