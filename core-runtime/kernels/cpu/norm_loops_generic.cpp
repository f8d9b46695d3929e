// The batch- and group-norm loops (norm_loops_impl.h) for baseline x86-64 (SSE2) and any other CPU.
#define GG_NORM_NS norm_loops_generic
#include "norm_loops_impl.h"
