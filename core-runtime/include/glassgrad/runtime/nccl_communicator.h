// The NCCL communicator: gradient all-reduce between GPUs. libnccl.so.2 is opened with dlopen at
// first use, like libcuda (it ships with the nvidia-nccl-cu12 / -cu13 wheels, glassgrad's
// `distributed` extra, or with the CUDA toolkit), so builds need no NCCL headers and CPU
// machines need no NCCL at all.
//
// Streams: each communicator has its own non-blocking stream. all_reduce_async records an event
// on the caller's (compute) stream, makes the communication stream wait for it, queues the NCCL
// call there and records the bucket's done event; wait(bucket) makes the compute stream wait
// for that event. Between the two the compute stream runs the rest of backward. Under CUDA
// graph capture this is the fork/join pattern the capture records as graph edges, so the
// all-reduces become part of the whole-step graph (NCCL 2.9+ supports being captured).
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "glassgrad/runtime/communicator.h"

namespace glassgrad {
namespace nccl {

// {true, "NCCL 2.21.5"} or {false, why libnccl.so.2 could not be loaded, with a fix}.
std::pair<bool, std::string> library_status();
// ncclGetUniqueId's 128 bytes (rank 0 makes it; every rank passes the same to make_communicator).
std::string unique_id();
// ncclCommInitRank on CUDA device `device`; blocks until all `size` ranks have called it.
std::shared_ptr<Communicator> make_communicator(const std::string& unique_id, int rank, int size, int device);

}  // namespace nccl
}  // namespace glassgrad
