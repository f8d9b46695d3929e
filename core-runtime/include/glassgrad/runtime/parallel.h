// CPU parallelism: OpenMP when the build has it, serial otherwise. Kernels split work with
// parallel_for; nested calls (e.g. a GEMM inside a per-image conv loop) run serially.
// OpenMP lives in a module the runtime loads at first use (src/parallel.cpp says why): the first
// call of any function here sets GOMP_SPINCOUNT to kGompSpinCount unless it is already set.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace glassgrad {

// libgomp's spin before a waiting worker sleeps, set by the runtime unless the user set one.
inline constexpr const char* kGompSpinCount = "20000";

int get_num_threads();
void set_num_threads(int n);  // n <= 0 restores the default (all cores)
bool in_parallel_region();

// Calls fn(begin, end) on chunks of [0, n) of at least `grain` iterations, in parallel when
// n >= 2 * grain and we are not already inside a parallel region.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// What runs parallel_for, for reports: "OpenMP (<module path>), GOMP_SPINCOUNT=<n>", or
// "serial (<why>)".
std::string parallel_backend();

}  // namespace glassgrad
