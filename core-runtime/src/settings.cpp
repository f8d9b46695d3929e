// The runtime's switches and the environment variables that set their defaults (settings.h).
// Each is read once, at first use; a setter overrides it from then on.
#include "glassgrad/runtime/settings.h"

#include <atomic>
#include <cstdlib>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {

// A switch: -1 until the environment (or a setter) decides it.
struct Switch {
  std::atomic<int> value{-1};
  bool get(bool (*from_env)()) {
    int v = value.load();
    if (v < 0) {
      v = from_env() ? 1 : 0;
      int unset = -1;
      value.compare_exchange_strong(unset, v);  // a setter that ran meanwhile wins
      v = value.load();
    }
    return v == 1;
  }
  void set(bool on) { value = on ? 1 : 0; }
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
bool is(const char* name, const char* text) { return std::string(env(name)) == text; }

Switch g_fusion, g_cuda_graphs, g_early_reads, g_lent_outputs, g_poison_freed, g_launch_blocking, g_conv_autotune, g_deterministic,
    g_conv_fast_winograd;
std::atomic<bool> g_deterministic_algorithms{false};

// cpu::set_conv_algo's names, by code.
const char* const kCpuConvAlgos[] = {"auto", "gemm", "winograd2", "winograd4"};
std::atomic<int> g_cpu_conv_algo{0};

}  // namespace

namespace lazy {
void set_fusion(bool on) { g_fusion.set(on); }
bool fusion_enabled() {
  return g_fusion.get([] { return !is("GLASSGRAD_FUSION", "0"); });
}
}  // namespace lazy

void set_cuda_graphs(bool on) { g_cuda_graphs.set(on); }
bool cuda_graphs_enabled() {
  return g_cuda_graphs.get([] { return !is("GLASSGRAD_CUDA_GRAPHS", "0"); });
}

void set_early_reads(bool on) { g_early_reads.set(on); }
bool early_reads_enabled() {
  return g_early_reads.get([] { return !is("GLASSGRAD_EARLY_READS", "0"); });
}

void set_lent_outputs(bool on) { g_lent_outputs.set(on); }
bool lent_outputs_enabled() {
  return g_lent_outputs.get([] { return !is("GLASSGRAD_LENT_OUTPUTS", "0"); });
}

void set_deterministic_algorithms(bool on) { g_deterministic_algorithms = on; }
bool deterministic_algorithms() { return g_deterministic_algorithms.load(); }

void set_poison_freed(bool on) { g_poison_freed.set(on); }
bool poison_freed() {
  return g_poison_freed.get([] { return is("GLASSGRAD_POISON_FREED", "1"); });
}

namespace cuda {
void set_launch_blocking(bool on) { g_launch_blocking.set(on); }
bool launch_blocking() {
  return g_launch_blocking.get([] {
    const char* e = env("GLASSGRAD_CUDA_LAUNCH_BLOCKING");
    return e[0] && e[0] != '0';
  });
}
void set_conv_autotune(bool on) { g_conv_autotune.set(on); }
bool conv_autotune_enabled() {
  return g_conv_autotune.get([] { return !is("GLASSGRAD_CONV_AUTOTUNE", "0"); });
}
void set_deterministic(bool on) { g_deterministic.set(on); }
bool deterministic() {
  return g_deterministic.get([] { return false; });
}
std::string forced_kernel_image() { return env("GLASSGRAD_CUDA_IMAGE"); }
std::string forced_driver_version() { return env("GLASSGRAD_CUDA_DRIVER_VERSION"); }
}  // namespace cuda

void set_conv_fast_winograd(bool on) { g_conv_fast_winograd.set(on); }
bool conv_fast_winograd() {
  return g_conv_fast_winograd.get([] { return is("GLASSGRAD_CONV_FAST_WINOGRAD", "1"); });
}

namespace cpu {
void set_conv_algo(const std::string& algo) {
  for (int i = 0; i < 4; ++i)
    if (algo == kCpuConvAlgos[i]) {
      g_cpu_conv_algo = i;
      return;
    }
  throw ValueError(ErrorMessage("unknown CPU convolution algorithm '" + algo + "'")
                       .fix("use one of 'auto', 'gemm', 'winograd2', 'winograd4'")
                       .str());
}
std::string conv_algo() { return kCpuConvAlgos[g_cpu_conv_algo.load()]; }
}  // namespace cpu

std::string cpu_isa_cap() { return env("GLASSGRAD_CPU_ISA"); }

}  // namespace glassgrad
