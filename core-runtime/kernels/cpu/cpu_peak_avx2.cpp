// The FMA loop of cpu_peak.h for AVX2 + FMA (8 floats a vector); called only after cpu_isa() says so.
#define GG_PEAK_NS cpu_peak_avx2
#define GG_PEAK_VEC_BYTES 32
#include "cpu_peak_impl.h"
