#!/usr/bin/env bash
# glassgrad's test command (README's second command; CI runs it through .ci/run with --sanitize):
#   1. autodiff-engine alone: cmake -S autodiff-engine, build, install into a prefix, ctest
#   2. core-runtime alone:    cmake -S core-runtime against the engine *installed* in stage 1
#      (find_package(glassgrad_autodiff), as a C++ user builds it; not the engine's sources again
#      as a subproject), build, ctest
#   3. the engine's C++ example (autodiff-engine/examples) built against that installed engine,
#      through find_package(glassgrad_autodiff), and run
#   4. the runtime's C++ example (core-runtime/examples) built against the runtime installed the
#      same way (beside the engine's prefix), through find_package(glassgrad_runtime), and run
#   5. pytest over all of python-bindings/tests (the slow tests too), in one process per core
#      (pytest-xdist, --dist loadfile: a test file runs whole, in order, in one process), against the pip-installed
#      glassgrad (what users get; the README's first command installed it). The working tree's
#      python-bindings/ is kept off sys.path, and the installed Python files must equal the
#      working tree's. The test extra of pyproject.toml is installed into .venv first when any
#      of it is missing there (a Python outside a virtual environment is not changed: the run
#      fails, naming what is missing).
#   6. with --sanitize (CI): everything (both packages, their tests, the Python extension; no
#      CUDA) built with GLASSGRAD_SANITIZE="address;undefined" into build/test/sanitize: both
#      packages' ctest, then the op-table tests and the property tests over the op table with
#      that extension and libasan preloaded. Any finding stops its test and fails the stage. It
#      rebuilds everything instrumented: about 10 more minutes on a 2-core machine.
#
# Stages 1-4 run one after the other in the background while stage 5 runs (their output is printed
# when stage 5 ends): the unity builds keep one core busy for minutes at a time, and the Python
# tests fill the other. Each stage's wall time is in the summary, with the run's total.
#
#   bash tools/run_tests.sh              stages 1-5 (how long on a 2-core machine: README.md)
#   bash tools/run_tests.sh --sanitize   stages 1-6 (what CI runs)
#   bash tools/run_tests.sh --in-tree    stage 5 against the development build instead
#                                        (bash tools/dev_build.sh; PYTHONPATH=python-bindings)
#   PYTEST_ARGS="-k conv -x" bash tools/run_tests.sh     extra pytest arguments
#   PYTEST_WORKERS=1 bash tools/run_tests.sh             pytest in one process (default: one per core)
#
# Python: $PYTHON, else the .venv that tools/setup.sh made, else python3. Build directories live
# under build/test (GLASSGRAD_TEST_BUILD_DIR), so reruns are incremental, and compile through
# ccache when it is installed (a rerun, or a new build directory, is served from it). Every stage writes JUnit XML there (ctest --output-junit, pytest --junitxml) and is
# counted from it (tools/junit_summary.py); a stage that does not run says so in the summary, which
# gives each stage's wall time and CPU seconds, and the run's (the C++ stages overlap the Python one).
# Exits non-zero on any failure; the last line is "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

in_tree=0
sanitize=0
for arg in "$@"; do
  case "$arg" in
    --in-tree) in_tree=1 ;;
    --sanitize) sanitize=1 ;;
    -h|--help) sed -n "2,$(($(grep -n '^set -euo pipefail' "$0" | cut -d: -f1) - 1))p" "$0"; exit 0 ;;
    *) echo "run_tests.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

build=${GLASSGRAD_TEST_BUILD_DIR:-$root/build/test}
jobs=${JOBS:-$(nproc)}
mkdir -p "$build"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if command -v ccache >/dev/null 2>&1; then generator+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# Unity builds of the engine and the runtime, as the package build (pyproject.toml): one unit per
# library (autodiff-engine/cmake/GlassgradUnity.cmake). ccache keys a unit by its file name too, and
# a unity unit is a file in the build directory, so these are compiled here once rather than
# served from the package build's; the per-ISA files and kernel_image.cpp are.
generator+=(-DCMAKE_UNITY_BUILD=ON)
python=${PYTHON:-}
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python=$root/.venv/bin/python; else python=python3; fi
fi
# The C++ compiler the README's first command built with: pip's build (scikit-build-core) sets CXX
# to the Python's configured compiler (sysconfig's CXX, e.g. g++ or x86_64-linux-gnu-g++), and
# ccache keys an object by the compiler's name too, so building the packages here with plain
# `c++` would compile every file again.
if [ -z "${CXX:-}" ]; then
  cxx=$("$python" -c 'import sysconfig; print(((sysconfig.get_config_var("CXX") or "").split() or [""])[0])' 2>/dev/null || true)
  if [ -n "$cxx" ] && command -v "$cxx" >/dev/null 2>&1; then export CXX=$cxx; fi
