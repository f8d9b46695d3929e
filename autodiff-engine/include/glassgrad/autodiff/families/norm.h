// The norm family's geometry (ops in families/norm.def): the one reading of the attributes,
// with their defaults, for the shape and gradient rules (autodiff-engine/src/ops/norm.cpp), the
// CPU kernels and the CUDA launchers.
//
//   x (N, C, ...) of 2 to 5 axes is seen as [N, C, I], I the product of the axes after C:
//   channel c's M = N * I values are N runs of I elements at (n*C + c)*I.
//   eps          added to the variance (default 1e-5)
//   momentum     running statistics: (1 - momentum) * running + momentum * batch (default 0.1)
//   count        BatchNormUpdateStats, BatchNorm2DTrainUpdate: the batch's M (required there)
//   counter_add  BatchNorm2DTrainUpdate: num_batches_tracked += counter_add (required there)
//   num_groups   GroupNorm: groups of C / num_groups consecutive channels (required there)
//
// The shape rules validate the attributes; the kernels read geometries of validated attributes.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct NormAttrs {
  double eps = 1e-5;
  double momentum = 0.1;
  int64_t count = 0;
  int64_t counter_add = 0;
  int64_t num_groups = 1;

  static NormAttrs from(const Attrs& attrs);
};

struct NormGeometry {
  int64_t n = 0, c = 0, i = 1;  // x as [N, C, I]
  NormAttrs attrs;

  int64_t m() const { return n * i; }  // values per channel
  int64_t groups() const { return attrs.num_groups; }
  int64_t group_channels() const { return c / attrs.num_groups; }
  int64_t group_size() const { return group_channels() * i; }  // values per (sample, group)
  // From x's shape (2 to 5 axes) and the op's attributes.
  static NormGeometry from(const Shape& x, const Attrs& attrs);
};

// The attributes a norm op's gradient passes on to its backward op (eps and num_groups, when set).
Attrs norm_backward_attrs(const Attrs& attrs);

}  // namespace glassgrad
