// Op family: pool. (Schemas, shape rules and gradient rules: see op_schema.h.)
#include "op_helpers.h"

namespace glassgrad {

void register_pool_ops(OpRegistry& r) { (void)r; }

}  // namespace glassgrad
