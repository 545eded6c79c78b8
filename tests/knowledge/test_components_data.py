"""``knowledge/data/pytorch_components.toml``: every row cites a source, every pin belongs to a
component of its release, the releases the design promises are covered, and the 2.6 rows agree
with the real PyTorch 2.6.0 tree.

The last group reads the CMake files straight out of the real v2.6.0 archive in
``../shared/sources/`` (Debian's copy of the upstream archive; skipped where it is absent): each
2.6 component's folder must be named by the tree's CMake files, each ``USE_SYSTEM_*`` switch must
be an option of its ``CMakeLists.txt``, and ``in_system_libs`` must match the tree's own
``if(USE_SYSTEM_LIBS)`` block.
"""

from __future__ import annotations

import re
import tarfile
from collections import defaultdict
from pathlib import Path

import pytest
import tomllib

from torchbuild import knowledge
from torchbuild.knowledge import components as kc

DATA = Path(knowledge.__file__).parent / "data" / "pytorch_components.toml"
ORIG_2_6 = Path(__file__).resolve().parents[3] / "shared" / "sources" / "pytorch_2.6.0+dfsg.orig.tar.xz"
RELEASE = re.compile(r"^\d+\.\d+$")


@pytest.fixture(scope="module")
def doc() -> dict:
    with DATA.open("rb") as f:
        return tomllib.load(f)


def _vkey(r: str) -> tuple[int, ...]:
    return tuple(int(x) for x in r.split("."))


def test_every_row_cites_known_sources(doc):
    sources = doc["meta"]["sources"]
    bad = []
    for kind in ("component", "pin"):
        for row in doc[kind]:
            who = row.get("name") or f"{row['component']}@{row['release']}"
            if not row.get("source"):
                bad.append(f"{kind} {who}: no source")
            bad += [f"{kind} {who}: unknown source {k!r}" for k in row.get("source", []) if k not in sources]
    assert not bad, "\n".join(bad)


def test_every_source_is_used_and_pytorch_urls_are_pinned(doc):
    sources = doc["meta"]["sources"]
    used = {k for kind in ("component", "pin") for row in doc[kind] for k in row["source"]}
    assert not set(sources) - used, f"sources no row cites: {sorted(set(sources) - used)}"
    # a PyTorch file is cited at a tag (vX.Y.Z) or a full commit, never at a branch
    for key, text in sources.items():
        for url in re.findall(r"https://github\.com/pytorch/pytorch/blob/(\S+?)/", text):
            assert re.fullmatch(r"v\d+\.\d+\.\d+|[0-9a-f]{40}", url), f"{key}: {url} is not a tag or a commit"


def test_releases_are_major_minor(doc):
    for c in doc["component"]:
        assert c["releases"], c["name"]
        for r in c["releases"]:
            assert RELEASE.match(r), f"{c['name']}: release {r!r}"
    for p in doc["pin"]:
        assert RELEASE.match(p["release"]), f"{p['component']}: release {p['release']!r}"
    for r in doc["meta"].get("partial", {}).get("releases", []):
        assert RELEASE.match(r), r


def test_a_name_has_at_most_one_row_per_release(doc):
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for c in doc["component"]:
        for r in c["releases"]:
            seen[(c["name"], r)] += 1
    assert not [k for k, n in seen.items() if n > 1]


def test_every_pin_belongs_to_a_component_of_its_release(doc):
    rows = {(c["name"], r) for c in doc["component"] for r in c["releases"]}
    names = {c["name"] for c in doc["component"]}
    pins = [(p["component"], p["release"]) for p in doc["pin"]]
    assert not [p for p in pins if p[0] not in names], "pin of an unknown component"
    assert not [p for p in pins if p not in rows], "pin for a release its component does not list"
    assert len(pins) == len(set(pins)), "two pins for one (component, release)"


def test_pin_values_are_well_formed(doc):
    for p in doc["pin"]:
        assert p["commit"] == "" or re.fullmatch(r"[0-9a-f]{40}", p["commit"]), p
        assert p["commit"] or p["version"] or p["min_debian"], f"empty pin {p}"


