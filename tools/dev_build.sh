#!/usr/bin/env bash
# Development build: compiles the extension into build/dev (or $GLASSGRAD_DEV_BUILD_DIR) and
# copies it next to the Python sources, so tests can run against the working tree (GLASSGRAD_CUDA=ON
# with GLASSGRAD_CUDA_ARCHS=90, say, for a CUDA build of one architecture):
#   bash tools/dev_build.sh && PYTHONPATH=python-bindings python -m pytest python-bindings/tests
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GLASSGRAD_DEV_BUILD_DIR:-build/dev}"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
# ccache, when installed, makes rebuilds in several checkouts of the tree cheap.
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DGLASSGRAD_BUILD_PYTHON=ON -DGLASSGRAD_DEV_INPLACE=ON \
    -DGLASSGRAD_CUDA="${GLASSGRAD_CUDA:-OFF}" \
    ${GLASSGRAD_CUDA_ARCHS+"-DGLASSGRAD_CUDA_ARCHS=$GLASSGRAD_CUDA_ARCHS"} \
    -DPython_EXECUTABLE="$(command -v python3)" \
    -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)"
fi
cmake --build "$build_dir" -j "${JOBS:-2}"
