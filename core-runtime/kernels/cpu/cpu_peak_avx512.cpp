// The FMA loop of cpu_peak.h for AVX-512 (16 floats a vector); called only after cpu_isa() says so.
#define GG_PEAK_NS cpu_peak_avx512
#define GG_PEAK_VEC_BYTES 64
#include "cpu_peak_impl.h"
