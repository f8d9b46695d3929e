// The C interface between the runtime (src/parallel.cpp) and its OpenMP module
// (openmp/parallel_openmp.cpp, built as libglassgrad_parallel.so). The runtime does not link
// libgomp: it sets GOMP_SPINCOUNT's bound and then dlopens the module, so libgomp's constructor,
// which reads its environment once, sees the bound (docs/architecture.md, "Design decisions, and
// why": "OpenMP is a module the runtime loads itself").
// Plain C types only: the module and the runtime may come from different builds of the same
// version, and no exception or C++ object crosses the boundary.
#pragma once
#include <cstdint>

extern "C" {

// Bump when a field changes; the runtime refuses a module of another version.
#define GLASSGRAD_PARALLEL_ABI_VERSION 1

struct GlassgradParallelApi {
  int abi_version;
  int (*max_threads)();               // omp_get_max_threads()
  void (*set_num_threads)(int n);     // omp_set_num_threads(n), n >= 1
  int (*in_parallel)();               // omp_in_parallel()
  // Calls body(ctx, c) once for every c in [0, chunks), spread over `chunks` threads; body must
  // not throw (the runtime's wrapper catches and stores the first exception).
  void (*run)(int64_t chunks, void (*body)(void* ctx, int64_t chunk), void* ctx);
};

// The module's one exported symbol.
typedef const GlassgradParallelApi* (*GlassgradParallelEntry)();
#define GLASSGRAD_PARALLEL_ENTRY "glassgrad_parallel_api"
}
