// The FMA loop of cpu_peak.h for baseline x86-64 (SSE2: separate multiply and add) and other CPUs.
#define GG_PEAK_NS cpu_peak_generic
#define GG_PEAK_VEC_BYTES 16
#include "cpu_peak_impl.h"
