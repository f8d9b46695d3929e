// The batch- and group-norm loops (norm_loops_impl.h) for AVX2. Only called after cpu_isa()
// reports AVX2 (this file is compiled with -mavx2 -mfma and -ffp-contract=off).
#define GG_NORM_NS norm_loops_avx2
#include "norm_loops_impl.h"
