// Umbrella header for the glassgrad autodiff engine.
#pragma once
#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/compile.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/autodiff/gradient_buckets.h"
#include "glassgrad/autodiff/gradients.h"
#include "glassgrad/autodiff/graph.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/autodiff/passes.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/autodiff/types.h"
