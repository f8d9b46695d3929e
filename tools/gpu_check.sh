#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU and the CUDA toolkit (never in CI):
#   1. build with GLASSGRAD_CUDA=ON (dev build in build/gpu) for every architecture, explicitly
#      (GLASSGRAD_CUDA_ARCHS=all, as wheels and CI: the SASS check reads each; the CUDA 12 images
#      too when NVRTC 12 is installed; GLASSGRAD_CUDA_ARCHS=90 builds one, '' the GPU it sees;
#      GLASSGRAD_CUDA_LEGACY and GLASSGRAD_NVRTC, e.g. a libnvrtc.so.12 carried to a machine
#      without network, are passed on every run, so a reused build/gpu follows them)
#      with a C++ compiler that links libstdc++ dynamically (CXX if it does, else the first of
#      /usr/bin/g++, g++, c++, clang++ that does: a module with its own static copy crashed on
#      the first CUDA tensor once numpy and libcuda had loaded the system's), then a smoke test
#      (a CUDA tensor and one Conv2D training step, compared with the CPU) that stops the check
#      loudly when it fails -- the build is skipped with --no-build when
#      python-bindings/glassgrad already holds a CUDA build; the smoke test always runs
#   2. every test file that needs the CUDA build: the files holding a test marked `cuda` (CPU vs
#      CUDA parity of every op, allocator, graphs, device info) or `cuda_build` (registration,
#      the fatbin's SASS: every launched kernel for every architecture, no tensor-core
#      instructions, registers and shared memory), run whole; the summary lists every skip
#      with its reason, so a skip cannot pass for a pass
#   3. compute-sanitizer memcheck and racecheck over tools/cuda_sanitize_ops.py
#   4. the GPU benchmarks in benchmarks/ (CSV under $OUT)
#   5. a short table
#
#   6. with --train DIR: train_mnist.py for one epoch on the GPU (DIR: Fashion-MNIST IDX files)
#   7. with --cifar DIR: port_cifar.py compiled on the GPU (DIR: cifar-10-batches-py, or
#      'synthetic' for 10,000 generated images), 2 epochs of OneCycleLR: the compiled step's
#      traces, replays, plan compiles per step and CUDA graph captures
#
#   bash tools/gpu_check.sh [--no-build] [--quick] [--no-tests] [--no-sanitize] [--bench a,b] [--train DIR]
#                           [--cifar DIR] [--wheel DIR | --installed] [--image NAME] [--driver VERSION]
#   logs go to $GPU_CHECK_OUT (default /tmp/gpu_check); GPU_CHECK_PYTEST_ARGS adds pytest arguments
#   to step 2 (e.g. '-n 8 --dist loadfile' with pytest-xdist); --bench runs only the named benchmarks;
#   --wheel DIR: test glassgrad as built into the wheel for this Python in DIR (tools/build_wheels.sh;
#   e.g. one with the NVRTC 12 images, which this machine cannot build) instead of building;
#   --installed: test the glassgrad installed for $PYTHON (e.g. .venv/bin/python after
#   tools/setup.sh) instead of building;
#   --image NAME: run every step on that embedded kernel image (GLASSGRAD_CUDA_IMAGE, e.g.
#   compute_50: NVRTC's Maxwell PTX, JIT-compiled by the driver, to test the sm_50 code path);
#   --driver VERSION: choose the kernel image as if the driver were VERSION (550, 12.4 or 12040;
#   GLASSGRAD_CUDA_DRIVER_VERSION): below 580 a Turing-to-Hopper GPU runs NVRTC 12's cubin of its
#   architecture, so a wheel's CUDA 12 images are tested on a newer driver
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${GPU_CHECK_OUT:-/tmp/gpu_check}
mkdir -p "$out"
build=1 quick=0 tests=1 sanitize=1 benches="" train="" cifar="" wheel_dir="" image="" driver="" installed=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --quick) quick=1 ;;
    --no-tests) tests=0 ;;
    --no-sanitize) sanitize=0 ;;
    --bench) benches=$2; shift ;;
    --train) train=$2; shift ;;
    --cifar) cifar=$2; shift ;;
    --wheel) wheel_dir=$2; build=0; shift ;;
    --image) image=$2; shift ;;
    --driver) driver=$2; shift ;;
    --installed) installed=1; build=0 ;;
    -h|--help) sed -n "2,$(($(grep -n '^set -uo pipefail' "$0" | cut -d: -f1) - 1))p" "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
