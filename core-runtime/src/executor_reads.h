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
};

}  // namespace glassgrad
