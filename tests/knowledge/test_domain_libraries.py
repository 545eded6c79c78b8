"""torchvision's own compatibility table (knowledge/data/domain_libraries.toml, read from its README
at a pinned commit, and PyTorch's "PyTorch Versions" wiki page for torch 2.4-2.7): the look-ups in both
directions, and what the table leaves out."""

from __future__ import annotations

import pytest

from torchbuild.knowledge import compat


@pytest.mark.parametrize(
    ("torch", "torchvision"),
    [("2.3.1+cu121", ("0.18",)), ("2.0.0", ("0.15",)), ("1.13.1", ("0.14",)), ("1.3.1", ("0.4.2", "0.4.3"))],
)
def test_the_torchvision_made_for_a_torch(torch, torchvision):
    pair = compat.torchvision_for_torch(torch)
    assert pair is not None and pair.torchvision == torchvision
    assert "pytorch/vision/blob/0a12c0708810ae6a9a64b584fb8e412412c22b9d/README.md" in pair.source


@pytest.mark.parametrize(
    ("torch", "torchvision"), [("2.6.0", ("0.21",)), ("2.4.1+cu124", ("0.19",)), ("2.7.0+cpu", ("0.22",))]
)
def test_the_torchvision_made_for_torch_2_4_to_2_7_comes_from_pytorchs_wiki(torch, torchvision):
    """The README read stops at 2.3; PyTorch's "PyTorch Versions" wiki page gives 2.4 -> 0.19 to 2.7 -> 0.22
    (the 2.6.0 of ../shared/sources pairs with torchvision 0.21)."""
    pair = compat.torchvision_for_torch(torch)
    assert pair is not None and pair.torchvision == torchvision
    assert pair.source.startswith("https://github.com/pytorch/pytorch/wiki/PyTorch-Versions")


@pytest.mark.parametrize(
    ("torchvision", "torch"),
    [("0.21.0+cu124", "2.6"), ("0.17.0", "2.2"), ("0.13.1+cu113", "1.12"), ("0.4.2", "1.3"), ("0.4.1", "1.2")],
)
def test_the_torch_a_torchvision_was_made_for(torchvision, torch):
    pair = compat.torch_for_torchvision(torchvision)
    assert pair is not None and pair.torch == torch


@pytest.mark.parametrize("torch", ["2.8.0", "2.13.0", "1.0.1"])
def test_releases_the_table_does_not_cover_give_none(torch):
    """The wiki page read stops at torch 2.7 and the README gives 1.0 and earlier as a range: no row,
    no guess."""
    assert compat.torchvision_for_torch(torch) is None


def test_no_torchvision_maps_to_two_torches():
    seen: dict[str, str] = {}
    for pair in compat._pairs():
        for tv in pair.torchvision:
            assert seen.setdefault(tv, pair.torch) == pair.torch
