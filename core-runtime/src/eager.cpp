#include "glassgrad/runtime/eager.h"

#include "glassgrad/autodiff/compute_dtypes.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/graph.h"
#include "glassgrad/runtime/host_copy.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

namespace {

std::vector<Tensor> run_node(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                             const NodeMeta& meta);

// An op on storage-type inputs (compute_dtypes.h): inputs cast to their compute dtype, the op, its
// results cast back, as the graph records it.
std::vector<Tensor> run_computed(const OpSchema& s, const std::vector<Tensor>& inputs,
                                 const std::vector<TensorInfo>& infos, const ComputeDTypes& c, const NodeMeta& meta) {
  return computed_node(
      s, inputs, infos, c, meta,
      [&](const std::string& op, const std::vector<Tensor>& in, const Attrs& a) { return run_node(op, in, a, meta); },
      [](const Tensor& t) { return t.info(); });
}

}  // namespace

std::vector<Tensor> run_op(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                           const NodeMeta& meta) {
  const OpSchema& s = OpRegistry::instance().at(op);
  std::vector<TensorInfo> infos;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) throw ValueError(op + ": input " + std::to_string(i) + " is undefined");
    infos.push_back(inputs[i].info());
  }
  if (const auto c = compute_dtypes(s, infos, attrs, meta)) return run_computed(s, inputs, infos, *c, meta);
  return run_node(op, inputs, attrs, meta);
}

namespace {

std::vector<Tensor> run_node(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                             const NodeMeta& meta) {
  // Validation and shape inference go through the same path as graph recording.
  Graph g;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) throw ValueError(op + ": input " + std::to_string(i) + " is undefined");
    ids.push_back(g.add_leaf("", inputs[i].info(), ValueKind::Input));
  }
  const std::vector<ValueId> outs = g.add_node(op, ids, attrs, meta);
  const OpSchema& s = *g.node(0).schema;
  std::vector<TensorInfo> in_infos, out_infos;
  for (const auto& t : inputs) in_infos.push_back(t.info());
  for (ValueId o : outs) out_infos.push_back(g.value(o).info);

  if (s.view_of >= 0) {
    const Tensor& base = inputs[static_cast<size_t>(s.view_of)];
    Layout l;
    if (s.view(attrs, base.layout(), out_infos[0].shape, l)) return {base.as_strided(l.shape, l.strides, l.offset)};
  }

  std::vector<Tensor> in;
  in.reserve(inputs.size());
  for (const auto& t : inputs) in.push_back(s.strided_inputs ? t : t.contiguous());
  std::vector<Tensor> out(outs.size());
  for (const auto& io : s.inplace) {
    const Tensor& target = inputs[static_cast<size_t>(io.second)];
    if (!target.is_contiguous()) {
      throw ValueError(ErrorMessage(op + ": the tensor updated in place must be contiguous, got strides " +
                                    shape_str(target.strides()))
                           .fix("pass x.contiguous() and keep using that tensor")
                           .str());
    }
    in[static_cast<size_t>(io.second)] = target;
    out[static_cast<size_t>(io.first)] = target;
    drop_host_copy(target);  // host_copy.h
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].defined()) out[i] = Tensor::empty(out_infos[i].shape, out_infos[i].dtype, out_infos[i].device);
  }
  const Device dev = out_infos.empty() ? in_infos.at(0).device : out_infos[0].device;
  const KernelEntry& k = KernelRegistry::instance().at(op, dev.type, dispatch_dtype(s, in_infos, out_infos), meta);
  Tensor ws;
  size_t ws_bytes = k.workspace ? k.workspace(in_infos, out_infos, attrs) : 0;
  if (ws_bytes > 0) ws = Tensor::empty({static_cast<int64_t>(ws_bytes)}, DType::UInt8, dev, "workspace of " + op);
  KernelContext ctx{in, out, attrs, meta, ws_bytes ? ws.data_ptr() : nullptr, ws_bytes, nullptr};
  k.fn(ctx);
  return out;
}

}  // namespace

}  // namespace glassgrad
