"""``package conda``: a rattler-build recipe (``recipe.yaml``) for the official-like wheel, and
its render and build with rattler-build when it is installed (``pip install py-rattler-build``,
the Python bindings of rattler-build, on PyPI).

The package is the ``pytorch`` of the official conda channel in shape:

* build string ``py<X.Y>_cpu_<n>`` or ``py<X.Y>_cuda<CUDA>_cudnn<cuDNN>_<n>`` (pytorch/builder
  ``conda/build_pytorch.sh`` @021cb711: ``build_string="py${py_ver}_${build_string_suffix}"``
  with the suffix ``cpu_${PYTORCH_BUILD_NUMBER}`` or
  ``cuda${CUDA_VERSION}_cudnn${CUDNN_VERSION}_${PYTORCH_BUILD_NUMBER}``; seed 003 shows
  ``py3.8_cuda11.0.221_cudnn8.0.5_0``).  CUDA and cuDNN versions come from the build record's
  facts (the toolkit's full version, ``13.0.88``) when the tree has one, else from
  ``torch/version.py`` (``13.0``) and the config;
* run requirements: the interpreter's ``python X.Y.*`` and the wheel's ``Requires-Dist``
  (without extras and environment markers that do not hold on Linux), names lower-cased
  with ``_``/``-`` as conda-forge spells them;
* the content is the wheel unpacked into ``$PREFIX/lib/pythonX.Y/site-packages`` (no
  interpreter needed at build time, so the build needs no channel), with an ``INSTALLER``
  file saying ``conda``.
"""

from __future__ import annotations

import json
import os
import re
import sysconfig
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...errors import UsageError

__all__ = ["CondaResult", "build_string", "conda_requirements", "render_and_build", "write_recipe"]


@dataclass
class CondaResult:
    """The recipe written and, when rattler-build was there, what it rendered and built.

    :ivar recipe: path of ``recipe.yaml``; :ivar build_string: e.g. ``py3.11_cpu_0``.
    :ivar rendered: the rendered recipe (dict) or None; :ivar packages: built files.
    :ivar tool: ``"py-rattler-build 0.73.0"`` or None; :ivar reason: why not rendered/built.
    """

    recipe: str
    name: str
    version: str
    build_string: str
    run: list[str]
    tool: str | None = None
    rendered: dict[str, Any] | None = None
    packages: list[str] = field(default_factory=list)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def build_string(python: str, number: int, cuda: str | None, cudnn: str | None) -> str:
    """``py3.11_cpu_0`` or ``py3.8_cuda11.0.221_cudnn8.0.5_0`` (builder's scheme)."""
    if cuda:
        return f"py{python}_cuda{cuda}_cudnn{cudnn or 'none'}_{number}"
    return f"py{python}_cpu_{number}"


def conda_requirements(requires_dist: list[str]) -> list[str]:
    """Conda ``run`` entries from a wheel's ``Requires-Dist`` lines: extras dropped, markers that
    name another platform or an extra dropped, ``typing-extensions>=4.10`` -> ``typing_extensions >=4.10``.
    ``nvidia-*`` CUDA wheels are PyPI-only and left out (a conda install takes CUDA from the
    ``cuda-*`` packages; the result notes it)."""
    out: list[str] = []
    for line in requires_dist:
        req, _, marker = line.partition(";")
        marker = marker.strip()
        if "extra ==" in marker or re.search(r"(sys_platform|platform_system)\s*==\s*['\"](?!linux|Linux)", marker):
            continue
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(\[[^\]]*\])?\s*(.*)$", req)
        if not m:
            continue
        name = m.group(1).lower()
        if name.startswith("nvidia-") or name in ("triton",):
            continue
        name = name.replace("-", "_") if name in ("typing-extensions",) else name
        spec = m.group(3).strip().replace(" ", "")
        out.append(f"{name} {spec}".strip())
    return out


def _yaml(v: Any) -> str:
    return json.dumps(v)  # JSON strings are valid YAML scalars


