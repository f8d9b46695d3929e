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

# --- bookkeeping ---------------------------------------------------------------------------
# Each stage runs in its own subshell with errexit, so a failing stage stops itself but the
# later stages still run (CI then shows every failure at once); the script fails at the end.
# A stage reports its test counts by writing "passed failed skipped note" to $counts.
counts=$build/.stage-counts
rows=()
total_passed=0 total_failed=0 total_skipped=0 failed_stages=0
stage() {  # stage <title> <function> [args...]
  local title=$1 start=$SECONDS rc=0 p=0 f=0 s=0 note=""
  shift
  printf '\n==== %s\n' "$title"
  rm -f "$counts"
  ( set -euo pipefail; "$@" ) &
  wait $! || rc=$?
  if [ -f "$counts" ]; then read -r p f s note < "$counts"; fi
  if [ "$rc" != 0 ]; then
    failed_stages=$((failed_stages + 1))
    [ "$f" -gt 0 ] || f=1
    note="FAILED (exit $rc)${note:+; $note}"
  fi
  total_passed=$((total_passed + p)); total_failed=$((total_failed + f)); total_skipped=$((total_skipped + s))
  rows+=("$(printf '  %-36s %5d passed %3d failed %3d skipped %5ds  %s' "$title" "$p" "$f" "$s" $((SECONDS - start)) "$note")")
}
summary() {
  local rc=$?
  printf '\n==== summary (%ds)\n' "$SECONDS"
  for r in "${rows[@]}"; do echo "$r"; done
  if [ "$rc" != 0 ] && [ "$failed_stages" = 0 ]; then total_failed=$((total_failed + 1)); fi
  echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
}
trap summary EXIT

# ctest ends with "100% tests passed out of 38" or "95% tests passed, 2 tests failed out of 38";
# each skipped test is listed once as "(Skipped)".
ctest_counts() {  # ctest_counts <log>: prints "passed failed skipped"
  local total failed skipped
  total=$(sed -n 's/.*tests passed.* out of \([0-9][0-9]*\).*/\1/p' "$1" | tail -1)
  failed=$(sed -n 's/.*, \([0-9][0-9]*\) tests\{0,1\} failed out of.*/\1/p' "$1" | tail -1)
  skipped=$(grep -c '(Skipped)' "$1" || true)
  echo "$(( ${total:-0} - ${failed:-0} - ${skipped:-0} )) ${failed:-0} ${skipped:-0}"
}

cpp_package() {  # cpp_package <source dir>: configure, build, ctest
  local dir=$build/$1 log=$build/$1.ctest.log rc=0
  cmake -S "$1" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" 2>&1 | tee "$log" || rc=$?
  echo "$(ctest_counts "$log")" > "$counts"
  return "$rc"
}

example_against_installed_engine() {
  local prefix=$build/engine-install rc=0  # wiped and refilled on every run
  rm -rf "$prefix"
  cmake --install "$build/autodiff-engine" --prefix "$prefix" >/dev/null
  cmake -S autodiff-engine/examples -B "$build/examples" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  local found
  found=$(sed -n 's/^glassgrad_autodiff_DIR:PATH=//p' "$build/examples/CMakeCache.txt")
  case "$found" in
    "$prefix"/*) echo "find_package(glassgrad_autodiff) found the installed engine: $found" ;;
    *) echo "find_package(glassgrad_autodiff) found '$found', not the engine installed in $prefix" >&2; return 1 ;;
  esac
  cmake --build "$build/examples" -j "$jobs"
  "$build/examples/dense_layer_backward" "$build/examples/plan.dot" || rc=$?
  case "$rc" in
    0) echo "1 0 0 dense_layer_backward ran" > "$counts" ;;
    77) echo "0 0 1 dense_layer_backward: ops missing in this engine" > "$counts"; rc=0 ;;
  esac
  return "$rc"
}

check_installed_package() {  # the imported glassgrad is installed and equals the working tree
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
}

python_tests() {
  local log=$build/pytest.log rc=0
  if ! "$python" -c 'import pytest, hypothesis' 2>/dev/null; then
    echo "pytest or hypothesis is missing for $python" >&2
    echo "  fix: bash tools/setup.sh --test   (installs glassgrad with its test extras)" >&2
    return 1
  fi
  if [ "$in_tree" = 1 ]; then
    bash tools/dev_build.sh
    export PYTHONPATH=$root/python-bindings
  else
    unset PYTHONPATH
    check_installed_package
  fi
  # The rootdir conftest puts python-bindings/tests on sys.path, never python-bindings/, so
  # `import glassgrad` finds the installed package. -p no:cacheprovider: no .pytest_cache.
  # shellcheck disable=SC2086
  "$python" -m pytest -p no:cacheprovider -q python-bindings/tests ${PYTEST_ARGS:-} 2>&1 | tee "$log" || rc=$?
  local last
  last=$(grep -E '(passed|failed|error|skipped|no tests ran)' "$log" | tail -1)
  num() { echo "$last" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
  echo "$(num passed) $(( $(num failed) + $(num error) )) $(num skipped)" > "$counts"
  return "$rc"
}

stage "autodiff-engine alone (ctest)" cpp_package autodiff-engine
stage "core-runtime alone (ctest)" cpp_package core-runtime
stage "example vs installed engine" example_against_installed_engine
if [ "$in_tree" = 1 ]; then
  stage "python (pytest, in-tree dev build)" python_tests
else
  stage "python (pytest, installed package)" python_tests
fi
[ "$failed_stages" = 0 ]
