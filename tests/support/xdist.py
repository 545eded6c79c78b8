"""How the suite is spread over both cores with pytest-xdist (``-n auto --dist loadgroup`` in pyproject.toml):
which tests must run on one worker, because they share something slow to make."""

from __future__ import annotations

#: Session fixtures that build or install something for seconds to minutes (a real build, a venv with
#: the CUDA torch, the unpacked PyTorch 2.6.0 tree): every test that uses one of them runs on the
#: worker that made it, so each is made once per run, as without xdist.
SHARED_FIXTURES = frozenset(
    {
        "scatter_build",
        "cuda_torch_python",
        "cuda_torch",
        "ext_venv",
        "mt_venv",
        "archives_copy",
        "orig_tree",
        "debian_tree",
    }
)


#: The prefix of a joined group's name: the fixture that joined it ("fixture:scatter_build"), which sorts before
#: every module path ("tests/...") and so names the set.
JOINED = "fixture:"


def xdist_groups(items: list[tuple[str, set[str]]]) -> list[str]:
    """The pytest-xdist group of each test, given as (module path, names of the fixtures it
    uses): tests of one module share a group (so a module-scoped fixture is made once), and
    modules whose tests use the same fixture of :data:`SHARED_FIXTURES` are joined into one
    group (so a session fixture is made once).  Returns one group name per item, in order: its
    module path, or for a joined group :data:`JOINED` and the name of its first fixture."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for module, names in items:
        for name in sorted(names & SHARED_FIXTURES):
            a, b = find(module), find(JOINED + name)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return [find(module) for module, _ in items]