def write_recipe(
    wheel: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    number: int = 0,
    cuda_full: str | None = None,
    cudnn: str | None = None,
) -> CondaResult:
    """Write ``<out_dir>/recipe.yaml`` packaging ``wheel``.

    :raises UsageError: ``wheel`` is not a wheel; ``out_dir/recipe.yaml`` exists.
    """
    whl = Path(wheel).resolve()
    if not whl.is_file() or not zipfile.is_zipfile(whl):
        raise UsageError(f"{whl} is not a wheel.", fix="give the .whl made by `torchbuild package wheel`.")
    with zipfile.ZipFile(whl) as zf:
        meta_name = next((n for n in zf.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)), None)
        if meta_name is None:
            raise UsageError(f"{whl} has no .dist-info/METADATA.")
        meta = zf.read(meta_name).decode("utf-8", "replace")
        vpy = zf.read("torch/version.py").decode() if "torch/version.py" in zf.namelist() else ""
    version = re.search(r"^Version:\s*(\S+)", meta, re.MULTILINE).group(1)  # type: ignore[union-attr]
    reqs = re.findall(r"^Requires-Dist:\s*(.+)$", meta, re.MULTILINE)
    m = re.search(r"-cp(\d)(\d+)-", whl.name)
    py = f"{m.group(1)}.{m.group(2)}" if m else sysconfig.get_python_version()
    cm = re.search(r"^cuda\s*(?::[^=\n]*)?=\s*['\"]([^'\"]+)['\"]", vpy, re.MULTILINE)
    cuda = cuda_full or (cm.group(1) if cm else None)
    bstr = build_string(py, number, cuda, cudnn)
    run = [f"python {py}.*"] + conda_requirements(reqs)
    public = version.split("+", 1)[0]
    out = Path(out_dir)
    recipe = out / "recipe.yaml"
    if recipe.exists():
        raise UsageError(
            f"{recipe} exists; torchbuild does not overwrite files.", fix="remove it or choose --output-dir."
        )
    out.mkdir(parents=True, exist_ok=True)
    sp = f"$PREFIX/lib/python{py}/site-packages"
    lines = (
        [
            f"# written by torchbuild package conda from {whl.name}",
            "# build string: pytorch/builder conda/build_pytorch.sh scheme"
            " (py<ver>_cpu_<n> / py<ver>_cuda<ver>_cudnn<ver>_<n>)",
            "context:",
            f"  version: {_yaml(public)}",
            f"  build_string: {_yaml(bstr)}",
            "package:",
            "  name: pytorch",
            "  version: ${{ version }}",
            "source:",
            f"  - path: {_yaml(str(whl))}",
            f"    file_name: {_yaml(whl.name)}",
            "build:",
            f"  number: {number}",
            "  string: ${{ build_string }}",
            "  script:",
            f'    - mkdir -p "{sp}"',
            f'    - cd "{sp}" && unzip -q -o "$SRC_DIR/{whl.name}"',
            f"    - printf 'conda\\n' > \"{sp}/$(ls \"{sp}\" | grep -m1 '^torch-.*\\.dist-info$')/INSTALLER\"",
            "  dynamic_linking:",
            "    binary_relocation: false",
            "requirements:",
            "  run:",
        ]
        + [f"    - {_yaml(r)}" for r in run]
        + [
            "tests:",
            "  - python:",
            "      imports:",
            "        - torch",
            "about:",
            "  homepage: https://pytorch.org",
            "  license: BSD-3-Clause",
            f"  summary: {_yaml(f'PyTorch {version} built from source by torchbuild')}",
        ]
    )
    recipe.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return CondaResult(recipe=str(recipe), name="pytorch", version=public, build_string=bstr, run=run)


def render_and_build(
    res: CondaResult, *, build: bool, output_dir: str | None = None, channels: list[str] | None = None
) -> CondaResult:
    """Render (and with ``build``, build without tests) the recipe with py-rattler-build when
    importable; otherwise set :attr:`CondaResult.reason`."""
    try:
        from importlib.metadata import version as _v

        import rattler_build  # type: ignore[import-not-found]
    except ImportError:
        res.reason = (
            "rattler-build is not installed: the recipe was written but not rendered or built "
            "(pip install py-rattler-build, then run this again)"
        )
        return res
    res.tool = f"py-rattler-build {_v('py-rattler-build')}"
    recipe = rattler_build.Stage0Recipe.from_file(res.recipe)
    variants = recipe.render(rattler_build.VariantConfig())
    if not variants:
        res.reason = "rattler-build rendered no variant"
        return res
    res.rendered = _to_plain(variants[0])
    if build:
        out = output_dir or str(Path(res.recipe).parent / "output")
        tool_config = rattler_build.ToolConfiguration(test_strategy="skip")  # tests need a channel to solve
        result = variants[0].run_build(tool_config=tool_config, output_dir=out, channels=channels or ["conda-forge"])
        res.packages = [str(p) for p in getattr(result, "packages", [])]
    return res


def _to_plain(variant: Any) -> dict[str, Any]:
    for attr in ("to_dict", "as_dict"):
        fn = getattr(variant, attr, None)
        if callable(fn):
            return fn()
    recipe = getattr(variant, "recipe", None)
    if recipe is not None and callable(getattr(recipe, "to_dict", None)):
        return recipe.to_dict()
    return {"repr": repr(variant)}
