// The OpenMP module in a fresh process (not a GoogleTest file: what it checks happens once per
// process, at the first parallel call). ctest runs it twice (tests/CMakeLists.txt):
//   parallel_module_main unset <openmp|serial>   GOMP_SPINCOUNT not set: the runtime sets 20000
//   parallel_module_main keep <openmp|serial>    GOMP_SPINCOUNT=777 set by the user: kept
// (the second word: whether the build has the OpenMP module)
// and checks that libgomp is not in the process before the first parallel call, that it is after
// (when the build has OpenMP), that parallel_for covers every index once on several threads, and
// that an exception thrown in a chunk reaches the caller.
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "glassgrad/runtime/parallel.h"

namespace {

int failures = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

bool libgomp_loaded() {
  bool found = false;
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* data) {
    if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libgomp") != nullptr) *static_cast<bool*>(data) = true;
    return 0;
  }, &found);
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "unset";
  const bool openmp = argc > 2 && std::string(argv[2]) == "openmp";
  check(!libgomp_loaded(), "libgomp is not loaded before the first parallel call");

  const int64_t n = 1000;
  std::vector<std::atomic<int>> hits(n);
  glassgrad::set_num_threads(2);
  glassgrad::parallel_for(n, 10, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
  });
  bool once = true;
  for (auto& h : hits) once = once && h.load() == 1;
  check(once, "parallel_for visits every index exactly once");

  const char* spin = std::getenv("GOMP_SPINCOUNT");
  const std::string backend = glassgrad::parallel_backend();
  if (openmp) {
    check(libgomp_loaded(), "libgomp is loaded after the first parallel call (" + backend + ")");
    check(backend.rfind("OpenMP (", 0) == 0, "the backend is the OpenMP module: " + backend);
    check(glassgrad::get_num_threads() == 2, "set_num_threads(2) holds");
    const std::string want = mode == "keep" ? "777" : glassgrad::kGompSpinCount;
    check(spin != nullptr && want == spin, "GOMP_SPINCOUNT is " + want + " (got " + (spin ? spin : "unset") + ")");
  } else {
    check(backend.rfind("serial (", 0) == 0, "a build without OpenMP says it runs serially: " + backend);
  }

  bool caught = false;
  try {
    glassgrad::parallel_for(n, 10, [&](int64_t b, int64_t) {
      if (b > 0) throw std::runtime_error("chunk failed");
    });
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "chunk failed";
  }
  check(caught || !openmp, "an exception in a chunk reaches the caller");
  glassgrad::set_num_threads(0);
  return failures == 0 ? 0 : 1;
}
