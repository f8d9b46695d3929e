// Op family: norm. (Schemas, shape rules and gradient rules: see op_schema.h.)
#include "op_helpers.h"

namespace glassgrad {

void register_norm_ops(OpRegistry& r) { (void)r; }

}  // namespace glassgrad
