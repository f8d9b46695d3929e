// Batch norm checks that a path composed in Python needs too. The BatchNorm shape rules
// (src/ops/norm.cpp) make them; glassgrad._C exposes them for the paths no BatchNorm rule sees,
// so each wording exists once (as class_labels.h does for labels).
#pragma once
#include <cstdint>
#include <string>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// A BatchNorm layer's input has the layer's channel count on axis 1. Made by the
// BatchNorm2DTrain and BatchNorm2DInference rules when a BatchNorm layer recorded the node
// (NodeMeta::layer), and by SyncBatchNorm's training path (composed from primitives).
// Throws ShapeError "<layer>: the input has <C> channels (axis 1) but the layer normalizes
// <num_features>" with the input and the fix "build the layer as <Class>(<C>)" when
// x.shape[1] != num_features (an x of fewer than 2 axes is left to the rank checks). layer: as
// messages name it ("BatchNorm1D 'head.1'"); its class is the text before the first space.
void check_batchnorm_channels(const std::string& layer, const TensorInfo& x, int64_t num_features);

// Running statistics updated with a batch's: running_mean and running_var must have the shape of
// the batch mean (one value per channel of the input), and the batch var too. Made by the
// BatchNormUpdateStats rule and by the update with a tensor momentum (a cumulative average,
// composed from elementwise ops). Throws ShapeError "<where>: running_mean has shape [4] but the
// batch mean has shape [3]" naming both and the fix.
void check_batchnorm_running_stats(const std::string& where, const TensorInfo& running_mean,
                                   const TensorInfo& running_var, const TensorInfo& mean, const TensorInfo& var);

}  // namespace glassgrad
