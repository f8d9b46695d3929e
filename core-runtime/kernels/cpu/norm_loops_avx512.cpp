// The batch- and group-norm loops (norm_loops_impl.h) for AVX-512. Only called after cpu_isa()
// reports AVX-512 (this file is compiled with -mavx512f ... and -ffp-contract=off).
#define GG_NORM_NS norm_loops_avx512
#include "norm_loops_impl.h"
