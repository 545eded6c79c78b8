"""Every knowledge row cites a source a reader of the project can follow.

A citation is a public URL (pinned to a tag or commit where it points into a repository), a key of
the file's ``[meta.sources]`` whose text holds such a URL, or a path inside the tree being built.
No citation, and no text of a knowledge file, may point at ``shared/`` documents: those belong to
the workspace the project was written in, not to the project.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from torchbuild import knowledge

DATA = Path(knowledge.__file__).parent / "data"
FILES = knowledge.available()

_URL = re.compile(r"https?://[^\s,;)\"']+")
#: A repository URL that follows a moving branch: it cites whatever the branch says today.
_MOVING = re.compile(r"https://github\.com/[^/]+/[^/]+/(?:blob|tree)/(?:main|master)/")
#: A path into the workspace's private ``shared/`` folder (``shared/reference/...``,
#: ``../shared/causes.md``), as opposed to a word like ``shared library``.
_SHARED = re.compile(r"(?<![\w./-])(?:\.\./)*shared/[\w.-]")


def _citations(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, cited string) for every row of every array of tables in ``doc``."""
    out = []
    for table, rows in doc.items():
        if table == "meta" or not isinstance(rows, list):
            continue
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            src = row.get("source")
            for s in [src] if isinstance(src, str) else src or []:
                out.append((f"{table}[{i}]", s))
    return out


def _pinned_urls(text: str) -> list[str]:
    return [u for u in _URL.findall(text) if not _MOVING.match(u)]


@pytest.mark.parametrize("name", FILES)
def test_every_source_key_names_a_public_pinned_url(name: str) -> None:
    sources = knowledge.load(name).get("meta", {}).get("sources", {})
    bad = {key: text for key, text in sources.items() if not _pinned_urls(text)}
    assert not bad, f"{name}.toml: [meta.sources] keys without a public URL at a tag or commit: {sorted(bad)}"


@pytest.mark.parametrize("name", FILES)
def test_every_row_cites_a_url_a_key_or_a_tree_path(name: str) -> None:
    doc = knowledge.load(name)
    sources = doc.get("meta", {}).get("sources", {})
    bad = []
    for where, cited in _citations(doc):
        if cited.startswith(("http://", "https://")) or cited in sources:
            continue
        if _SHARED.search(cited) or not re.match(r"^[\w.-]+/[\w.-]+:[\w./-]+", cited):
            bad.append(f"{where}: {cited!r}")
    assert not bad, f"{name}.toml rows cite neither a URL, a key of [meta.sources] nor a tree path: {bad}"


@pytest.mark.parametrize("name", FILES)
def test_no_knowledge_file_points_at_shared_documents(name: str) -> None:
    hits = [
        f"{rel} line {n}: {line.strip()}"
        for rel in knowledge.files(name)
        for n, line in enumerate((DATA / rel).read_text(encoding="utf-8").splitlines(), 1)
        if _SHARED.search(line)
    ]
    assert not hits, f"{name}.toml refers to shared/ documents, which are not part of the project: {hits}"


def test_shared_pattern_catches_workspace_paths_only() -> None:
    assert _SHARED.search("via shared/reference/cuda-compat-facts.md §3")
    assert _SHARED.search('causes = "shared/causes.md (the cause ids)"')
    assert _SHARED.search("read in ../shared/sources/pytorch_2.6.0+dfsg.orig.tar.xz")
    assert not _SHARED.search("a shared library; BUILD_SHARED_LIBS=ON; lib/shared/x is no match")
    assert _pinned_urls("https://github.com/pytorch/pytorch/blob/v2.6.0/setup.py") != []
    assert _pinned_urls("https://github.com/pytorch/pytorch/blob/main/RELEASE.md") == []
