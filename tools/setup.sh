#!/usr/bin/env bash
# Sets up a Debian (or Ubuntu) machine for glassgrad: the system packages the build and the
# tests need, then the Python package itself (`pip install .`, which compiles the C++ code).
#
#   bash tools/setup.sh            system packages + python3 -m pip install .
#   bash tools/setup.sh --test     ... + the test extras (pytest, hypothesis, scikit-learn,
#                                  matplotlib, safetensors; tqdm comes with the package)
#   bash tools/setup.sh --no-apt   skip the system packages (e.g. no root and already there)
#
# Runs apt-get through sudo when not root. apt-get runs only when a package is missing.
# The CUDA kernels are compiled when nvcc is found (GLASSGRAD_CUDA=AUTO, the default); set
# GLASSGRAD_CUDA=OFF to skip them or ON to require them.
set -euo pipefail
cd "$(dirname "$0")/.."

with_test=0
with_apt=1
for arg in "$@"; do
  case "$arg" in
    --test) with_test=1 ;;
    --no-apt) with_apt=0 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

log() { printf '\n== %s\n' "$*"; }

# --- system packages --------------------------------------------------------------------
# build-essential, cmake, ninja-build: the C++ build.  libgtest-dev: the C++ unit tests.
# dataset-fashion-mnist: the data the training example and its tests read (no downloads).
# graphviz: renders the plans and graphs glassgrad prints as .dot.
packages=(build-essential cmake ninja-build libgtest-dev dataset-fashion-mnist graphviz)
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  packages+=(python3 python3-dev python3-pip python3-venv)
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
# A Debian system Python refuses pip installs (PEP 668): use a virtual environment then.
python=${PYTHON:-python3}
in_venv=$("$python" -c 'import sys; print(int(sys.prefix != sys.base_prefix))')
managed=$("$python" -c 'import os, sysconfig; print(int(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))))')
if [ "$in_venv" = 0 ] && [ "$managed" = 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    log "this Python is managed by the system: creating .venv"
    "$python" -m venv .venv
  fi
  python=$PWD/.venv/bin/python
  echo "using $python (activate it with: source .venv/bin/activate)"
fi

target="."
if [ "$with_test" = 1 ]; then target=".[test]"; fi
log "$python -m pip install $target"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
start=$SECONDS
"$python" -m pip install "$target"
echo "pip install took $((SECONDS - start)) s"
"$python" - <<'PY'
import glassgrad
print(f"glassgrad {glassgrad.__version__} installed at {glassgrad.__file__}")
PY
