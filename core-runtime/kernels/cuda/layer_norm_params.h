// The parameter block of the layer-norm kernels (kernels/cuda/layer_norm.cu), filled by their
// launcher (layer_norm.cpp, the plan in layer_norm_plan.h); laid out like
// params.h's blocks (LP64, passed by value).
#pragma once
#include "params.h"

// x seen as a dense [rows, cols] (glassgrad/autodiff/layer_norm_geometry.h).
struct GGLayerNorm {
  int64_t rows, cols;
  double eps;
  int32_t has_weight, has_bias;   // the weight / bias pointer is valid
  int32_t stat_grads;             // backward: grad_mean and grad_rstd are given
  int64_t part_rows;              // parameter gradients: the rows one partition sums
  int32_t parts;                  // partitions; 1 writes dweight / dbias directly
};
