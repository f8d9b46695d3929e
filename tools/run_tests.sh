#!/usr/bin/env bash
# glassgrad's test command (README; CI runs it through .ci/run):
#   1. autodiff-engine alone: cmake -S autodiff-engine, build, ctest
#   2. core-runtime alone:    cmake -S core-runtime, build, ctest
#   3. the C++ example (autodiff-engine/examples) built against the engine *installed* into a
#      temporary prefix, through find_package(glassgrad_autodiff), and run
#   4. pytest over python-bindings/tests against the pip-installed glassgrad (what users get;
#      install it first: bash tools/setup.sh --test). The working tree's python-bindings/ is
#      kept off sys.path, and the installed Python files must equal the working tree's.
#
#   bash tools/run_tests.sh              all four stages
#   bash tools/run_tests.sh --in-tree    stage 4 against the development build instead
#                                        (bash tools/dev_build.sh; PYTHONPATH=python-bindings)
#   PYTEST_ARGS="-k conv -x" bash tools/run_tests.sh     extra pytest arguments
#
# Build directories live under build/test (GLASSGRAD_TEST_BUILD_DIR), so reruns are
# incremental. Exits non-zero on any failure; the last line is "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

in_tree=0
for arg in "$@"; do
  case "$arg" in
    --in-tree) in_tree=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run_tests.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

build=${GLASSGRAD_TEST_BUILD_DIR:-$root/build/test}
jobs=${JOBS:-$(nproc)}
mkdir -p "$build"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
python=${PYTHON:-}
if [ -z "$python" ]; then
  if [ -z "${VIRTUAL_ENV:-}" ] && [ -x "$root/.venv/bin/python" ]; then python=$root/.venv/bin/python; else python=python3; fi
fi

# --- bookkeeping: one summary row per stage, printed on exit (also after a failure) ---------
rows=()
total_passed=0 total_failed=0 total_skipped=0
stage_name="" stage_start=0
begin() { stage_name=$1; stage_start=$SECONDS; printf '\n==== %s\n' "$1"; }
finish() {  # finish PASSED FAILED SKIPPED NOTE
  total_passed=$((total_passed + $1)); total_failed=$((total_failed + $2)); total_skipped=$((total_skipped + $3))
  rows+=("$(printf '  %-34s %4d passed %3d failed %3d skipped %5ds  %s' "$stage_name" "$1" "$2" "$3" $((SECONDS - stage_start)) "${4:-}")")
  stage_name=""
}
summary() {
  local rc=$?
  if [ -n "$stage_name" ]; then  # a stage stopped the script
    rows+=("$(printf '  %-34s FAILED (exit %d) after %ds' "$stage_name" "$rc" $((SECONDS - stage_start)))")
    [ "$total_failed" -gt 0 ] || total_failed=1
  fi
  printf '\n==== summary (%ds)\n' "$SECONDS"
  for r in "${rows[@]}"; do echo "$r"; done
  echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
  if [ "$rc" = 0 ] && [ "$total_failed" -gt 0 ]; then exit 1; fi
}
trap summary EXIT

# ctest's "100% tests passed, 0 tests failed out of 38" (and "N tests skipped" lines).
ctest_counts() {  # log -> "passed failed skipped"
  local total failed skipped
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$1" | tail -1)
  failed=$(sed -n 's/.*, \([0-9]*\) tests\{0,1\} failed out of.*/\1/p' "$1" | tail -1)
  skipped=$(grep -c '(Skipped)' "$1" || true)
  echo "$(( ${total:-0} - ${failed:-0} - ${skipped:-0} )) ${failed:-0} ${skipped:-0}"
}

cpp_package() {  # cpp_package <dir> <title>
  local src=$1 dir=$build/$1 log=$build/$1.ctest.log
  begin "$2"
  cmake -S "$src" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" 2>&1 | tee "$log"
  # shellcheck disable=SC2046
  finish $(ctest_counts "$log")
}

# --- 1, 2: each C++ package alone -----------------------------------------------------------
cpp_package autodiff-engine "autodiff-engine (ctest)"
cpp_package core-runtime "core-runtime (ctest)"

# --- 3: the example against the installed engine -------------------------------------------
begin "example vs installed engine"
prefix=$build/engine-install  # wiped and refilled on every run
rm -rf "$prefix"
cmake --install "$build/autodiff-engine" --prefix "$prefix" >/dev/null
cmake -S autodiff-engine/examples -B "$build/examples" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found=$(sed -n 's/^glassgrad_autodiff_DIR:PATH=//p' "$build/examples/CMakeCache.txt")
case "$found" in
  "$prefix"/*) echo "find_package(glassgrad_autodiff) found the installed engine: $found" ;;
  *) echo "find_package(glassgrad_autodiff) found '$found', not the engine installed in $prefix" >&2; exit 1 ;;
esac
cmake --build "$build/examples" -j "$jobs"
set +e
"$build/examples/dense_layer_backward" "$build/examples/plan.dot"
example_rc=$?
set -e
case "$example_rc" in
  0) finish 1 0 0 "dense_layer_backward ran" ;;
  77) finish 0 0 1 "dense_layer_backward: ops missing in this engine (see above)" ;;
  *) exit "$example_rc" ;;
esac

# --- 4: Python tests ----------------------------------------------------------------------
pytest_log=$build/pytest.log
if [ "$in_tree" = 1 ]; then
  begin "python (pytest, in-tree dev build)"
  bash tools/dev_build.sh
  export PYTHONPATH=$root/python-bindings
else
  begin "python (pytest, installed package)"
  unset PYTHONPATH
  # Which glassgrad is imported, from outside the tree, and is it this working tree's code?
  (cd / && "$python" - "$root/python-bindings/glassgrad" <<'PY'
import filecmp, os, sys
tree = os.path.realpath(sys.argv[1])
try:
    import glassgrad
except ImportError as e:
    sys.exit(f"glassgrad is not installed for {sys.executable} ({e})\n"
             f"  fix: bash tools/setup.sh --test   (or: python3 -m pip install '.[test]')")
installed = os.path.dirname(os.path.realpath(glassgrad.__file__))
print(f"testing glassgrad {glassgrad.__version__} installed at {installed}")
if installed == tree:
    sys.exit("glassgrad resolves to the working tree, not an installed package")
stale = []
for d, _, files in os.walk(tree):
    for f in files:
        if f.endswith(".py"):
            rel = os.path.relpath(os.path.join(d, f), tree)
            other = os.path.join(installed, rel)
            if not os.path.exists(other) or not filecmp.cmp(os.path.join(d, f), other, shallow=False):
                stale.append(rel)
if stale:
    sys.exit(f"the installed glassgrad differs from the working tree in {len(stale)} file(s): "
             f"{', '.join(sorted(stale)[:5])}\n"
             f"  fix: python3 -m pip install .   (or run with --in-tree to test the dev build)")
PY
  )
fi
# -p no:cacheprovider: no .pytest_cache in the tree. The rootdir conftest puts only
# python-bindings/tests on sys.path, never python-bindings/.
# shellcheck disable=SC2086
"$python" -m pytest -p no:cacheprovider -q python-bindings/tests ${PYTEST_ARGS:-} 2>&1 | tee "$pytest_log"
last=$(grep -E '(passed|failed|error|skipped|no tests ran)' "$pytest_log" | tail -1)
count() { echo "$last" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
finish "$(count passed)" "$(( $(count failed) + $(count error) ))" "$(count skipped)"
