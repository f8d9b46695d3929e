#include "glassgrad/runtime/cpu_features.h"

#include <string>

#include "glassgrad/runtime/settings.h"

namespace glassgrad {

namespace {
CpuIsa detect() {
  CpuIsa best = CpuIsa::Generic;
#if defined(GLASSGRAD_X86_DISPATCH) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = CpuIsa::Avx2;
  if (best == CpuIsa::Avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    best = CpuIsa::Avx512;
  }
#endif
  const std::string cap = cpu_isa_cap();
  CpuIsa want = best;
  if (cap == "generic") want = CpuIsa::Generic;
  else if (cap == "avx2") want = CpuIsa::Avx2;
  else if (cap == "avx512") want = CpuIsa::Avx512;
  if (static_cast<int>(want) < static_cast<int>(best)) best = want;
  return best;
}
}  // namespace

CpuIsa cpu_isa() {
  static const CpuIsa isa = detect();
  return isa;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Generic: return "generic";
    case CpuIsa::Avx2: return "avx2";
    case CpuIsa::Avx512: return "avx512";
  }
  return "?";
}

}  // namespace glassgrad
