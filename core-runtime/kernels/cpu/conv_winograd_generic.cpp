// Winograd tile kernels (conv_winograd_impl.h) for baseline x86-64 / any CPU: 16-byte vectors.
#define GG_WINO_NS conv_winograd_generic
#define GG_WINO_VEC_BYTES 16
#include "conv_winograd_impl.h"
