// Tensor statistics for messages and print_tensor_stats: counts of NaN, +Inf and -Inf, and
// min / max / mean / std over the finite elements only (one NaN would otherwise hide the rest).
// Two passes over the data: the sum for the mean, then the squared deviations, in double.
#include <cmath>
#include <cstdio>
#include <limits>

#include "glassgrad/runtime/debug.h"

namespace glassgrad {
namespace debug {

namespace {

template <typename T>
void accumulate(const T* p, int64_t n, TensorStats& s) {
  double sum = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(p[i]);
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++(v > 0 ? s.pos_inf : s.neg_inf);
    } else {
      ++s.finite;
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (s.finite == 0) {
    s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  s.mean = sum / static_cast<double>(s.finite);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(p[i]);
    if (std::isfinite(v)) sq += (v - s.mean) * (v - s.mean);
  }
  s.std = std::sqrt(sq / static_cast<double>(s.finite));
  s.min = lo;
  s.max = hi;
}

std::string six_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

TensorStats stats_of(const Tensor& t) {
  TensorStats s;
  s.info = t.info();
  s.count = t.numel();
  if (!t.defined() || s.count == 0) {
    s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  const Tensor c = t.device().is_cpu() ? t.contiguous() : t.to(Device::cpu()).contiguous();
  switch (c.dtype()) {
    case DType::Float32: accumulate(c.data<float>(), s.count, s); break;
    case DType::Float64: accumulate(c.data<double>(), s.count, s); break;
    case DType::Int64: accumulate(c.data<int64_t>(), s.count, s); break;
    case DType::UInt8: accumulate(c.data<uint8_t>(), s.count, s); break;
    case DType::Bool: accumulate(c.data<bool>(), s.count, s); break;
    case DType::Int8: accumulate(c.data<int8_t>(), s.count, s); break;
    case DType::Int16: accumulate(c.data<int16_t>(), s.count, s); break;
    case DType::Int32: accumulate(c.data<int32_t>(), s.count, s); break;
    case DType::Float16:
    case DType::BFloat16: s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN(); break;
  }
  return s;
}

std::string TensorStats::str() const {
  std::string r;
  if (finite == 0) {
    r = count == 0 ? "empty" : "no finite values";
  } else {
    r = "min " + six_digits(min) + " max " + six_digits(max) + " mean " + six_digits(mean) + " std " + six_digits(std);
  }
  r += "  nan " + std::to_string(nan) + " inf " + std::to_string(inf());
  if (inf() > 0) r += " (+inf " + std::to_string(pos_inf) + ", -inf " + std::to_string(neg_inf) + ")";
  return r;
}

}  // namespace debug
}  // namespace glassgrad
