"""``package wheel`` on a real build of the test tree (minitorch, tests/support/minitorch.py).

minitorch is built with the ``release`` profile (a wheel, not installed), then repacked:
only ``$ORIGIN`` RPATHs, the ``+cpu`` label, the platform tag auditwheel's own ``show`` gives
(``linux_x86_64`` here: minitorch links the system's libgomp, outside every policy's
whitelist, as auditwheel also says), manifest and build record inside; installed into a fresh venv in another
folder, ``torchbuild verify`` passes there.  A second input imitates Debian's
``1020-dirtyhack.patch`` (libraries installed with no RPATH at all) plus a build-tree
absolute RPATH on ``_C``: the repacked wheel must have them restored / removed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support.minitorch import make_minitorch
from torchbuild.actions.package.inspect import inspect_path
from torchbuild.actions.package.wheel import record_line, variant_label, with_local

pytestmark = pytest.mark.slow


def make_build_venv(dest: Path) -> Path:
    """A venv without system site-packages (so no real torch), with setuptools and wheel,
    installed by the test interpreter's pip (``pip --python``): no ensurepip, whose
    byte-compiling alone can take minutes on a loaded 2-core machine."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=900)
    py = dest / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "setuptools", "wheel", "pip"],
        check=True,
        timeout=1800,
        capture_output=True,
    )
    return py


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory, cli):
    base = tmp_path_factory.mktemp("pkgwheel")
    venv_py = make_build_venv(base / "venv")
    tree = make_minitorch(base / "pytorch", version="2.8.0")
    r = cli(
        "build",
        str(tree),
        "--python",
        str(venv_py),
        "--profile",
        "release",
        "--no-cuda",
        "--cache",
        "none",
        "--no-install",
        "--json",
        timeout=3600,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    whl = next((tree / ".torchbuild" / "dist").glob("torch-*.whl"))
    return tree, whl


def _auditwheel_policy(whl: Path) -> str | None:
    proc = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(whl)], capture_output=True, text=True, timeout=300
    )
    m = re.search(r'consistent with the\s+following platform tag:\s+"([^"]+)"', proc.stdout.replace("\n", " "))
    return m.group(1) if m else None


def test_wheel_has_origin_rpaths_label_tag_manifest_and_record(built_wheel, cli, tmp_path):
    tree, _ = built_wheel
    out = tmp_path / "out"
    r = cli("package", "wheel", str(tree), "--output-dir", str(out), "--json")
    assert r.returncode == 0, r.stderr[-4000:]
    res = r.json
    new = Path(res["wheel"])
    assert new.parent == out and res["version"].endswith("+cpu") and res["ok"]
    rep = inspect_path(new, arches=False)
    assert rep.origin_only and rep.files and not rep.unresolved
    assert rep.wheel["version"] == res["version"] and rep.wheel["local"] == "cpu"
    platform = res["tag"].split("-")[-1]
    assert platform == _auditwheel_policy(new)  # auditwheel show agrees on the platform tag
    if platform == "linux_x86_64":  # minitorch links the system's libgomp (OpenMP), which no policy allows
        assert "libgomp.so.1" in res["tag_reason"]
    with zipfile.ZipFile(new) as zf:
        names = zf.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        assert info == f"torch-{res['version']}.dist-info"
        manifest = json.loads(zf.read(f"{info}/torchbuild-manifest.json"))
        record = json.loads(zf.read(f"{info}/torchbuild-build-record.json"))
        assert f"__version__ = '{res['version']}'" in zf.read("torch/version.py").decode()
        rows = zf.read(f"{info}/RECORD").decode().splitlines()
        for name in names:  # RECORD lists every file with the right hash
            if not name.endswith("/RECORD"):
                assert record_line(name, zf.read(name)) in rows
        for name in names:  # no build path in any text file
            if not name.endswith((".so",)):
                assert str(tree).encode() not in zf.read(name), name
    assert {f["path"] for f in manifest["files"]} >= {"torch/lib/libc10.so", "torch/version.py"}
    assert record["outcome"] == "ok" and "$TREE" in json.dumps(record)
    assert Path(res["manifest"]).is_file()


