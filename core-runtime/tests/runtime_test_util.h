// Helpers for the runtime's tests: filling and reading tensors of any dtype element by
// element (through their strides, so views are read as views), and a few private ops with
// CPU kernels ("RtAddOne", "RtAdd", "RtAccumulate", "RtScratch") registered once, so executor
// tests do not depend on which real op families exist yet.
#pragma once
#include <cstring>
#include <mutex>
#include <vector>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace rt_test {

// Element offset (in elements, from the storage start) of a multi-index.
inline int64_t element_offset(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = t.offset();
  for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * t.strides()[i];
  return off;
}

inline double get(const Tensor& t, const std::vector<int64_t>& idx) {
  const char* base = static_cast<const char*>(t.storage()->data());
  const int64_t off = element_offset(t, idx);
  switch (t.dtype()) {
    case DType::Float32: return reinterpret_cast<const float*>(base)[off];
    case DType::Float64: return reinterpret_cast<const double*>(base)[off];
    case DType::Int64: return static_cast<double>(reinterpret_cast<const int64_t*>(base)[off]);
    case DType::UInt8: return reinterpret_cast<const uint8_t*>(base)[off];
    case DType::Bool: return reinterpret_cast<const uint8_t*>(base)[off] ? 1.0 : 0.0;
  }
  return 0;
}

inline void set(const Tensor& t, const std::vector<int64_t>& idx, double v) {
  char* base = static_cast<char*>(t.storage()->data());
  const int64_t off = element_offset(t, idx);
  switch (t.dtype()) {
    case DType::Float32: reinterpret_cast<float*>(base)[off] = static_cast<float>(v); break;
    case DType::Float64: reinterpret_cast<double*>(base)[off] = v; break;
    case DType::Int64: reinterpret_cast<int64_t*>(base)[off] = static_cast<int64_t>(v); break;
    case DType::UInt8: reinterpret_cast<uint8_t*>(base)[off] = static_cast<uint8_t>(v); break;
    case DType::Bool: reinterpret_cast<uint8_t*>(base)[off] = v != 0 ? 1 : 0; break;
  }
}

// Calls fn(index) for every multi-index of `shape`, row-major.
template <typename F>
void for_each_index(const Shape& shape, F&& fn) {
  if (numel(shape) == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    fn(idx);
    int d = static_cast<int>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
    if (d < 0) return;
  }
}

// All elements, row-major, as doubles.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for_each_index(t.shape(), [&](const std::vector<int64_t>& i) { out.push_back(get(t, i)); });
  return out;
}

// A new contiguous tensor holding 0, 1, 2, ... (mod 256 for uint8; 0/1 alternating for bool).
inline Tensor arange(const Shape& shape, DType dt = DType::Float32) {
  Tensor t = Tensor::empty(shape, dt);
  int64_t k = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& i) {
    set(t, i, dt == DType::Bool ? static_cast<double>(k % 2) : static_cast<double>(k % (dt == DType::UInt8 ? 256 : (1 << 30))));
    ++k;
  });
  return t;
}

namespace kernels {
// out = x + 1 (any strides in, dense out)
inline void add_one(const KernelContext& c) {
  for_each_index(c.outputs[0].shape(), [&](const std::vector<int64_t>& i) { set(c.outputs[0], i, get(c.inputs[0], i) + 1); });
}
// out = 2 a + b (not symmetric, so swapped inputs show up)
inline void add(const KernelContext& c) {
  for_each_index(c.outputs[0].shape(), [&](const std::vector<int64_t>& i) {
    set(c.outputs[0], i, 2 * get(c.inputs[0], i) + get(c.inputs[1], i));
  });
}
// target += value, in place (outputs[0] is the target tensor itself)
inline void accumulate(const KernelContext& c) {
  for_each_index(c.outputs[0].shape(), [&](const std::vector<int64_t>& i) {
    set(c.outputs[0], i, get(c.inputs[0], i) + get(c.inputs[1], i));
  });
}
// out = 3 x, staged through the workspace: dense input required.
inline void scratch(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  if (!x.is_contiguous()) throw InternalError("RtScratch got a strided input");
  if (c.workspace_bytes < x.nbytes()) throw InternalError("RtScratch got too little workspace");
  std::memcpy(c.workspace, x.data_ptr(), x.nbytes());
  Tensor ws = Tensor::from_storage(Storage::wrap(c.workspace, c.workspace_bytes, x.device(), [] {}), x.shape(),
                                   contiguous_strides(x.shape()), 0, x.dtype());
  for_each_index(x.shape(), [&](const std::vector<int64_t>& i) { set(c.outputs[0], i, 3 * get(ws, i)); });
}
inline size_t scratch_bytes(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs&) {
  return in[0].nbytes();
}
}  // namespace kernels

inline void register_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry& ops = OpRegistry::instance();
    KernelRegistry& k = KernelRegistry::instance();
    auto same = [](const ShapeContext& c) { return std::vector<TensorInfo>{c.in(0)}; };
    {
      OpSchema s;
      s.name = "RtAddOne";
      s.inputs = {"x"};
      s.outputs = {"y"};
      s.elementwise = true;  // lets the planner write y over a dying x
      s.strided_inputs = true;
      s.infer = same;
      ops.add(std::move(s));
    }
    {
      OpSchema s;
      s.name = "RtAdd";
      s.inputs = {"a", "b"};
      s.outputs = {"y"};
      s.elementwise = true;
      s.strided_inputs = true;
      s.infer = [](const ShapeContext& c) {
        if (c.in(0).shape != c.in(1).shape) c.fail(ErrorMessage("shapes differ"));
        c.expect_same_dtype(0, 1);
        return std::vector<TensorInfo>{c.in(0)};
      };
      ops.add(std::move(s));
    }
    {
      OpSchema s;
      s.name = "RtAccumulate";
      s.inputs = {"target", "value"};
      s.outputs = {"updated"};
      s.inplace = {{0, 0}};
      s.strided_inputs = true;
      s.infer = same;
      ops.add(std::move(s));
    }
    {
      OpSchema s;
      s.name = "RtScratch";
      s.inputs = {"x"};
      s.outputs = {"y"};
      s.infer = same;
      ops.add(std::move(s));
    }
    for (DType dt : {DType::Float32, DType::Float64}) {
      k.add("RtAddOne", DeviceType::CPU, dt, kernels::add_one);
      k.add("RtAdd", DeviceType::CPU, dt, kernels::add);
      k.add("RtAccumulate", DeviceType::CPU, dt, kernels::accumulate);
      k.add("RtScratch", DeviceType::CPU, dt, kernels::scratch, kernels::scratch_bytes);
    }
  });
}

}  // namespace rt_test
}  // namespace glassgrad
