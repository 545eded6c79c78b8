"""The suite's pytest-xdist grouping (tests/support/xdist.py): a session fixture that builds for
minutes is made on one worker only, and a module's tests stay together."""

from support.xdist import JOINED, xdist_groups


def test_modules_sharing_a_heavy_fixture_are_one_group_and_others_stay_apart():
    items = [
        ("tests/cache/test_cache_builds.py", {"scatter_build", "cli", "tmp_path"}),
        ("tests/cache/test_cache_builds.py", {"cli"}),
        ("tests/integration/test_extension_build.py", {"scatter_build"}),
        ("tests/integration/test_cuda_extension.py", {"cuda_torch_python"}),
        ("tests/verify/test_verify.py", {"cuda_torch_python", "ext_venv"}),
        ("tests/cache/test_ext_copies.py", {"ext_venv"}),
        ("tests/diagnose/test_words.py", {"cli", "tmp_path"}),
        ("tests/diagnose/test_structure.py", set()),
    ]
    g = xdist_groups(items)
    # torch-scatter's build: its two modules, every test of them
    assert g[0] == g[1] == g[2]
    # the CUDA torch venv and ext_venv chain three modules together
    assert g[3] == g[4] == g[5]
    assert g[0] != g[3]
    # the cheap session fixture `cli` joins nothing: modules without a heavy fixture are alone
    assert len({g[0], g[3], g[6], g[7]}) == 4
    assert g[6] == "tests/diagnose/test_words.py"
    assert g[0] == JOINED + "scatter_build" and g[3].startswith(JOINED)
