// CPU parallelism: OpenMP when the build has it, serial otherwise. Kernels split work with
// parallel_for; nested calls (e.g. a GEMM inside a per-image conv loop) run serially.
#pragma once
#include <cstdint>
#include <functional>

namespace glassgrad {

int get_num_threads();
void set_num_threads(int n);  // n <= 0 restores the default (all cores)
bool in_parallel_region();

// Calls fn(begin, end) on chunks of [0, n) of at least `grain` iterations, in parallel when
// n >= 2 * grain and we are not already inside a parallel region.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace glassgrad
