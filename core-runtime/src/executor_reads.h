// The early host reads of one executor run (executor_reads.cpp).
#pragma once
#include <vector>

#include "glassgrad/runtime/executor.h"

namespace glassgrad {

struct Executor::Reads {
  int split = -1;               // the copies go right after this step; -1: none asked for
  std::vector<size_t> outputs;  // the outputs copied
  std::vector<Tensor> blocks;   // their pinned blocks once queued (by position in `outputs`)
  bool error_word = false;      // a captured graph's error word was copied with them
  // The run's `wanted` (Executor::run): a step-by-step run hands an output whose entry is 0 back
  // undefined, as a replay may, without copying its slot's tensor.
  const std::vector<char>* wanted = nullptr;
};

}  // namespace glassgrad
