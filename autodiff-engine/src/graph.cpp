#include "glassgrad/autodiff/graph.h"

#include <sstream>

#include "glassgrad/autodiff/compute_dtypes.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

const char* value_kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::Input: return "input";
    case ValueKind::Parameter: return "parameter";
    case ValueKind::State: return "state";
    case ValueKind::Constant: return "constant";
    case ValueKind::Intermediate: return "intermediate";
  }
  return "?";
}

ValueId Graph::add_leaf(const std::string& name, const TensorInfo& info, ValueKind kind,
                        bool requires_grad) {
  if (kind == ValueKind::Intermediate) throw InternalError("add_leaf: a leaf cannot be Intermediate");
  check_shape(info.shape, info.dtype, "leaf '" + name + "'");
  Value v;
  v.id = static_cast<ValueId>(values_.size());
  v.info = info;
  v.kind = kind;
  v.name = name;
  v.requires_grad = requires_grad;
  values_.push_back(std::move(v));
  return values_.back().id;
}

namespace {
// The layer_parameter check (op_schema.h): the layer's input against its parameter, device then dtype.
void check_layer_input(const OpSchema& s, const ShapeContext& ctx) {
  if (!s.layer_parameter || ctx.meta().layer.empty() || ctx.meta().role != NodeRole::Forward || ctx.num_inputs() < 2) return;
  const TensorInfo& x = ctx.in(0);
  const TensorInfo& p = ctx.in(1);
  if (x.device == p.device && x.dtype == p.dtype) return;  // every node a layer records: no strings built
  const std::string xd = x.device.str(), pd = p.device.str(), xt = dtype_name(x.dtype), pt = dtype_name(p.dtype);
  const std::string shown_x = "input:  " + x.str(), shown_p = std::string(s.layer_parameter) + ": " + p.str();
  if (x.device != p.device) {
    throw DeviceError(ctx.layer_where() + ": " +
                      ErrorMessage("the input is on " + xd + " but the layer's parameters are on " + pd)
                          .detail(shown_x)
                          .detail(shown_p)
                          .cause("the model and the data were put on different devices")
                          .fix("x = x.to('" + pd + "')   (or move the model: model.to('" + xd + "'))")
                          .str());
  }
  ErrorMessage m("the input is " + xt + " but the layer's parameters are " + pt);
  m.detail(shown_x).detail(shown_p);
  if (is_floating(x.dtype)) {
    m.cause("NumPy arrays are float64 unless converted (np.random.rand, np.load of float data); "
            "glassgrad never converts dtypes silently")
        .fix(std::string("x = x.") + (p.dtype == DType::Float32 ? "float" : "double") +
             "()   (or convert the model: model." + (x.dtype == DType::Float64 ? "double" : "float") + "())");
  } else {
    m.cause(xt + " data must become floats before a layer").fix("x = x.float() / 255   (uint8 images), or x.float()");
  }
  throw DTypeError(ctx.layer_where() + ": " + m.str());
}

[[noreturn]] void device_mismatch(const OpSchema& s, const NodeMeta& meta,
                                  const std::vector<TensorInfo>& infos) {
  ErrorMessage m(node_where(s.name, meta.scope) + ": inputs are on different devices");
  Device first = infos[0].device, other = first;
  for (size_t i = 0; i < infos.size(); ++i) {
    const std::string nm = i < s.inputs.size() ? s.inputs[i] : "input" + std::to_string(i);
    m.detail(nm + ": " + shape_str(infos[i].shape) + " " + dtype_name(infos[i].dtype) +
             " on " + infos[i].device.str());
    if (infos[i].device != first) other = infos[i].device;
  }
  m.cause("one tensor was created or moved to " + other.str() + " and another to " + first.str());
  m.fix("move everything to one device, e.g. model.to('" + first.str() + "') and x = x.to('" +
        first.str() + "')");
  throw DeviceError(m.str());
}
// Integer attributes (sizes, strides, paddings, axes) are at most kMaxSize in magnitude, so shape
// rules may add a few of them without overflowing (types.h).
void check_int_attrs(const ShapeContext& ctx) {
  auto check = [&](const std::string& key, int64_t v) {
    if (v < -kMaxSize || v > kMaxSize) {
      ctx.fail(ErrorMessage("attribute '" + key + "' = " + std::to_string(v) + " is out of range")
                   .detail("sizes, strides, paddings and axes are at most 2^60 in magnitude")
                   .fix("check the value passed for '" + key + "'"));
    }
  };
  for (const auto& kv : ctx.attrs().items()) {
    if (const auto* i = std::get_if<int64_t>(&kv.second)) check(kv.first, *i);
    if (const auto* l = std::get_if<std::vector<int64_t>>(&kv.second)) {
      for (int64_t v : *l) check(kv.first, v);
    }
  }
}
}  // namespace

