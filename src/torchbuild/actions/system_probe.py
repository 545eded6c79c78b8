"""Ask the machine about the system copies of a PyTorch release's components: builds the
questions from the knowledge layer and hands them to :mod:`torchbuild.facts.system_libs`."""

from __future__ import annotations

from ..facts.model import Facts
from ..facts.system_libs import SystemLibQuestions, probe_system_libs
from ..knowledge.compat import major_minor
from ..knowledge.components import components_for, workarounds_for

__all__ = ["questions_for", "add_system_libs"]


def questions_for(release: str) -> SystemLibQuestions:
    """Debian packages, headers, header symbols (from workaround conditions) and PyPI names
    that matter for ``release`` (``"2.6"``)."""
    q = SystemLibQuestions()
    for c in components_for(release):
        q.debian += [p for p in c.debian if p not in q.debian]
        q.pypi += [p for p in c.pypi if p not in q.pypi]
        if c.header and c.header not in q.headers:
            q.headers.append(c.header)
    for w in workarounds_for(release):
        lacks = w.when.get("header_lacks")
        if lacks and ":" in lacks:
            h, _, sym = lacks.partition(":")
            q.symbols.append((h, sym))
    return q


def add_system_libs(facts: Facts) -> Facts:
    """Set ``facts.system_libs`` for a PyTorch tree whose release has component data; other
    facts are returned unchanged.  Runs ``dpkg-query`` and ``flatc --version`` once each."""
    src = facts.source
    if src is None or src.kind != "pytorch" or not src.version or facts.system_libs is not None:
        return facts
    release = major_minor(src.version)
    if not release or not components_for(release):
        return facts
    facts.system_libs = probe_system_libs(questions_for(release), facts.python.sys_path)
    return facts
