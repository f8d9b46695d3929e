// Recurrent cell passes (cells_impl.h) for AVX2 + FMA: 8 floats a vector. Only called after
// cpu_isa() reports AVX2 (this file is compiled with -mavx2 -mfma).
#define GG_RECURRENT_NS recurrent_avx2
#include "cells_impl.h"