std::vector<TensorInfo> infer_node(const OpSchema& s, const std::vector<TensorInfo>& infos, const Attrs& attrs,
                                   const NodeMeta& meta) {
  const int n = static_cast<int>(infos.size());
  if (n < s.required_inputs() || n > s.max_inputs()) {
    const std::string where = node_where(s.name, meta.scope);
    std::string names;
    for (size_t i = 0; i < s.inputs.size(); ++i) names += (i ? ", " : "") + s.inputs[i];
    throw ValueError(ErrorMessage(where + ": got " + std::to_string(n) + " inputs, expected " +
                                  (s.required_inputs() == s.max_inputs()
                                       ? std::to_string(s.max_inputs())
                                       : std::to_string(s.required_inputs()) + " to " +
                                             std::to_string(s.max_inputs())))
                         .detail("inputs: " + names)
                         .str());
  }
  ShapeContext ctx(s.name, infos, attrs, meta);
  check_layer_input(s, ctx);
  if (s.same_device) {
    for (const auto& t : infos) {
      if (t.device != infos[0].device) device_mismatch(s, meta, infos);
    }
  }
  check_int_attrs(ctx);
  std::vector<TensorInfo> outs = s.infer(ctx);
  if (static_cast<int>(outs.size()) != s.num_outputs()) {
    throw InternalError(s.name + ": shape rule returned " + std::to_string(outs.size()) +
                        " outputs, schema declares " + std::to_string(s.num_outputs()));
  }
  // The one size check of every recorded value (types.h: kMaxSize), views included: an Expand
  // to [2^31, 2^31] is refused here rather than wrapping to a small count in a kernel. It runs for
  // every output of every recorded op, so the message's context (node and output) is spelled out
  // only once the check has failed: the second call throws the same error, worded for the node.
  for (size_t i = 0; i < outs.size(); ++i) {
    try {
      check_shape(outs[i].shape, outs[i].dtype, std::string());
    } catch (const ShapeError&) {
      check_shape(outs[i].shape, outs[i].dtype, ctx.where() + ": output '" + s.outputs[i] + "'");
      throw;
    }
  }
  return outs;
}

