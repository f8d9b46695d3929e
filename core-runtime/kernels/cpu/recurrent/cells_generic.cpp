// Recurrent cell passes (cells_impl.h) for the baseline ISA (SSE2 on x86-64: 4 floats a vector).
#define GG_RECURRENT_NS recurrent_generic
#include "cells_impl.h"
