// Communicators: how the AllReduce and BucketPack kernels of data-parallel training reach the
// other ranks. An AllReduce node names its communicator by the integer `group` attribute, a
// handle into the registry below, so plans stay plain data (no pointers in attributes) and a
// cached plan or captured CUDA graph keeps working as long as the group stays registered.
//
// Implementations: NCCL for CUDA tensors (nccl_communicator.h: libnccl.so.2 loaded at run
// time, its own stream, capturable in a CUDA graph) and MPI for CPU tensors (implemented in
// Python over mpi4py by glassgrad.distributed, through the binding's trampoline). glassgrad has
// no transport of its own.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

enum class ReduceOp { Sum, Average };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "nccl", "mpi", ...
  // In place: data[0:count) becomes the sum (or average) over all ranks of their data[0:count).
  // On CUDA, `stream` is the CUstream the kernel runs on: the reduction is ordered after the
  // work already queued there, and work queued on it afterwards sees the result. On the CPU it
  // is null and the call returns when the result is in place. Throws CommunicationError (naming
  // the rank and the backend) on failure or timeout; never aborts.
  virtual void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, void* stream) = 0;
  // In place: every rank's data[0:count) becomes rank `root`'s. Same ordering rules.
  virtual void broadcast(void* data, int64_t count, DType dtype, int root, void* stream) = 0;
  // A gradient bucket's all-reduce (AllReduce with bucket >= 0): may still be in flight when
  // this returns; wait(bucket, stream) orders `stream`'s later work after it. The defaults are
  // the synchronous all_reduce and nothing to wait for (the CPU backend).
  virtual void all_reduce_async(void* data, int64_t count, DType dtype, ReduceOp op, void* stream, int64_t bucket) {
    (void)bucket;
    all_reduce(data, count, dtype, op, stream);
  }
  virtual void wait(int64_t bucket, void* stream) {
    (void)bucket;
    (void)stream;
  }
};

// The registry behind AllReduce's `group` attribute. register_communicator returns the group
// id; unregistering makes later AllReduce kernels on that group throw a clear error.
int64_t register_communicator(std::shared_ptr<Communicator> comm);
void unregister_communicator(int64_t group);
// Throws CommunicationError naming the group (and how to create one) when none is registered.
std::shared_ptr<Communicator> communicator(int64_t group, const std::string& where = "AllReduce");

}  // namespace glassgrad