fi

# --- bookkeeping ---------------------------------------------------------------------------
# Each stage runs in its own subshell with errexit, so a failing stage stops itself but the
# later stages still run (CI then shows every failure at once); the script fails at the end.
# A stage reports its test counts by writing "passed failed skipped note" to $counts.
counts=$build/.stage-counts
rows=()
total_passed=0 total_failed=0 total_skipped=0 failed_stages=0
# CPU seconds (user + system) from the output of `times` in file $1: its first line is the shell's
# own, its second its finished children's; $2 picks the lines (2: children, 1,2: both).
cpu_in_times() {  # cpu_in_times <file> <line range for sed>
  sed -n "$2p" "$1" | awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } } END { printf "%d", t }'
}
# The run's CPU seconds so far: this shell's finished children. `times` runs in this shell (in a
# command substitution it would report the subshell's own).
children_cpu() {  # children_cpu <variable>: sets it to the CPU seconds so far
  times > "$build/.times"
  printf -v "$1" '%s' "$(cpu_in_times "$build/.times" 2)"
}
# A stage's CPU seconds are its own subshell's and that subshell's children's, which the subshell
# writes with `times` when it exits. (The difference of children_cpu around the stage would also
# count the background C++ job whenever that job ends during the Python stage: it is reaped then.)
stage() {  # stage <title> <function> [args...]
  local title=$1 start=$SECONDS rc=0 p=0 f=0 s=0 note="" cpu=0
  shift
  printf '\n==== %s\n' "$title"
  rm -f "$counts" "$counts.times"
  ( set -euo pipefail; trap 'times > "$counts.times"' EXIT; "$@" ) &
  wait $! || rc=$?
  if [ -f "$counts" ]; then read -r p f s note < "$counts"; fi
  if [ -f "$counts.times" ]; then cpu=$(cpu_in_times "$counts.times" 1,2); fi
  if [ "$rc" != 0 ]; then
    failed_stages=$((failed_stages + 1))
    [ "$f" -gt 0 ] || f=1
    note="FAILED (exit $rc)${note:+; $note}"
  fi
  total_passed=$((total_passed + p)); total_failed=$((total_failed + f)); total_skipped=$((total_skipped + s))
  rows+=("$(printf '  %-36s %5d passed %3d failed %3d skipped %5ds %6d CPU-s  %s' "$title" "$p" "$f" "$s" \
            $((SECONDS - start)) "$cpu" "$note")")
}
cpp_pid=""
summary() {
  local rc=$? cpu
  if [ -n "$cpp_pid" ]; then kill "$cpp_pid" 2>/dev/null || true; fi  # interrupted: the C++ job stops too
  children_cpu cpu
  printf '\n==== summary (%ds wall, %d CPU-s; load average %s)\n' "$SECONDS" "$cpu" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
  for r in "${rows[@]}"; do echo "$r"; done
  if [ "$rc" != 0 ] && [ "$failed_stages" = 0 ]; then total_failed=$((total_failed + 1)); fi
  echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
}
trap summary EXIT

junit_counts() {  # junit_counts <xml>: writes "passed failed skipped" for the stage
  "$python" "$root/tools/junit_summary.py" --counts "$1" > "$counts"
}

ctest_junit() {  # ctest_junit <build dir> <name>: runs its tests, counted from JUnit XML
  local xml=$build/$2.junit.xml rc=0
  rm -f "$xml"
  ctest --test-dir "$1" --output-on-failure -j "$jobs" --output-junit "$xml" || rc=$?
  junit_counts "$xml"
  return "$rc"
}

# install_package <package dir>: installs its build (stage 1/2) into $build/<package dir>-install,
# which then holds exactly what this install put there: files an earlier run installed and this one
# did not are deleted. Files that did not change keep their time stamps (cmake --install skips
# them), so a rerun does not rebuild what was compiled against the engine's installed headers.
install_package() {
  local prefix=$build/$1-install
  cmake --install "$build/$1" --prefix "$prefix" >/dev/null
  local manifest=$build/$1/install_manifest.txt
  if [ -f "$manifest" ]; then
    find "$prefix" \( -type f -o -type l \) -print | { grep -vxF -f "$manifest" || true; } | xargs -r rm -f
  fi
}