std::vector<ValueId> Graph::add_node(const std::string& op, const std::vector<ValueId>& inputs,
                                     const Attrs& attrs, const NodeMeta& meta) {
  const OpSchema& s = OpRegistry::instance().at(op);
  std::vector<TensorInfo> infos;
  infos.reserve(inputs.size());
  for (ValueId v : inputs) {
    if (v < 0 || v >= num_values()) {
      throw InternalError(op + ": input value %" + std::to_string(v) + " is not in the graph");
    }
    infos.push_back(value(v).info);
  }
  if (const auto c = compute_dtypes(s, infos, attrs, meta)) {  // storage types: cast, compute, cast back
    return computed_node(
        s, inputs, infos, *c, meta,
        [&](const std::string& o, const std::vector<ValueId>& in, const Attrs& a) { return add_node(o, in, a, meta); },
        [&](ValueId v) { return value(v).info; });
  }
  std::vector<TensorInfo> outs = infer_node(s, infos, attrs, meta);
  Node node;
  node.id = static_cast<NodeId>(nodes_.size());
  node.schema = &s;
  node.inputs = inputs;
  node.attrs = attrs;
  node.meta = meta;
  for (size_t i = 0; i < outs.size(); ++i) {
    Value v;
    v.id = static_cast<ValueId>(values_.size());
    v.info = std::move(outs[i]);
    v.kind = ValueKind::Intermediate;
    v.producer = node.id;
    v.output_index = static_cast<int>(i);
    for (ValueId in : inputs) v.requires_grad = v.requires_grad || value(in).requires_grad;
    if (!s.gradient) v.requires_grad = false;
    node.outputs.push_back(v.id);
    values_.push_back(std::move(v));
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().outputs;
}

ValueId Graph::add(const std::string& op, const std::vector<ValueId>& inputs, const Attrs& attrs,
                   const NodeMeta& meta) {
  auto outs = add_node(op, inputs, attrs, meta);
  if (outs.size() != 1) throw InternalError(op + " has " + std::to_string(outs.size()) + " outputs; use add_node");
  return outs[0];
}

void Graph::mark_output(ValueId v) {
  if (v < 0 || v >= num_values()) throw InternalError("mark_output: no value %" + std::to_string(v));
  outputs_.push_back(v);
}

std::vector<ValueId> Graph::leaves() const {
  std::vector<ValueId> l;
  for (const auto& v : values_) if (v.producer == kNoNode) l.push_back(v.id);
  return l;
}

std::vector<std::vector<NodeId>> Graph::consumers() const {
  std::vector<std::vector<NodeId>> c(values_.size());
  for (const auto& n : nodes_) {
    for (ValueId v : n.inputs) {
      auto& list = c[static_cast<size_t>(v)];
      if (list.empty() || list.back() != n.id) list.push_back(n.id);
    }
  }
  return c;
}

uint64_t Graph::signature() const {
  uint64_t h = 0xC0FFEE;
  for (const auto& v : values_) {
    if (v.producer != kNoNode) continue;
    h = hash_combine(h, static_cast<uint64_t>(v.id));
    h = hash_combine(h, static_cast<uint64_t>(v.kind));
    h = hash_combine(h, v.requires_grad ? 1 : 0);
  }
  for (const auto& v : values_) {
    h = hash_combine(h, static_cast<uint64_t>(v.info.dtype));
    h = hash_combine(h, static_cast<uint64_t>(v.info.device.type) * 64 + static_cast<uint64_t>(v.info.device.index));
    h = hash_combine(h, v.info.shape.size());
    for (int64_t d : v.info.shape) h = hash_combine(h, static_cast<uint64_t>(d));
  }
  for (const auto& n : nodes_) {
    h = hash_combine(h, hash_string(n.schema->name));
    h = hash_combine(h, n.attrs.hash());
    for (ValueId v : n.inputs) h = hash_combine(h, static_cast<uint64_t>(v));
    h = hash_combine(h, 0xFFFF);
  }
  for (ValueId v : outputs_) h = hash_combine(h, static_cast<uint64_t>(v));
  return h;
}

std::string Graph::value_str(ValueId v) const {
  const Value& val = value(v);
  return "%" + std::to_string(v) + (val.name.empty() ? "" : ":" + val.name);
}

std::string Graph::str() const {
  std::ostringstream os;
  for (const auto& v : values_) {
    if (v.producer != kNoNode) continue;
    os << value_str(v.id) << " = " << value_kind_name(v.kind) << " " << v.info.str()
       << (v.requires_grad ? " requires_grad" : "") << "\n";
  }
  for (const auto& n : nodes_) {
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : "") << value_str(n.outputs[i]);
    os << " = " << n.op() << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << value_str(n.inputs[i]);
    os << ")";
    if (!n.attrs.empty()) os << " " << n.attrs.str();
    os << " ->";
    for (ValueId o : n.outputs) os << " " << shape_str(value(o).info.shape) << " " << dtype_name(value(o).info.dtype);
    if (!n.meta.scope.empty() || n.meta.role != NodeRole::Forward) {
      os << "  #";
      if (!n.meta.scope.empty()) os << " " << n.meta.scope;
      if (n.meta.role != NodeRole::Forward) os << " (" << role_name(n.meta.role) << ")";
    }
    os << "\n";
  }
  if (!outputs_.empty()) {
    os << "outputs:";
    for (ValueId v : outputs_) os << " " << value_str(v);
    os << "\n";
  }
  return os.str();
}

}  // namespace glassgrad

namespace glassgrad {
void Graph::replace_input(NodeId n, int index, ValueId v) {
  Node& node = nodes_.at(static_cast<size_t>(n));
  ValueId& slot = node.inputs.at(static_cast<size_t>(index));
  if (!(value(slot).info.shape == value(v).info.shape) || value(slot).info.dtype != value(v).info.dtype) {
    throw InternalError("replace_input: " + value_str(v) + " does not match " + value_str(slot));
  }
  slot = v;
}
}  // namespace glassgrad
