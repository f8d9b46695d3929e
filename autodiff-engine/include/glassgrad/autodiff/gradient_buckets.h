// Gradient buckets of data-parallel training (DistributedDataParallel): which parameter
// gradients travel together in one all-reduce, and where in the backward graph each bucket's
// all-reduce goes.
//
// build_backward walks the forward graph from the loss back to the inputs, so the gradient of a
// parameter is final once the walk has passed the parameter's earliest consumer (the node with
// the lowest id that reads it): no later-visited node can add to it. Sorting parameters by that
// node, latest first, gives the exact order in which their gradients become ready (PyTorch's
// DDP has to guess it from the reversed parameter order and rebuilds buckets after the first
// step; a static graph knows it). Consecutive parameters in that order fill a bucket up to
// cap_bytes, and the bucket's Pack + AllReduce nodes are emitted right after the node that
// completes its last member, so communication of bucket k overlaps the backward of the layers
// before it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/autodiff/graph.h"

namespace glassgrad {

struct GradientBucket {
  std::vector<int> members;  // indices into the parameter list, in the order they become ready
  int64_t bytes = 0;
  // The forward node whose gradient rule completes the last member (the bucket's all-reduce is
  // emitted right after it); kNoNode when some member is not read before the loss (its gradient
  // is zero and the bucket goes last).
  NodeId ready_after = kNoNode;
};

// How build_backward reduces parameter gradients across ranks.
struct GradientReduction {
  std::vector<ValueId> params;  // values whose gradients are all-reduced
  // Per param: a gradient accumulated by earlier backward passes (no_sync), added before the
  // all-reduce so that the sum over micro-batches is what gets averaged; kNoValue for none.
  std::vector<ValueId> prior;
  int64_t bucket_cap_bytes = int64_t{25} << 20;
  int64_t group = 0;       // the communicator (AllReduce's `group` attribute)
  int64_t world_size = 1;  // gradients are averaged over this many ranks
  std::string scope = "ddp";  // bucket k's nodes get scope "<scope>.bucket<k>", its buffer that name
};

// The forward node after whose gradient rule each param's gradient is final (its earliest
// consumer among the nodes up to `last`), or kNoNode when none of those nodes reads it.
std::vector<NodeId> gradient_ready_nodes(const Graph& g, const std::vector<ValueId>& params, NodeId last);

// Buckets in ready order: members consecutive in that order, of one dtype and device, at most
// cap_bytes (a single larger gradient gets a bucket of its own) and at most 256 members.
std::vector<GradientBucket> plan_gradient_buckets(const Graph& g, const std::vector<ValueId>& params,
                                                  NodeId last, int64_t cap_bytes);

// Emits bucket `index`'s all-reduce for gradients `grads` (one per member, kNoValue = zero;
// `prior` added first when given): BucketPack -> AllReduce(average, bucket = index). Returns the
// AllReduce's output (one element: the reduced flat bucket, possibly still in flight).
std::vector<ValueId> emit_bucket_all_reduce(Graph& g, const GradientReduction& r, const GradientBucket& b,
                                            int index, const std::vector<ValueId>& grads);
// Emits the bucket's AllReduceWait and the members' views of it (Slice + Reshape, no copy);
// build_backward emits every wait after the whole backward walk, so that the all-reduces run
// while the remaining backward does. Returns each member's reduced gradient.
std::vector<ValueId> emit_bucket_wait(Graph& g, const GradientReduction& r, const GradientBucket& b, int index,
                                      ValueId reduced);

}  // namespace glassgrad