python=${PYTHON:-python3}
if [ -n "$wheel_dir" ]; then
  # The wheel's files in a folder of their own; the tests and scripts still come from this tree.
  tag=$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  whl=$(ls "$wheel_dir"/glassgrad-*-"$tag"-"$tag"-*.whl 2>/dev/null | head -1)
  [ -n "$whl" ] || { echo "gpu_check.sh: no glassgrad wheel for $tag in $wheel_dir" >&2; exit 2; }
  rm -rf "$out/wheel-site"
  "$python" -m pip install -q --no-deps --no-index --target "$out/wheel-site" "$whl" || exit 2
  export PYTHONPATH=$out/wheel-site${PYTHONPATH:+:$PYTHONPATH}
  echo "== testing $(basename "$whl") (installed into $out/wheel-site)"
elif [ "$installed" = 1 ]; then
  # The rootdir conftest keeps python-bindings/ off sys.path: pytest imports the installed copy.
  echo "== testing the glassgrad installed for $python: $(cd / && "$python" -c 'import glassgrad; print(glassgrad.__file__)')"
else
  export PYTHONPATH=$root/python-bindings${PYTHONPATH:+:$PYTHONPATH}
fi
if [ -n "$image" ]; then
  export GLASSGRAD_CUDA_IMAGE=$image
  echo "== every step runs on the kernel image $image (GLASSGRAD_CUDA_IMAGE)"
fi
if [ -n "$driver" ]; then
  export GLASSGRAD_CUDA_DRIVER_VERSION=$driver
  echo "== every step chooses its kernel image as if the driver were $driver (GLASSGRAD_CUDA_DRIVER_VERSION)"
fi
export PYTHONUNBUFFERED=1
declare -a rows
row() { rows+=("$(printf '%-28s %-8s %s' "$1" "$2" "$3")"); }

# The first C++ compiler that links libstdc++ into a shared library dynamically (NEEDED
# libstdc++.so), so that _C shares the process's one C++ runtime.
dynamic_cxx() {
  local probe cand
  probe=$(mktemp -d)
  printf '#include <sstream>\nint probe(int v) { std::ostringstream s; s << v; return int(s.str().size()); }\n' \
    > "$probe/probe.cpp"
  for cand in ${CXX:-} /usr/bin/g++ g++ c++ clang++; do
    cand=$(command -v "$cand" 2>/dev/null) || continue
    if "$cand" -shared -fPIC "$probe/probe.cpp" -o "$probe/probe.so" 2>/dev/null &&
       { readelf -d "$probe/probe.so" 2>/dev/null || objdump -p "$probe/probe.so" 2>/dev/null; } | grep -q "NEEDED.*libstdc++"; then
      rm -rf "$probe"
      echo "$cand"
      return 0
    fi
    echo "   $cand links libstdc++ statically into shared libraries: not used" >&2
  done
  rm -rf "$probe"
  return 1
}

echo "== GPU"
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$out/gpu.txt"
command -v nvcc >/dev/null && nvcc --version | tail -2