cpp_package() {  # cpp_package <source dir> [cmake arguments]: configure, build, install, ctest
  local pkg=$1
  shift
  cmake -S "$pkg" -B "$build/$pkg" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build/$pkg" -j "$jobs"
  install_package "$pkg"
  ctest_junit "$build/$pkg" "$pkg"
}

# found_installed <build dir> <CMake package> <prefix>: fails unless find_package(<CMake package>)
# in that build found the copy installed in <prefix>.
found_installed() {
  local found
  found=$(sed -n "s/^${2}_DIR:PATH=//p" "$1/CMakeCache.txt")
  case "$found" in
    "$3"/*) echo "find_package($2) found the installed package: $found" ;;
    *) echo "find_package($2) found '$found', not the package installed in $3" >&2; return 1 ;;
  esac
}

# The runtime alone, against the engine stage 1 installed (find_package, as a C++ user builds it).
runtime_package() {
  local engine=$build/autodiff-engine-install
  cpp_package core-runtime -DCMAKE_PREFIX_PATH="$engine" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  found_installed "$build/core-runtime" glassgrad_autodiff "$engine"
}

# example_against_installed <package dir> <CMake package> [other prefix]: builds <package dir>/examples
# with only the prefix stage 1/2 installed the package into (and the other prefix: the runtime's
# engine) to find it in, checks find_package found the installed copy, and runs the example's tests.
example_against_installed() {
  local pkg=$1 name=$2 prefix=$build/$1-install examples=$build/$1-examples
  local prefixes=$prefix${3:+;$3}
  cmake -S "$pkg/examples" -B "$examples" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefixes" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  found_installed "$examples" "$name" "$prefix"
  cmake --build "$examples" -j "$jobs"
  ctest_junit "$examples" "$pkg-examples"
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
if installed == tree:
    # An editable install (tools/setup.sh --editable) serves the working tree's files by design.
    import json
    from importlib import metadata
    direct = metadata.distribution("glassgrad").read_text("direct_url.json") or "{}"
    if json.loads(direct).get("dir_info", {}).get("editable"):
        print(f"testing glassgrad {glassgrad.__version__}: an editable install of {tree}")
        sys.exit(0)
    sys.exit("glassgrad resolves to the working tree, not an installed package")
print(f"testing glassgrad {glassgrad.__version__} installed at {installed}")
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

# The [test] extra of pyproject.toml that $python lacks (name or version), one a line.
missing_test_requirements() {
  "$python" - "$root/pyproject.toml" <<'PY'
import sys
try:
    import tomllib
except ImportError:  # Python before 3.11: the TOML reader pip carries
    from pip._vendor import tomli as tomllib
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
from importlib import metadata
with open(sys.argv[1], "rb") as f:
    wanted = tomllib.load(f)["project"]["optional-dependencies"]["test"]
for text in wanted:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate():
        continue
    try:
        have = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        print(text)
        continue
    if not req.specifier.contains(have, prereleases=True):
        print(text)
PY
}

# Installs the test dependencies into .venv (or any virtual environment $python is in) when
# some are missing; outside a virtual environment it fails, naming them.
ensure_test_requirements() {
  local missing
  mapfile -t missing < <(missing_test_requirements)
  [ "${#missing[@]}" -gt 0 ] || return 0
  if "$python" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
    echo "installing the test dependencies $python lacks (pyproject.toml's [test] extra): ${missing[*]}"
    "$python" -m pip install -q "${missing[@]}"
    mapfile -t missing < <(missing_test_requirements)
    [ "${#missing[@]}" = 0 ] || { echo "still missing after pip install: ${missing[*]}" >&2; return 1; }
  else
    echo "$python is not a virtual environment's, and lacks test dependencies: ${missing[*]}" >&2
    echo "  fix: bash tools/setup.sh (makes .venv, which this script then completes), or" >&2
    echo "       $python -m pip install ${missing[*]}" >&2
    return 1
  fi
}

python_tests() {
  local log=$build/pytest.log rc=0
  ensure_test_requirements
  if [ "$in_tree" = 1 ]; then
    bash tools/dev_build.sh
    export PYTHONPATH=$root/python-bindings
  else
    unset PYTHONPATH
    check_installed_package
  fi
  # The rootdir conftest puts python-bindings/tests on sys.path, never python-bindings/, so
  # `import glassgrad` finds the installed package. -p no:cacheprovider: no .pytest_cache.
  local xml=$build/pytest.junit.xml
  rm -f "$xml"
  # One process per core (pytest-xdist, in the test extra). --dist loadfile hands out whole
  # files, so a file's module fixtures are built once and its tests run in their written order,
  # as in one process; the files themselves share nothing (tmp_path, their own subprocesses).
  local workers=${PYTEST_WORKERS:-$(nproc)} parallel=()
  if [ "$workers" -gt 1 ]; then parallel=(-n "$workers" --dist loadfile); fi
  # shellcheck disable=SC2086
  "$python" -m pytest -p no:cacheprovider -q "${parallel[@]}" --junitxml="$xml" python-bindings/tests ${PYTEST_ARGS:-} 2>&1 |
    tee "$log" || rc=$?
  junit_counts "$xml"
  return "$rc"
}

# ---- sanitizers ------------------------------------------------------------------------------
# One build of everything with AddressSanitizer + UndefinedBehaviorSanitizer (undefined behaviour
# aborts: -fno-sanitize-recover). The C++ tests run with leak checking. The extension runs inside
# an uninstrumented CPython, so the sanitizer runtime is preloaded, with three settings that make
# that work, each the narrowest there is:
#   - libstdc++ is preloaded after libasan: CPython does not link libstdc++, so when libasan starts
#     there is no __cxa_throw for its interceptor to bind, and the extension's first C++ throw
#     aborts in "CHECK failed: asan_interceptors.cpp ... real___cxa_throw" (a known limitation of
#     preloading ASan into a C program).
#   - leaks are not checked (detect_leaks=0): CPython keeps interned objects and its arenas to
#     exit, which LeakSanitizer reports as thousands of leaks that are not ours.
#   - pytest captures sys.stdout/sys.stderr only (--capture=sys), never file descriptor 2, and
#     Python writes unbuffered: a sanitizer report is written to fd 2 and the process exits at once
#     (_exit, no flush), so with pytest's default fd capture the report went into a temporary file
#     nobody read and the run just stopped.
# A run that ends without its JUnit report (killed, or stopped by a finding) fails the stage with
# the last test it started and the report.
san_options=detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1
sanitizer_tests() {
  local dir=$build/sanitize site=$build/sanitize/site rc=0 xmls=()
  if ! "$python" -c 'import pybind11' 2>/dev/null; then "$python" -m pip install -q "pybind11>=2.12"; fi
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGLASSGRAD_SANITIZE="address;undefined" -DGLASSGRAD_CUDA=OFF -DGLASSGRAD_BUILD_PYTHON=ON \
    -DGLASSGRAD_AUTODIFF_BUILD_TESTS=ON -DGLASSGRAD_RUNTIME_BUILD_TESTS=ON \
    -DPython_EXECUTABLE="$(command -v "$python")" -Dpybind11_DIR="$("$python" -m pybind11 --cmakedir)"
  local cxx libasan libstdcxx
  cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
  libasan=$("$cxx" -print-file-name=libasan.so) libstdcxx=$("$cxx" -print-file-name=libstdc++.so.6)
  for lib in "$libasan" "$libstdcxx"; do
    if [ ! -e "$lib" ]; then
      echo "sanitizers: $cxx has no $(basename "$lib") to preload into Python" >&2
      echo "  fix: install the compiler's runtime libraries (Debian/Ubuntu: apt-get install g++), or run without --sanitize" >&2
      return 1
    fi
  done
  cmake --build "$dir" -j "$jobs"
  export ASAN_OPTIONS=$san_options UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  for pkg in autodiff-engine core-runtime; do
    ctest --test-dir "$dir/$pkg" --output-on-failure -j "$jobs" --output-junit "$build/sanitize-$pkg.junit.xml" || rc=1
    xmls+=("$build/sanitize-$pkg.junit.xml")
  done
  # The working tree's Python package with the sanitized extension in place of any other.
  rm -rf "$site" && mkdir -p "$site"
  cp -r python-bindings/glassgrad "$site/glassgrad"
  find "$site/glassgrad" \( -name '_C*.so' -o -name 'libglassgrad_parallel*.so' \) -delete
  cp "$(find "$dir/python-bindings" -maxdepth 1 -name '_C*.so' | head -1)" "$site/glassgrad/"
  cp "$dir"/python-bindings/libglassgrad_parallel*.so "$site/glassgrad/"  # the OpenMP module, beside _C
  local xml=$build/sanitize-python.junit.xml log=$build/sanitize-python.log prc=0
  rm -f "$xml"
  # -v into the log (each test is named before it runs); the console gets all but the PASSED lines.
  (cd "$root" && PYTHONUNBUFFERED=1 ASAN_OPTIONS=$san_options:detect_leaks=0 LD_PRELOAD="$libasan $libstdcxx" \
     PYTHONPATH="$site" "$python" -m pytest -p no:cacheprovider --capture=sys -v --junitxml="$xml" \
     python-bindings/tests/test_op_table.py python-bindings/tests/test_op_properties.py) > "$log" 2>&1 || prc=$?
  grep -v ' PASSED' "$log" || true
  if [ ! -f "$xml" ]; then
    local last
    last=$(grep -o '^python-bindings/tests/[^ ]*' "$log" | tail -1)
    echo "sanitizers: the Python run stopped (exit $prc) without finishing: no JUnit report" >&2
    echo "  the last test it started: ${last:-none (it stopped before the first test)}" >&2
    echo "  its sanitizer report, if any, is above (full log: $log)" >&2
    local p=0 f=0 k=0
    read -r p f k < <("$python" "$root/tools/junit_summary.py" --counts "${xmls[@]}" 2>/dev/null) || true
    echo "${p:-0} $((${f:-0} + 1)) ${k:-0} the Python run stopped" > "$counts"
    return 1
  fi
  [ "$prc" = 0 ] || rc=1
  xmls+=("$xml")
  "$python" "$root/tools/junit_summary.py" --counts "${xmls[@]}" > "$counts"
  return "$rc"
}

# Stages 1-4, in a background job of their own: its own counts file, rows and totals, which it
# writes to $1 ("passed failed skipped failed_stages", then one row a line) when it ends.
cpp_stages() {
  counts=$build/.stage-counts-cpp rows=() total_passed=0 total_failed=0 total_skipped=0 failed_stages=0
  stage "autodiff-engine alone (ctest)" cpp_package autodiff-engine
  stage "core-runtime alone (ctest)" runtime_package
  stage "engine example vs installed engine" example_against_installed autodiff-engine glassgrad_autodiff
  stage "runtime example vs installed runtime" example_against_installed core-runtime glassgrad_runtime \
    "$build/autodiff-engine-install"
  { echo "$total_passed $total_failed $total_skipped $failed_stages"; printf '%s\n' "${rows[@]}"; } > "$1"
}
cpp_log=$build/cpp-stages.log cpp_result=$build/cpp-stages.result
rm -f "$cpp_result"
echo "==== stages 1-4 (C++) run in the background while the Python tests run; their output: $cpp_log"
cpp_stages "$cpp_result" > "$cpp_log" 2>&1 &
cpp_pid=$!
if [ "$in_tree" = 1 ]; then
  stage "python (pytest, in-tree dev build)" python_tests
else
  stage "python (pytest, installed package)" python_tests
fi
python_row=${rows[-1]}
wait "$cpp_pid" || true
cpp_pid=""
cat "$cpp_log"
if [ -f "$cpp_result" ]; then
  { read -r p f s n; mapfile -t cpp_rows; } < "$cpp_result"
  total_passed=$((total_passed + p)); total_failed=$((total_failed + f)); total_skipped=$((total_skipped + s))
  failed_stages=$((failed_stages + n))
  rows=("${cpp_rows[@]}" "$python_row")
else
  failed_stages=$((failed_stages + 1)) total_failed=$((total_failed + 1))
  rows=("$(printf '  %-36s %s' "C++ stages 1-4" "FAILED: stopped without a result (log: $cpp_log)")" "$python_row")
fi
if [ "$sanitize" = 1 ]; then
  stage "sanitizers (ASan+UBSan)" sanitizer_tests
else
  rows+=("$(printf '  %-36s %s' "sanitizers (ASan+UBSan)" "not run: --sanitize adds them (CI runs them)")")
fi
[ "$failed_stages" = 0 ]
