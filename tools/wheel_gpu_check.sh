#!/usr/bin/env bash
# A built wheel on a GPU machine with only the NVIDIA driver: no CUDA toolkit, no compiler, no
# build tree. Run on the GPU machine:
#
#   bash tools/wheel_gpu_check.sh [WHEEL_DIR]      (default: dist)
#
# WHEEL_DIR holds glassgrad's wheel for this machine's Python and NumPy's wheel for it
# (tools/build_wheels.sh --with-numpy puts both there; the machine needs no network). The
# check takes python3.12 (else python3), makes a fresh virtual environment in a temporary
# folder, installs glassgrad from WHEEL_DIR alone (--no-index), and runs tools/wheel_smoke.py
# --device cuda from that folder with PATH = the environment's bin only (no nvcc, no compiler)
# and LD_LIBRARY_PATH cut down to the folders that hold the driver's libcuda.so.1: the GPU
# must be usable, and three SimpleCNN steps on it must match the CPU. When the wheel holds NVRTC
# 12's images, the smoke test runs twice more: as under a 550 driver
# (GLASSGRAD_CUDA_DRIVER_VERSION=550: a Turing-to-Hopper GPU runs NVRTC 12's cubin of its
# architecture) and on their compute_50 PTX (GLASSGRAD_CUDA_IMAGE=compute_50: the sm_50 code
# path, JIT-compiled by the driver).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheel_dir=$(cd "${1:-$root/dist}" && pwd)
py=$(command -v python3.12 || command -v python3)
tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
wheel=$(ls "$wheel_dir"/glassgrad-*-"$tag"-"$tag"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  echo "no glassgrad wheel for $tag in $wheel_dir (build it with: PYTHONS=${tag:2:1}.${tag:3} bash tools/build_wheels.sh --with-numpy)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== $(basename "$wheel") into a fresh virtual environment of $py ($("$py" --version))"
"$py" -m venv "$work/venv"
env -i HOME="$work" PATH="$work/venv/bin" "$work/venv/bin/python" -m pip install -q --disable-pip-version-check \
  --no-index --find-links "$wheel_dir" "$wheel"

# The driver's folders only (the toolkit's libraries are not needed and must not be used).
driver_dirs=""
IFS=: read -r -a dirs <<< "${LD_LIBRARY_PATH:-}"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && ls "$d"/libcuda.so.1 >/dev/null 2>&1; then driver_dirs=${driver_dirs:+$driver_dirs:}$d; fi
done
echo "== smoke test on the GPU: PATH=$work/venv/bin, LD_LIBRARY_PATH='$driver_dirs'"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
cp "$root/tools/wheel_smoke.py" "$work/"
cd "$work"
run() { env -i HOME="$work" PATH="$work/venv/bin" ${driver_dirs:+LD_LIBRARY_PATH="$driver_dirs"} "$@"; }
run "$work/venv/bin/python" wheel_smoke.py --device cuda
if run "$work/venv/bin/python" -c 'import glassgrad, sys; sys.exit("compute_50" not in glassgrad.cuda.built_archs())'; then
  echo "== the same as under a 550 driver: NVRTC 12's cubin of this GPU (GLASSGRAD_CUDA_DRIVER_VERSION=550)"
  run GLASSGRAD_CUDA_DRIVER_VERSION=550 "$work/venv/bin/python" wheel_smoke.py --device cuda --expect-legacy yes
  echo "== the same on NVRTC 12's compute_50 PTX (GLASSGRAD_CUDA_IMAGE=compute_50)"
  run GLASSGRAD_CUDA_IMAGE=compute_50 "$work/venv/bin/python" wheel_smoke.py --device cuda --expect-legacy yes
else
  echo "== this wheel has no NVRTC 12 images (built without GLASSGRAD_CUDA_LEGACY): no compute_50 run"
fi