# --- 1. build ---------------------------------------------------------------------------------
usable() { "$python" -c 'import glassgrad, sys; sys.exit(0 if glassgrad.cuda.built_with_kernels() else 1)' 2>/dev/null; }
if [ "$installed" = 0 ] && { [ "$build" = 1 ] || ! usable; }; then
  export GLASSGRAD_CUDA_ARCHS=${GLASSGRAD_CUDA_ARCHS-all}  # set but empty: the GPU the build sees
  cxx=$(dynamic_cxx) || { echo "gpu_check.sh: no C++ compiler here links libstdc++ dynamically (tried: ${CXX:-} /usr/bin/g++ g++ c++ clang++)" >&2; exit 1; }
  # The C compiler (CMake's configure checks) from the same toolchain as the C++ one: CMake's default
  # `cc` can be another GCC whose configure checks (pthreads in libc) do not hold for this one.
  cc=${cxx%++}; case $cc in */g | g) cc=${cc%g}gcc ;; *clang) ;; *) cc=${CC:-cc} ;; esac
  command -v "$cc" >/dev/null 2>&1 || cc=${CC:-cc}
  export CXX=$cxx CC=$cc CUDAHOSTCXX=$cxx NVCC_CCBIN=$cxx
  # A build directory configured with other compilers keeps them: start that one afresh.
  if [ -f build/gpu/CMakeCache.txt ] && { ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=$cxx\$" build/gpu/CMakeCache.txt ||
       ! grep -q "^CMAKE_C_COMPILER:[A-Z]*=$(command -v "$cc")\$" build/gpu/CMakeCache.txt; }; then
    rm -rf build/gpu
  fi
  echo "== build (GLASSGRAD_CUDA=ON, archs '${GLASSGRAD_CUDA_ARCHS}', CXX $cxx, CC $cc)"
  start=$SECONDS
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  if { cmake -S . -B build/gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGLASSGRAD_BUILD_PYTHON=ON \
         -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$(command -v "$cc")" \
         -DGLASSGRAD_DEV_INPLACE=ON -DGLASSGRAD_CUDA=ON "-DGLASSGRAD_CUDA_ARCHS=${GLASSGRAD_CUDA_ARCHS}" \
         "-DGLASSGRAD_CUDA_LEGACY=${GLASSGRAD_CUDA_LEGACY:-AUTO}" "-DGLASSGRAD_NVRTC=${GLASSGRAD_NVRTC:-}" \
         -DPython_EXECUTABLE="$(command -v "$python")" -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)" &&
       cmake --build build/gpu -j "$(nproc)"; } > "$out/build.log" 2>&1; then
    row "build" "ok" "$((SECONDS - start)) s, $(sed -n 's/^-- glassgrad: \(CUDA kernels.*\)/\1/p' "$out/build.log" | head -1), CXX $cxx"
  else
    tail -30 "$out/build.log"
    row "build" "FAILED" "see build.log"
  fi
  grep -A3 "libstdc++ statically" "$out/build.log" || true
elif [ -n "$wheel_dir" ]; then
  row "build" "skipped" "testing $(basename "$whl")"
elif [ "$installed" = 1 ]; then
  row "build" "skipped" "testing the glassgrad installed for $python"
else
  row "build" "skipped" "using the existing python-bindings/glassgrad/_C"
fi
echo "== smoke test"
if "$python" tools/gpu_smoke.py 2>&1 | tee "$out/smoke.log"; then
  row "smoke test" "ok" "$(tail -1 "$out/smoke.log")"
else
  echo "gpu_check.sh: the smoke test FAILED (see above): the build cannot run CUDA work; stopping" >&2
  exit 1
fi
"$python" - <<'PY' | tee "$out/device.txt"
import glassgrad
print("available:", glassgrad.cuda.is_available(), glassgrad.cuda.why_unavailable())
print("glassgrad from:", glassgrad.__file__)
print("built for:", glassgrad.cuda.built_archs())
print("build note:", glassgrad.cuda.build_note())
if glassgrad.cuda.is_available():
    for k, v in glassgrad.cuda.device_info().items():
        print(f"  {k}: {v}")
PY
row "kernel image" "" "$(sed -n 's/^  kernel_image: //p' "$out/device.txt")"

# --- 2. tests ---------------------------------------------------------------------------------
if [ "$tests" = 1 ]; then
  # The files, as pytest selects them; run whole, so their unmarked tests run too.
  mapfile -t cuda_files < <("$python" -m pytest -p no:cacheprovider -q --collect-only -m "cuda or cuda_build" \
                              python-bindings/tests 2>/dev/null | sed -n 's/::.*//p' | sort -u)
  echo "== pytest: ${#cuda_files[@]} test files that need the CUDA build"
  printf '   %s\n' "${cuda_files[@]}"
  [ "${#cuda_files[@]}" -gt 0 ] || cuda_files=(--collect-only -m "cuda or cuda_build" python-bindings/tests)  # shows why
  GLASSGRAD_CUDA_RESOURCES=$out/cuda_kernel_resources.txt \
    "$python" -m pytest -p no:cacheprovider -q -rs ${GPU_CHECK_PYTEST_ARGS:-} --junitxml="$out/pytest_cuda.xml" "${cuda_files[@]}" \
    2>&1 | tee "$out/pytest_cuda.log" | tail -30
  status=$( [ "${PIPESTATUS[0]}" = 0 ] && [ "${#cuda_files[@]}" -gt 0 ] && echo ok || echo FAILED)
  # Counts and every skip with its reason, from the JUnit XML.
  "$python" tools/junit_summary.py --skips "$out/pytest_cuda.xml" > "$out/pytest_cuda_summary.txt" 2>&1 || status=FAILED
  row "pytest (CUDA test files)" "$status" "$(head -1 "$out/pytest_cuda_summary.txt")"
  while IFS= read -r line; do row "  fatbin" "" "$line"; done \
    < <(sed -n '/CUDA kernels checked/,/kernels with local memory/p' "$out/pytest_cuda.log" | tail -n +2)
  tail -n +2 "$out/pytest_cuda_summary.txt" > "$out/pytest_cuda_skips.txt"
