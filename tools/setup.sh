#!/usr/bin/env bash
# Sets up a Debian (or Ubuntu) machine for glassgrad: the system packages the build and the
# tests need, then glassgrad itself (`pip install .`, which compiles the C++ code) into the
# virtual environment .venv, whose python the README's commands run (.venv/bin/python).
#
#   bash tools/setup.sh            system packages + .venv with glassgrad and its [examples] extra
#   bash tools/setup.sh --test     ... + the [test] extra (pytest, scikit-learn, matplotlib, Jupyter's
#                                  nbclient, mkdocs-material, cuobjdump, ...; see pyproject.toml)
#   bash tools/setup.sh --editable ... installed editable instead: the Python files are the working
#                                  tree's, and `import glassgrad` rebuilds the C++ code that changed
#   bash tools/setup.sh --no-apt   skip the system packages (e.g. no root and already there)
#
# Always a virtual environment, on every machine: a Debian/Ubuntu system Python refuses pip
# installs (PEP 668: its stdlib holds an EXTERNALLY-MANAGED file), and the same two commands
# must work everywhere. .venv is made from $PYTHON (default python3); delete it to start over.
# Runs apt-get through sudo when not root, only when a package is missing. The CUDA kernels are
# compiled for the GPUs this machine shows, when nvcc is found (GLASSGRAD_CUDA=AUTO, the
# default; none without a GPU): GLASSGRAD_CUDA_ARCHS=all builds them for every GPU, =86 for one,
# GLASSGRAD_CUDA=OFF never (core-runtime/cmake/cuda_select.py; docs/cuda.md). The last line says
# which kernels were built, why, and how to get the others. ccache is used when installed.
set -euo pipefail
cd "$(dirname "$0")/.."

with_test=0
with_apt=1
editable=0
for arg in "$@"; do
  case "$arg" in
    --test) with_test=1 ;;
    --editable) editable=1 ;;
    --no-apt) with_apt=0 ;;
    -h|--help) sed -n "2,$(($(grep -n '^set -euo pipefail' "$0" | cut -d: -f1) - 1))p" "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

log() { printf '\n== %s\n' "$*"; }

# --- system packages --------------------------------------------------------------------
# build-essential, cmake, ninja-build: the C++ build.  libgtest-dev: the C++ unit tests.
# dataset-fashion-mnist: the data the training example and its tests read (no downloads).
# graphviz: renders the plans and graphs glassgrad prints as .dot.
# fortunes: public-domain text (fortune cookies) the language-model examples train on.
# python3-venv (ensurepip) and python3-dev (Python.h) when the system Python lacks them.
packages=(build-essential cmake ninja-build libgtest-dev dataset-fashion-mnist graphviz fortunes)
base=${PYTHON:-python3}
if ! command -v "$base" >/dev/null 2>&1; then
  packages+=(python3 python3-dev python3-venv)
elif [ "$(readlink -f "$(command -v "$base")")" = "$(readlink -f /usr/bin/python3 2>/dev/null)" ]; then
  "$base" -c 'import ensurepip' 2>/dev/null || packages+=(python3-venv)
  "$base" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    packages+=(python3-dev)
fi
if [ "$with_apt" = 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
    log "apt-get install ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    log "system packages: all present (${packages[*]})"
  fi
fi

# --- Python -----------------------------------------------------------------------------
venv=$PWD/.venv
if [ ! -x "$venv/bin/python" ]; then
  log "$base -m venv .venv"
  "$base" -m venv "$venv"
fi
python=$venv/bin/python
if [ "$editable" = 1 ] && ! "$python" -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (23, 1))'; then
  # A system Python's venv starts with its distribution's pip (Debian 12: 23.0), too old for
  # the editable install's config settings; the other installs work with it.
  "$python" -m pip install -q --upgrade pip
fi
echo "using $python ($("$python" -c 'import sys; print(sys.version.split()[0])'); activate it with: source .venv/bin/activate)"

extras="examples"
if [ "$with_test" = 1 ]; then extras="examples,test"; fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
# The build runs the CMake and Ninja installed above; otherwise scikit-build-core downloads both
# from PyPI into pip's build environment whenever it cannot ask the ones on PATH for their
# version quickly (a shim, a loaded machine).
if [ -z "${CMAKE_EXECUTABLE:-}" ] && [ -x /usr/bin/cmake ]; then export CMAKE_EXECUTABLE=/usr/bin/cmake; fi
if [ -z "${CMAKE_MAKE_PROGRAM:-}" ] && [ -x /usr/bin/ninja ]; then
  export CMAKE_MAKE_PROGRAM=/usr/bin/ninja CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
fi
if command -v ccache >/dev/null 2>&1; then export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}; fi
start=$SECONDS
if [ "$editable" = 1 ]; then
  # No build isolation: the build backend lives in .venv, and each rebuild reuses build/editable.
  log "$python -m pip install -e '.[$extras]' (rebuilds on import)"
  "$python" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12"
  # What pip would put into an isolated build environment (NVRTC 12 when the kernels are built).
  mapfile -t requires < <(cd tools && "$python" -c 'import build_backend as b; print("\n".join(b.get_requires_for_build_editable()))')
  "$python" -m pip install -q "${requires[@]}"
  "$python" -m pip install --no-build-isolation --config-settings=editable.rebuild=true \
    --config-settings=editable.verbose=false --config-settings=build-dir=build/editable -e ".[$extras]"
else
  log "$python -m pip install '.[$extras]'"
  "$python" -m pip install ".[$extras]"
fi
echo "pip install took $((SECONDS - start)) s"
# Which CUDA kernels the build holds, why, and the command for the others: one line.
(cd / && "$python" - <<'PY'
import glassgrad
print(f"glassgrad {glassgrad.__version__} installed at {glassgrad.__file__}")
note, cuda = glassgrad.cuda.build_note(), glassgrad.cuda
if cuda.built_with_kernels():
    print(f"CUDA kernels: {cuda.built_archs()} ({note[len('CUDA kernels for '):]}); for every other GPU too: "
          "GLASSGRAD_CUDA_ARCHS=all bash tools/setup.sh (about 15 more minutes on 2 cores)")
else:
    print(f"CUDA kernels: none, {note[len('no CUDA kernels: '):]}; to build them: GLASSGRAD_CUDA_ARCHS=<a GPU's compute "
          "capability, e.g. 86> bash tools/setup.sh, or =all for every GPU (about 15 more minutes on 2 cores)")
PY
)
