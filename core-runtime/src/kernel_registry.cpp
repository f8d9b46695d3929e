#include <algorithm>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry* reg = [] {
    auto* r = new KernelRegistry();
#define GG_FAMILY(family) register_cpu_##family##_kernels(*r);
#include "glassgrad/autodiff/families/families.def"
    register_cuda_kernels(*r);  // last: it mirrors the CPU table
    return r;
  }();
  return *reg;
}

void KernelRegistry::add(const std::string& op, DeviceType device, DType dtype, KernelFn fn,
                         WorkspaceSizeFn workspace, BatchKernelFn batch) {
  if (!OpRegistry::instance().find(op)) {
    throw InternalError("kernel registered for unknown op '" + op + "'");
  }
  for (auto& e : entries_) {
    if (std::get<0>(e) == op && std::get<1>(e) == device && std::get<2>(e) == dtype) {
      std::get<3>(e) = KernelEntry{fn, workspace, batch};  // a later registration (e.g. a tuned one) wins
      return;
    }
  }
  entries_.emplace_back(op, device, dtype, KernelEntry{fn, workspace, batch});
}

const KernelEntry* KernelRegistry::find(const std::string& op, DeviceType device, DType dtype) const {
  for (const auto& e : entries_) {
    if (std::get<0>(e) == op && std::get<1>(e) == device && std::get<2>(e) == dtype) return &std::get<3>(e);
  }
  return nullptr;
}

const KernelEntry& KernelRegistry::at(const std::string& op, DeviceType device, DType dtype,
                                      const NodeMeta& meta) const {
  if (const KernelEntry* e = find(op, device, dtype)) return *e;
  const char* dev = device == DeviceType::CPU ? "cpu" : "cuda";
  std::vector<std::string> have;
  for (const auto& e : entries_) {
    if (std::get<0>(e) == op && std::get<1>(e) == device) have.push_back(dtype_name(std::get<2>(e)));
  }
  const std::string where = node_where(op, meta.scope);
  ErrorMessage m(where + ": no " + std::string(dev) + " kernel for dtype " + dtype_name(dtype));
  if (have.empty()) {
    m.detail("this op has no " + std::string(dev) + " kernel at all");
    m.fix(device == DeviceType::CUDA ? "run this part on the CPU: x.to('cpu')" : "please report this op as missing");
  } else {
    std::string list;
    for (const auto& h : have) list += (list.empty() ? "" : ", ") + h;
    m.detail("kernels exist for: " + list);
    m.fix("convert the input, e.g. x.float() for float32");
  }
  throw UnsupportedError(m.str());
}

std::vector<std::tuple<std::string, DeviceType, DType>> KernelRegistry::list() const {
  std::vector<std::tuple<std::string, DeviceType, DType>> out;
  for (const auto& e : entries_) out.emplace_back(std::get<0>(e), std::get<1>(e), std::get<2>(e));
  return out;
}

DType dispatch_dtype(const OpSchema& s, const std::vector<TensorInfo>& inputs,
                     const std::vector<TensorInfo>& outputs) {
  if (s.dispatch_input >= 0 && static_cast<size_t>(s.dispatch_input) < inputs.size()) {
    return inputs[static_cast<size_t>(s.dispatch_input)].dtype;
  }
  if (!outputs.empty()) return outputs[0].dtype;
  if (!inputs.empty()) return inputs[0].dtype;
  return DType::Float32;
}

}  // namespace glassgrad