fi

# --- 2b. the seed's script on the GPU -----------------------------------------------------------
if [ -n "$train" ]; then
  echo "== train_mnist.py, one epoch on the GPU"
  "$python" examples-and-tutorials/train_mnist.py --data "$train" --epochs 1 --no-progress 2>&1 | tee "$out/train_mnist.log" | tail -6
  row "train_mnist 1 epoch" "$( [ "${PIPESTATUS[0]}" = 0 ] && echo ok || echo FAILED)" \
    "$(grep -E 'Epoch .* done in' "$out/train_mnist.log" | tail -1)"
fi

# --- 2c. the ported CIFAR script, compiled, on the GPU ------------------------------------------
if [ -n "$cifar" ]; then
  echo "== port_cifar.py --compile, two epochs on the GPU"
  if [ "$cifar" = synthetic ]; then data=(--synthetic 10000); else data=(--data "$cifar"); fi
  "$python" examples-and-tutorials/port_cifar.py "${data[@]}" --epochs 2 --compile --device cuda 2>&1 \
    | tee "$out/port_cifar.log" | tail -6
  row "port_cifar compiled" "$( [ "${PIPESTATUS[0]}" = 0 ] && echo ok || echo FAILED)" \
    "$(grep -E '^compiled step|^plan compiles|^CUDA graphs' "$out/port_cifar.log" | tr '\n' ' ')"
fi

# --- 3. sanitizers ------------------------------------------------------------------------------
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ "$sanitize" = 0 ]; then
  row "sanitizers" "skipped" "--no-sanitize"
elif [ -n "$sanitizer" ]; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    "$sanitizer" --tool "$tool" --error-exitcode 17 "$python" tools/cuda_sanitize_ops.py > "$out/sanitizer_$tool.log" 2>&1
    rc=$?
    tail -4 "$out/sanitizer_$tool.log"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|CUDA op runs" "$out/sanitizer_$tool.log" | tr '\n' ' ')
    row "sanitizer $tool" "$( [ "$rc" = 0 ] && echo ok || echo "FAILED($rc)")" "$summary"
  done
else
  row "sanitizers" "skipped" "compute-sanitizer not found"
fi

# --- 4. benchmarks ------------------------------------------------------------------------------
for b in benchmarks/*.py; do
  [ -e "$b" ] || continue
  name=$(basename "$b" .py)
  if [ -n "$benches" ] && [[ ",$benches," != *",$name,"* ]]; then continue; fi
  echo "== benchmark $name"
  args=()
  if [ "$name" = cuda_kernels ]; then
    args=(--out "$out/$name.csv")
    [ "$quick" = 1 ] && args+=(--quick)
  elif help=$("$python" "$b" --help 2>/dev/null) && grep -q -- "--device" <<<"$help"; then
    args=(--device cuda)
    if grep -q -- "--out" <<<"$help"; then args+=(--out "$out/$name.csv"); fi
    if grep -q -- "--csv" <<<"$help"; then args+=(--csv "$out/$name.csv"); fi
    if [ "$quick" = 1 ] && grep -q -- "--limit" <<<"$help"; then args+=(--limit 12800); fi
  else
    row "bench $name" "skipped" "takes no --device option"
    continue
  fi
  if timeout 300 "$python" "$b" "${args[@]}" > "$out/bench_$name.log" 2>&1; then
    row "bench $name" "ok" "$(tail -1 "$out/bench_$name.log")"
  else
    row "bench $name" "FAILED" "see bench_$name.log"
  fi
  tail -40 "$out/bench_$name.log"
done

# --- 5. summary --------------------------------------------------------------------------------
echo
echo "==== GPU check summary ($(head -1 "$out/gpu.txt" 2>/dev/null))"
for r in "${rows[@]}"; do echo "  $r"; done
if [ -s "$out/pytest_cuda_skips.txt" ]; then
  echo "  skipped CUDA tests (a skip is not a pass):"
  cat "$out/pytest_cuda_skips.txt"
fi
