// Anomaly mode: after each step, scan its float outputs; the first step that produced NaN or
// Inf stops the run with a message naming the op, the layer, forward or backward, the line
// that recorded it, and the statistics of its inputs, plus the likely cause for that op.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "glassgrad/runtime/debug.h"

namespace glassgrad {
namespace debug {

namespace {

bool has_nonfinite(const Tensor& t) {
  if (!is_floating(t.dtype()) || t.numel() == 0) return false;
  const Tensor c = t.device().is_cpu() ? t.contiguous() : t.to(Device::cpu()).contiguous();
  const int64_t n = c.numel();
  if (c.dtype() == DType::Float32) {
    const float* p = c.data<float>();
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i])) return true;
  } else {
    const double* p = c.data<double>();
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i])) return true;
  }
  return false;
}

std::string counts(const TensorStats& s) {
  std::string r;
  if (s.nan > 0) r += std::to_string(s.nan) + " NaN";
  if (s.inf() > 0) r += (r.empty() ? "" : " and ") + std::to_string(s.inf()) + " Inf";
  return r;
}

std::string four_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string where(const PlanStep& st) {
  return node_where(st.op(), st.meta.scope);
}

// The ops of a fused step (its "fused" attribute: "Mul+Log", "BatchNorm2DTrain+ReLU"), or the
// step's own op.
std::vector<std::string> ops_of(const PlanStep& st) {
  if (!st.attrs.has("fused")) return {st.op()};
  std::vector<std::string> ops;
  const std::string& all = st.attrs.s("fused");
  size_t start = 0;
  while (start <= all.size()) {
    const size_t plus = all.find('+', start);
    ops.push_back(all.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return ops;
}

// The likely cause and fix for an op whose finite inputs gave NaN/Inf. For a fused step, the
// first of its ops that can make NaN/Inf from finite numbers.
void explain_op(const PlanStep& st, double largest_input, ErrorMessage& m) {
  std::string op = st.op();
  for (const std::string& o : ops_of(st)) {
    if (o == "Log" || o == "Sqrt" || o == "Div" || o == "RDivScalar" || o == "Exp" || o == "PowScalar") {
      op = o;
      break;
    }
  }
  const bool backward = st.meta.role == NodeRole::Backward;
  if (op == "Log") {
    m.cause("Log(0) is -Inf and the log of a negative number is NaN");
    m.fix("keep the argument positive, e.g. glassgrad.log(x.clamp(min=1e-12)); for probabilities use "
          "glassgrad.log_softmax(logits) (or cross_entropy) instead of log(softmax(logits))");
  } else if (op == "Sqrt") {
    m.cause("the square root of a negative number is NaN");
    m.fix("clamp the argument first: x.clamp(min=0).sqrt(), or add a small epsilon: (x + 1e-12).sqrt()");
  } else if (op == "Div" || op == "RDivScalar") {
    m.cause(backward ? "a division by zero in a gradient (e.g. the gradient of sqrt or log at 0)"
                     : "a division by zero (x / 0 is Inf, 0 / 0 is NaN)");
    m.fix("add a small epsilon to the denominator: a / (b + 1e-8), or clamp it away from zero");
  } else if (op == "Exp") {
    m.cause("exp overflows above about 88.7 in float32 (709.8 in float64); the largest input is " +
            four_digits(largest_input));
    m.fix("subtract the maximum first (softmax does), or work with logits: glassgrad.log_softmax / cross_entropy");
  } else if (op == "PowScalar") {
    m.cause("a negative base with a fractional exponent is NaN, and 0 to a negative power is Inf");
    m.fix("clamp the base: x.clamp(min=1e-12) ** p");
  } else {
    m.cause(std::string("the inputs are finite but the result overflowed") +
            (largest_input > 1e6 ? " (the largest input magnitude is " + four_digits(largest_input) + ")" : "") +
            (backward ? ": the gradients are exploding" : ": the activations are exploding"));
    m.fix("lower the learning rate, clip the gradients before optimizer.step() with "
          "glassgrad.clip_grad_norm_(model.parameters(), max_norm=1.0), and check the weight initialization");
  }
}

}  // namespace

std::string describe_step(const Plan& plan, size_t index) {
  const PlanStep& st = plan.steps.at(index);
  std::string s = where(st) + " (" + std::string(role_name(st.meta.role));
  if (!st.meta.source.empty()) s += ", recorded at " + st.meta.source;
  return s + ")";
}

void check_step_outputs(size_t index, const Plan& plan, const PlanStep& st, const std::vector<Tensor>& inputs,
                        const std::vector<Tensor>& outputs) {
  size_t bad = outputs.size();
  for (size_t k = 0; k < outputs.size() && bad == outputs.size(); ++k) {
    if (has_nonfinite(outputs[k])) bad = k;
  }
  if (bad == outputs.size()) return;

  const std::vector<std::string> labels = buffer_labels(plan);
  const TensorStats out = stats_of(outputs[bad]);
  const std::string out_name = bad < st.schema->outputs.size() ? st.schema->outputs[bad] : std::to_string(bad);
  ErrorMessage m("NaN/Inf detected: " + where(st) + " (" + role_name(st.meta.role) + ") produced " + counts(out) +
                 " in its output '" + out_name + "' " + out.info.str());
  m.detail("recorded at: " + (st.meta.source.empty() ? std::string("(not recorded from Python)") : st.meta.source));
  if (st.attrs.has("fused")) {
    m.detail("fused ops: " + st.attrs.s("fused") + " (glassgrad.set_fusion(False) runs them one by one, so anomaly "
             "mode can stop at the exact op)");
  }
  if (st.meta.role == NodeRole::Backward) {
    m.detail("this is a backward node: it computes gradients for the forward " +
             (st.meta.scope.empty() ? std::string("op") : "layer '" + st.meta.scope + "'") +
             " recorded at that line");
  }
  m.detail("plan step: #" + std::to_string(index) + " of " + std::to_string(plan.steps.size()));
  m.detail("output '" + out_name + "': " + out.str());

  double largest = 0;
  int nonfinite_input = -1;
  for (size_t j = 0; j < inputs.size(); ++j) {
    const TensorStats s = stats_of(inputs[j]);
    const int slot = st.inputs.at(j);
    const BufferSlot& b = plan.slots.at(static_cast<size_t>(slot));
    const std::string in_name = j < st.schema->inputs.size() ? st.schema->inputs[j] : std::to_string(j);
    std::string from = labels.at(static_cast<size_t>(slot));
    if (b.kind == SlotKind::Input) from = "plan input '" + from + "'";
    m.detail("input '" + in_name + "' " + s.info.str() + " <- " + from + ": " + s.str());
    if (s.finite > 0) largest = std::max({largest, std::fabs(s.min), std::fabs(s.max)});
    if (!s.all_finite() && nonfinite_input < 0) nonfinite_input = static_cast<int>(j);
  }
  if (nonfinite_input >= 0) {
    const std::string in_name = static_cast<size_t>(nonfinite_input) < st.schema->inputs.size()
                                    ? st.schema->inputs[static_cast<size_t>(nonfinite_input)]
                                    : std::to_string(nonfinite_input);
    m.cause("input '" + in_name + "' already held NaN/Inf when this step ran, so it came from outside this "
            "computation: the data, or parameters or statistics that became NaN in an earlier step");
    m.fix("check the data with glassgrad.debug.print_tensor_stats(x), and turn anomaly mode on from the first "
          "step (GLASSGRAD_DETECT_ANOMALY=1) to stop at the step that first produced it");
  } else {
    explain_op(st, largest, m);
  }
  throw NonFiniteError(m.str());
}

}  // namespace debug
}  // namespace glassgrad
