#include "glassgrad/runtime/parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#include <algorithm>
#include <exception>
#include <mutex>

namespace glassgrad {

namespace {
int g_default_threads = -1;
}

int get_num_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void set_num_threads(int n) {
#ifdef _OPENMP
  if (g_default_threads < 0) g_default_threads = omp_get_max_threads();
  omp_set_num_threads(n > 0 ? n : g_default_threads);
#else
  (void)n;
#endif
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int threads = get_num_threads();
  if (threads <= 1 || n < 2 * grain || in_parallel_region()) {
    fn(0, n);
    return;
  }
#ifdef _OPENMP
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  std::exception_ptr error;
  std::mutex mu;
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    try {
      fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
#else
  fn(0, n);
#endif
}

}  // namespace glassgrad
