// libglassgrad_parallel.so: the runtime's only OpenMP code, loaded by src/parallel.cpp with
// dlopen after it has bounded GOMP_SPINCOUNT (see parallel_module.h for why it is a separate
// library). Everything else (chunking, exceptions, the serial fallback) stays in the runtime.
#include <omp.h>

#include "parallel_module.h"

namespace {

int max_threads() { return omp_get_max_threads(); }
void set_num_threads(int n) { omp_set_num_threads(n); }
int in_parallel() { return omp_in_parallel(); }

void run(int64_t chunks, void (*body)(void*, int64_t), void* ctx) {
  // schedule(static, 1): chunk c on thread c, so each thread gets one contiguous range.
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) body(ctx, c);
}

const GlassgradParallelApi kApi = {GLASSGRAD_PARALLEL_ABI_VERSION, max_threads, set_num_threads, in_parallel, run};

}  // namespace

extern "C" __attribute__((visibility("default"))) const GlassgradParallelApi* glassgrad_parallel_api() {
  return &kApi;
}
