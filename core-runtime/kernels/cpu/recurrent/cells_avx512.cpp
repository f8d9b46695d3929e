// Recurrent cell passes (cells_impl.h) for AVX-512: 16 floats a vector. Only called after
// cpu_isa() reports AVX-512 (this file is compiled with -mavx512f ...).
#define GG_RECURRENT_NS recurrent_avx512
#include "cells_impl.h"
