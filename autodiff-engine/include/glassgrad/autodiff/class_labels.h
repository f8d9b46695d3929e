// Class-index labels are int64 and never converted (docs/debugging.md, "Accuracy doesn't improve
// beyond 10%": int32 labels truncated silently kept a model's accuracy at 10%). One check and one message for every place
// labels enter: the CrossEntropy shape rules, and (through glassgrad._C.check_class_labels) the
// Python losses' labels that never reach a shape rule: a NumPy array of a dtype glassgrad does
// not hold, and nll_loss's targets (a loss composed in Python).
#pragma once
#include <string>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// Throws DTypeError "<where>: labels must be int64 class indices, got <dtype> <shape>" naming the
// logits, the labels, the likely cause and the fix, unless labels_dtype is "int64".
// labels_tensor: the labels as a tensor; nullptr when they are a NumPy array (labels_dtype is
// then NumPy's name for its dtype, e.g. "int32").
void check_class_labels(const std::string& where, const std::string& labels_dtype, const Shape& labels_shape,
                        const TensorInfo& logits, const TensorInfo* labels_tensor);

}  // namespace glassgrad