def test_component_values_are_well_formed(doc):
    for c in doc["component"]:
        assert c["path"].startswith("third_party/"), c["name"]
        assert c["repo"] == "" or c["repo"].startswith("https://"), c["name"]
        feature = c["feature"]
        assert feature == "" or re.fullmatch(r"[A-Z0-9_]+([|&][A-Z0-9_]+)*", feature), c["name"]
        assert not ("|" in feature and "&" in feature), c["name"]
        switch = c["system_switch"]
        assert switch == "" or re.fullmatch(r"(USE_SYSTEM_[A-Z0-9_]+|[A-Z0-9_]+=(ON|OFF))", switch), c["name"]
        if c["in_system_libs"]:
            assert switch, f"{c['name']}: in_system_libs without a switch"


@pytest.mark.parametrize("release", ["1.13", "2.0", "2.4", "2.6"])
def test_promised_releases_have_components(doc, release):
    assert kc.components_for(release), release
    assert any(release in c["releases"] for c in doc["component"])


def test_newest_release_has_components_and_is_at_least_2_14(doc):
    newest = max({r for c in doc["component"] for r in c["releases"]}, key=_vkey)
    assert _vkey(newest) >= (2, 14)
    assert kc.components_for(newest)
    assert newest in kc.component_releases()


def test_partial_releases_are_covered_ones(doc):
    covered = {r for c in doc["component"] for r in c["releases"]}
    assert set(doc["meta"]["partial"]["releases"]) <= covered


# ------------------------------------------------------------ against the real v2.6.0 tree
@pytest.fixture(scope="module")
def cmake_2_6() -> dict[str, str]:
    """Every CMakeLists.txt and *.cmake of the real v2.6.0 archive, outside third_party/: path -> text."""
    if not ORIG_2_6.is_file():
        pytest.skip(f"the real PyTorch 2.6.0 archive is not at {ORIG_2_6} (CI puts shared/ beside the clone)")
    out: dict[str, str] = {}
    with tarfile.open(ORIG_2_6, "r:xz") as tar:
        for m in tar:
            name = m.name.split("/", 1)[-1]
            if not m.isfile() or name.startswith("third_party/"):
                continue
            if name.endswith(("CMakeLists.txt", ".cmake")):
                f = tar.extractfile(m)
                assert f is not None
                out[name] = f.read().decode("utf-8", "replace")
    assert "CMakeLists.txt" in out and "cmake/Dependencies.cmake" in out
    return out


def _rows_2_6(doc):
    return [c for c in doc["component"] if "2.6" in c["releases"]]


def test_2_6_component_folders_are_named_by_the_trees_cmake(doc, cmake_2_6):
    text = "\n".join(cmake_2_6.values())
    missing = []
    for c in _rows_2_6(doc):
        folder = c["path"].split("/")[1]  # third_party/<folder>[/...]
        # named literally, or as ${CAFFE2_THIRD_PARTY_ROOT}/<folder> (NNPACK family)
        if not re.search(rf"third_party/{re.escape(folder)}\b|THIRD_PARTY_ROOT}}/{re.escape(folder)}\b", text):
            missing.append(c["path"])
    assert not missing, f"2.6 components no CMake file of the tree names: {missing}"


def test_2_6_switches_are_options_and_match_the_system_libs_block(doc, cmake_2_6):
    top = cmake_2_6["CMakeLists.txt"]
    block = re.search(r"^if\(USE_SYSTEM_LIBS\)\n(.*?)^endif\(\)", top, re.MULTILINE | re.DOTALL)
    assert block, "no if(USE_SYSTEM_LIBS) block in v2.6.0 CMakeLists.txt"
    turned_on = set(re.findall(r"set\((USE_SYSTEM_[A-Z0-9_]+) ON\)", block.group(1)))
    for c in _rows_2_6(doc):
        switch = c["system_switch"]
        if switch.startswith("USE_SYSTEM_"):
            assert re.search(rf"(option|cmake_dependent_option)\(\s*{switch}\b", top, re.IGNORECASE), (
                f"{c['name']}: {switch}"
            )
            assert c["in_system_libs"] == (switch in turned_on), f"{c['name']}: in_system_libs vs the block"
    # every switch the block turns on belongs to some 2.6 component
    switches = {c["system_switch"] for c in _rows_2_6(doc)}
    assert turned_on <= switches, f"USE_SYSTEM_LIBS turns on switches no 2.6 row has: {turned_on - switches}"
