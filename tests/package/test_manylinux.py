"""Which manylinux policy compiled files fit, judged with auditwheel's own policy data
(the installed auditwheel's ``manylinux-policy.json``; nothing of ours)."""

from __future__ import annotations

from torchbuild.decisions.manylinux import fit_policy, newest_versions
from torchbuild.knowledge.manylinux import load_policies, policy_source


def test_policies_come_from_auditwheel_oldest_first():
    pols = load_policies("x86_64")
    names = [p.name for p in pols]
    assert names.index("manylinux_2_17") < names.index("manylinux_2_28")
    p2014 = next(p for p in pols if p.name == "manylinux_2_17")
    assert "manylinux2014" in p2014.aliases and "2.17" in p2014.symbol_versions["GLIBC"]
    assert "libc.so.6" in p2014.whitelist
    assert policy_source().startswith("auditwheel ")


def test_newest_version_per_family_compares_numerically():
    needs = [
        {"libc.so.6": ["GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_PRIVATE"]},
        {
            "libstdc++.so.6": ["GLIBCXX_3.4.9", "GLIBCXX_3.4.21", "CXXABI_1.3.11", "CXXABI_TM_1"],
            "libgcc_s.so.1": ["GCC_4.2.0"],
            "libgomp.so.1": ["OMP_1.0", "GOMP_4.0"],
        },
    ]
    assert newest_versions(needs) == {"GLIBC": "2.17", "GLIBCXX": "3.4.21", "CXXABI": "1.3.11", "GCC": "4.2.0"}


def test_oldest_fitting_policy_and_what_blocks_an_older_one():
    pols = load_policies("x86_64")
    fit = fit_policy([{"libc.so.6": ["GLIBC_2.17"], "libstdc++.so.6": ["GLIBCXX_3.4.19"]}], ["libc.so.6"], [], pols)
    assert fit.policy == "manylinux_2_17" and fit.aliases == ["manylinux2014"] and fit.external == []
    fit = fit_policy([{"libc.so.6": ["GLIBC_2.17", "GLIBC_2.28"]}], ["libc.so.6"], [], pols)
    assert fit.policy == "manylinux_2_28" and "GLIBC_2.28" in fit.blocking
    # OpenMP's own versions do not constrain the policy; libgomp is not whitelisted, so it is external
    fit = fit_policy([{"libgomp.so.1": ["GOMP_4.0"]}], ["libgomp.so.1", "libc10.so"], ["libc10.so"], pols)
    assert fit.policy == pols[0].name and fit.external == ["libgomp.so.1"]


def test_glibc_private_fits_no_policy():
    fit = fit_policy([{"libc.so.6": ["GLIBC_PRIVATE"]}], [], [], load_policies("x86_64"))
    assert fit.policy is None and fit.blocking == ["GLIBC_PRIVATE"]
