#!/usr/bin/env bash
# Record, on a machine with an NVIDIA GPU, the real outputs that the tests replay on machines
# without one (tests/verify/test_ext_gpu_arch.py and tests/facts/test_gpu_recorded.py read the
# files this script wrote on a lent H200; tests/data/gpu/README.md says which run).
#
#   bash tests/data/gpu/record.sh OUTDIR [SDIST ...]
#   RECORD_PARTS="probes sdists" bash tests/data/gpu/record.sh OUTDIR torch_scatter-2.1.2.tar.gz
#
# Needs: python3 (or $PYTHON) with a CUDA build of torch and torchbuild's dependencies, nvcc,
# and one GPU.  It probes the GPU the ways torchbuild's facts do, records torch's build
# configuration, verifies the installed torch and its extensions, then builds the small CUDA
# extension of tests/integration/test_cuda_extension.py with torchbuild twice and verifies each
# build with a smoke test that launches its kernel: first for compute capability 8.0 alone
# (SASS, no PTX: code a 9.x GPU cannot run), then for the GPU present (no --arch).  Each SDIST
# (a PyPI source archive of an extension that knowledge/data/extensions.toml knows) is unpacked,
# built with torchbuild for the GPU present, and verified with that row's smoke test on the GPU.
# RECORD_PARTS picks the parts (default: "probes installed tiny sdists").  RECORD_BUILD_ARGS adds
# arguments to each SDIST's build, e.g. RECORD_BUILD_ARGS="--set FORCE_ONLY_CUDA=1" (torch-scatter's own
# switch: its CUDA modules alone, about half of its serial compiles).
set -u
out=${1:?usage: record.sh OUTDIR}
mkdir -p "$out"
py=${PYTHON:-python3}
root=$(cd "$(dirname "$0")/../../.." && pwd)
export PYTHONUNBUFFERED=1 PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
parts=" ${RECORD_PARTS:-probes installed tiny sdists} "
# echo each command on stderr before it runs, and its exit status after
step() { echo "+ $*" >&2; "$@"; echo "[exit $?]" >&2; }
smoke='x = torch.ones(4, device="cuda"); y = tiny_cuda.scale(x, 3.0); assert bool((y == 3).all()), y.tolist()'

if [[ $parts == *" probes "* ]]; then
{
  step nvidia-smi
  # the query torchbuild.facts.gpu.SMI_QUERY runs where NVML does not load
  step nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version --format=csv,noheader,nounits
  step cat /proc/driver/nvidia/version
  step nvcc --version
  step "$py" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list(), torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))'
} > "$out/probes.txt" 2>&1
"$py" -c 'import torch; print(torch.__config__.show(), end="")' > "$out/torch-config-show.txt" 2>&1
step "$py" -m torchbuild doctor --cuda --json --save-facts "$out/facts.json" > "$out/doctor.json" 2> "$out/doctor.err"
fi
if [[ $parts == *" installed "* ]]; then
  step "$py" -m torchbuild verify --json > "$out/verify-installed.json" 2> "$out/verify-installed.err"
fi

[[ $parts == *" tiny "* ]] && for arch in 8.0 gpu; do
  tree=/tmp/tiny-$arch
  rm -rf "$tree"
  "$py" - "$tree" <<'PY'
import sys
from pathlib import Path

sys.path.insert(0, "tests")
from integration.test_cuda_extension import _tree  # the test's own sources

_tree(Path(sys.argv[1]))
PY
  archarg=(--arch "$arch"); [ "$arch" = gpu ] && archarg=()
  step "$py" -m torchbuild build "$tree" --cuda "${archarg[@]}" --mode install --no-deps --cache none --jobs 16 --json \
    > "$out/build-$arch.json" 2> "$out/build-$arch.err" \
  || step "$py" -m torchbuild build "$tree" --cuda "${archarg[@]}" --mode install --no-deps --cache none --jobs 16 \
    --json --force > "$out/build-$arch-force.json" 2> "$out/build-$arch-force.err"
  cp "$tree"/.torchbuild/logs/*.log "$out/" 2>/dev/null
  step "$py" -m torchbuild verify --extension tiny_cuda --smoke "$smoke" --json \
    > "$out/verify-ext-$arch.json" 2> "$out/verify-ext-$arch.err"
  (cd /tmp && "$py" -c "import torch, tiny_cuda; $smoke" > "$out/run-$arch.log" 2>&1; echo "[exit $?]" >> "$out/run-$arch.log")
  step "$py" -m torchbuild diagnose "$out/run-$arch.log" --json > "$out/diagnose-run-$arch.json" 2>&1
done

[[ $parts == *" sdists "* ]] && for sdist in "${@:2}"; do
  name=$(basename "$sdist" .tar.gz)
  rm -rf "/tmp/$name" && tar xzf "$sdist" -C /tmp || continue
  # shellcheck disable=SC2086  # RECORD_BUILD_ARGS is a list of words
  step "$py" -m torchbuild build "/tmp/$name" --cuda --mode install --no-deps --cache none --jobs 16 --json \
    ${RECORD_BUILD_ARGS:-} > "$out/build-$name.json" 2> "$out/build-$name.err"
  cp "/tmp/$name"/.torchbuild/logs/*.log "$out/build-$name.log" 2>/dev/null
  case $name in  # the extensions.toml row's smoke test, on the GPU
    torch_scatter-*) module=torch_scatter
      gpu_smoke="out = torch_scatter.scatter(torch.tensor([1., 2., 3., 4.], device='cuda'), torch.tensor([0, 0, 1, 1], device='cuda'), dim=0, reduce='sum'); assert out.tolist() == [3.0, 7.0], out" ;;
    *) continue ;;
  esac
  step "$py" -m torchbuild verify --extension "$module" --smoke "$gpu_smoke" --json \
    > "$out/verify-$name.json" 2> "$out/verify-$name.err"
done
exit 0
