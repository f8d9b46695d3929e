// Kernel registry: kernels are registered by (op name, device type, dtype) and implement the
// op's schema (glassgrad/autodiff/op_schema.h). A kernel receives its inputs in schema order
// (an absent optional input is simply missing from the end of `inputs`), and outputs that are
// already allocated, dense and row-major. Inputs are dense too unless the schema sets
// strided_inputs. An in-place output (OpSchema::inplace) is the very tensor of its input.
#pragma once
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

struct KernelContext {
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  const Attrs& attrs;
  const NodeMeta& meta;          // layer and source line, for error messages
  void* workspace = nullptr;     // scratch of workspace_bytes (see KernelEntry::workspace)
  size_t workspace_bytes = 0;
  void* stream = nullptr;        // CUDA: the CUstream to launch on
  // CUDA graph capture: an int64 device word (initially -1) where kernels record data errors
  // (e.g. the first bad label's row) instead of synchronizing to check them on the host.
  void* error_word = nullptr;
};

using KernelFn = void (*)(const KernelContext&);
// Scratch bytes the kernel wants for these shapes (planned by the memory planner).
using WorkspaceSizeFn = size_t (*)(const std::vector<TensorInfo>& inputs,
                                   const std::vector<TensorInfo>& outputs, const Attrs& attrs);

// Runs several steps of one op at once (e.g. every optimizer update of a step in one CUDA
// launch). The executor passes it a run of consecutive plan steps with this kernel entry, on one
// device, none of which reads what an earlier one of the run writes; it must give each step's
// results exactly as fn would (the same arithmetic), in any order.
using BatchKernelFn = void (*)(const std::vector<const KernelContext*>& steps);

struct KernelEntry {
  KernelFn fn = nullptr;
  WorkspaceSizeFn workspace = nullptr;
  BatchKernelFn batch = nullptr;  // optional
};
// A declared op's kernel symbol (glassgrad/autodiff/family.h) names either a kernel function or
// a KernelEntry (a kernel with a workspace or batch function); both become an entry.
inline KernelEntry kernel_entry(KernelFn fn) { return KernelEntry{fn, nullptr, nullptr}; }
inline const KernelEntry& kernel_entry(const KernelEntry& entry) { return entry; }

class KernelRegistry {
 public:
  static KernelRegistry& instance();  // CPU kernels registered on first use
  void add(const std::string& op, DeviceType device, DType dtype, KernelFn fn,
           WorkspaceSizeFn workspace = nullptr, BatchKernelFn batch = nullptr);
  void add(const std::string& op, DeviceType device, DType dtype, const KernelEntry& entry) {
    add(op, device, dtype, entry.fn, entry.workspace, entry.batch);
  }
  const KernelEntry* find(const std::string& op, DeviceType device, DType dtype) const;
  // Throws UnsupportedError naming the op, layer, device and dtype, and what to do instead.
  const KernelEntry& at(const std::string& op, DeviceType device, DType dtype,
                        const NodeMeta& meta = {}) const;
  std::vector<std::tuple<std::string, DeviceType, DType>> list() const;

 private:
  std::vector<std::tuple<std::string, DeviceType, DType, KernelEntry>> entries_;
};

// The dtype a node's kernel is looked up by: OpSchema::dispatch_input's dtype, or output 0's
// for ops without inputs.
DType dispatch_dtype(const OpSchema& s, const std::vector<TensorInfo>& inputs,
                     const std::vector<TensorInfo>& outputs);

// CPU kernel families (kernels/cpu/<family>.cpp), declared from the one list of families
// (glassgrad/autodiff/families/families.def) and registered by KernelRegistry::instance().
#define GG_FAMILY(family) void register_cpu_##family##_kernels(KernelRegistry& r);
#include "glassgrad/autodiff/families/families.def"
// CUDA kernels (kernels/cuda/registry.cpp): registered after the CPU ones, for every (op, dtype)
// that has both a CPU kernel and CUDA code; nothing in a build without CUDA kernels.
void register_cuda_kernels(KernelRegistry& r);

}  // namespace glassgrad
