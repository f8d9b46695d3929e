// Run-time CPU feature detection for kernels whose speed depends on vector width. The wheel is
// built for baseline x86-64; ISA-specific code lives in files named *_avx2.cpp / *_avx512.cpp
// and is only called when the CPU has those features. GLASSGRAD_CPU_ISA=generic|avx2|avx512
// caps the choice (for testing each path).
#pragma once
#include <string>

namespace glassgrad {

enum class CpuIsa { Generic = 0, Avx2 = 1, Avx512 = 2 };

CpuIsa cpu_isa();                 // the best ISA this CPU supports, capped by the env variable
const char* cpu_isa_name(CpuIsa isa);

}  // namespace glassgrad