def test_wheel_installs_in_a_fresh_venv_elsewhere_and_verifies(built_wheel, cli, tmp_path):
    tree, _ = built_wheel
    r = cli("package", "wheel", str(tree), "--output-dir", str(tmp_path / "o"), "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    venv = make_build_venv(tmp_path / "fresh")
    subprocess.run(
        [str(venv), "-m", "pip", "install", "-q", "--no-deps", r.json["wheel"]], check=True, timeout=1800, cwd=tmp_path
    )
    v = cli("verify", "--python", str(venv), "--expect-cuda", "cpu", "--json", cwd=tmp_path)
    assert v.returncode == 0, v.stdout[-3000:] + v.stderr[-3000:]


def test_debian_style_wheel_without_rpaths_and_an_absolute_build_path_is_repaired(built_wheel, cli, tmp_path):
    tree, whl = built_wheel
    stage = tmp_path / "stage"
    with zipfile.ZipFile(whl) as zf:
        zf.extractall(stage)
    libs = sorted((stage / "torch" / "lib").glob("*.so"))
    c_mod = next((stage / "torch").glob("_C*.so"))
    for lib in libs:  # Debian's 1020-dirtyhack.patch: CMAKE_INSTALL_RPATH emptied
        subprocess.run(["patchelf", "--remove-rpath", str(lib)], check=True)
    subprocess.run(["patchelf", "--set-rpath", f"{tree}/build/lib:$ORIGIN/lib", str(c_mod)], check=True)
    broken = tmp_path / whl.name
    with zipfile.ZipFile(broken, "w") as zf:
        for p in sorted(stage.rglob("*")):
            if p.is_file():
                zf.write(p, str(p.relative_to(stage)))
    before = inspect_path(broken, arches=False)
    assert not before.origin_only
    r = cli("package", "wheel", str(tree), "--wheel", str(broken), "--output-dir", str(tmp_path / "o"), "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    after = inspect_path(r.json["wheel"], arches=False)
    assert after.origin_only and not after.unresolved
    by = {f.path: f for f in after.files}
    assert by[f"torch/{c_mod.name}"].runpath == ["$ORIGIN", "$ORIGIN/lib"]
    for lib in libs:
        assert by[f"torch/lib/{lib.name}"].runpath == ["$ORIGIN"]


def test_bad_input(tmp_path, cli):
    r = cli("package", "wheel", str(tmp_path))
    assert r.returncode == 2 and "no wheel" in r.stderr


def test_labels():
    assert variant_label(None) == "cpu" and variant_label("12.6") == "cu126" and variant_label("13.0") == "cu130"
    assert with_local("2.6.0a0+git1eba9b3", "cpu") == "2.6.0a0+cpu" and with_local("2.6.0", "cu126") == "2.6.0+cu126"


def test_conda_recipe_rendered_and_built_by_rattler_build(built_wheel, cli, tmp_path):
    """The recipe for the packaged wheel, rendered and built by py-rattler-build (the package's
    own tests are not run: they need a conda channel to solve python, which is not reachable here)."""
    rattler_build = pytest.importorskip("rattler_build")
    tree, _ = built_wheel
    r = cli("package", "wheel", str(tree), "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    c = cli("package", "conda", str(tree), "--output-dir", str(tmp_path / "recipe"), "--json")
    assert c.returncode == 0, c.stderr[-3000:]
    res = c.json
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert res["build_string"] == f"py{py}_cpu_0" and res["tool"].startswith("py-rattler-build")
    assert res["rendered"]["build"]["string"] == f"py{py}_cpu_0"
    pkg = rattler_build.Package.from_file(res["packages"][0])
    assert pkg.name == "pytorch" and pkg.build_string == f"py{py}_cpu_0" and f"python {py}.*" in pkg.depends
    assert f"lib/python{py}/site-packages/torch/lib/libc10.so" in pkg.files


def test_build_string_and_requirements():
    from torchbuild.actions.package.conda import build_string, conda_requirements

    assert build_string("3.8", 0, "11.0.221", "8.0.5") == "py3.8_cuda11.0.221_cudnn8.0.5_0"  # seed 003
    assert build_string("3.11", 2, None, None) == "py3.11_cpu_2"
    assert conda_requirements(
        [
            "filelock",
            "typing-extensions>=4.10.0",
            'opt-einsum>=3.3; extra == "opt-einsum"',
            'nvidia-cublas==13.0.0.19; platform_system == "Linux"',
            'triton==3.5.0; platform_system == "Linux"',
        ]
    ) == ["filelock", "typing_extensions >=4.10.0"]
