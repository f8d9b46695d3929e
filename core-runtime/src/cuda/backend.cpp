// CUDA backend initialization. For each device on first use: retain the primary context,
// create the device's stream, load the embedded fatbin (cuModuleLoadDataEx, with the JIT's
// error log), register the caching allocator for cuda:i, and (once) the device hooks. A
// failure is remembered with its precise reason and reported by why_unavailable() and by the
// DeviceError raised when a CUDA tensor is requested.
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <sstream>

#include "cuda/allocator.h"
#include "cuda/backend.h"
#include "cuda/functions.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"

#ifndef GLASSGRAD_HAVE_CUDA_KERNELS
#define GLASSGRAD_HAVE_CUDA_KERNELS 0
#endif

#if GLASSGRAD_HAVE_CUDA_KERNELS
extern "C" const unsigned char glassgrad_cuda_fatbin_begin[];
extern "C" const unsigned char glassgrad_cuda_fatbin_end[];
#endif

namespace glassgrad {
namespace cuda {

bool built_with_kernels() { return GLASSGRAD_HAVE_CUDA_KERNELS != 0; }

std::string built_archs() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return GLASSGRAD_CUDA_ARCH_DESC;
#else
  return "";
#endif
}

std::string built_cuda_version() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return GLASSGRAD_CUDA_BUILD_VERSION;
#else
  return "";
#endif
}

const unsigned char* fatbin_data() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return glassgrad_cuda_fatbin_begin;
#else
  return nullptr;
#endif
}

size_t fatbin_size() {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  return static_cast<size_t>(glassgrad_cuda_fatbin_end - glassgrad_cuda_fatbin_begin);
#else
  return 0;
#endif
}

namespace {

struct Slot {
  std::unique_ptr<DeviceState> state;
  std::string error;  // non-empty: initialization failed for this reason
  bool tried = false;
};

std::mutex& init_mutex() {
  static std::mutex m;
  return m;
}
std::map<int, Slot>& slots() {
  static auto* s = new std::map<int, Slot>();  // never destroyed: contexts outlive statics
  return *s;
}

std::string arch_sentence() {
  return "this build embeds kernels for " + built_archs() + " (CUDA " + built_cuda_version() + ")";
}

bool arch_built(int major, int minor) {
  const std::string tag = "sm_" + std::to_string(major * 10 + minor);
  const std::string a = built_archs();
  size_t pos = 0;
  while ((pos = a.find(tag, pos)) != std::string::npos) {
    const size_t end = pos + tag.size();
    if (end == a.size() || a[end] == ',' || a[end] == ' ') return true;
    pos = end;
  }
  return false;
}

int attr(const DriverApi& a, CUdevice d, CUdevice_attribute what) {
  int v = 0;
  a.cuDeviceGetAttribute(&v, what, d);
  return v;
}

// Initializes one device; returns "" or the reason it cannot be used.
std::string init_device(int index, std::unique_ptr<DeviceState>& out) {
  if (!built_with_kernels()) {
    return "this build of glassgrad has no CUDA kernels (it was built with GLASSGRAD_CUDA=OFF, or "
           "without nvcc on the PATH); reinstall with CUDA: GLASSGRAD_CUDA=ON pip install .";
  }
  const DriverApi* a = driver();
  if (!a) return driver_error();
  int count = 0;
  CUresult r = a->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) return "cuDeviceGetCount failed: " + result_string(r);
  if (count == 0) return "the NVIDIA driver is loaded but sees no CUDA GPU (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
  if (index < 0 || index >= count) {
    return "device cuda:" + std::to_string(index) + " does not exist: " + std::to_string(count) +
           " CUDA GPU(s) visible (cuda:0" + (count > 1 ? " to cuda:" + std::to_string(count - 1) : std::string()) + ")";
  }
  auto s = std::make_unique<DeviceState>();
  s->index = index;
  if ((r = a->cuDeviceGet(&s->dev, index)) != CUDA_SUCCESS) return "cuDeviceGet failed: " + result_string(r);
  DeviceInfo& info = s->info;
  info.index = index;
  char name[256] = {0};
  a->cuDeviceGetName(name, sizeof(name) - 1, s->dev);
  info.name = name;
  info.major = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.minor = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.max_threads_per_block = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_threads_per_multiprocessor = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.max_shared_memory_per_block = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info.max_shared_memory_per_multiprocessor = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.max_registers_per_block = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  info.warp_size = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  info.max_grid[0] = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  info.max_grid[1] = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  info.max_grid[2] = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  info.l2_cache_bytes = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.clock_khz = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memory_clock_khz = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memory_bus_width_bits = attr(*a, s->dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  a->cuDeviceTotalMem(&info.total_memory, s->dev);
  a->cuDriverGetVersion(&info.driver_version);
  const std::string gpu = "cuda:" + std::to_string(index) + " (" + info.name + ", compute capability " +
                          std::to_string(info.major) + "." + std::to_string(info.minor) + ")";
  info.kernel_image = arch_built(info.major, info.minor)
                          ? "sm_" + std::to_string(info.major * 10 + info.minor) + " machine code"
                          : "PTX, JIT-compiled by the driver";

  if ((r = a->cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS) {
    return "could not create a CUDA context on " + gpu + ": " + result_string(r);
  }
  if ((r = a->cuCtxSetCurrent(s->ctx)) != CUDA_SUCCESS) return "cuCtxSetCurrent failed on " + gpu + ": " + result_string(r);
  if ((r = a->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
    return "could not create a CUDA stream on " + gpu + ": " + result_string(r);
  }
  char log[8192] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log) - 1))};
  r = a->cuModuleLoadDataEx(&s->module, fatbin_data(), 2, opts, vals);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    return "the embedded CUDA kernels have no image for " + gpu + ": " + arch_sentence() +
           ", and the driver cannot use any of them on compute capability " + std::to_string(info.major) + "." +
           std::to_string(info.minor) + "; rebuild with GLASSGRAD_CUDA_ARCHS=" +
           std::to_string(info.major * 10 + info.minor) + " (CUDA 13 supports 7.5 and newer, CUDA 12 5.0 and newer)";
  }
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    return "the NVIDIA driver (version " + std::to_string(info.driver_version) + ") is older than the CUDA " +
           built_cuda_version() + " toolkit the kernels were built with, so it cannot JIT their PTX for " + gpu +
           "; update the driver, or rebuild with GLASSGRAD_CUDA_ARCHS=" + std::to_string(info.major * 10 + info.minor);
  }
  if (r != CUDA_SUCCESS) {
    std::string msg = "loading the CUDA kernels on " + gpu + " failed: " + result_string(r);
    if (log[0]) msg += " (JIT log: " + std::string(log) + ")";
    return msg;
  }
  out = std::move(s);
  return "";
}

Slot& slot(int index) {
  std::lock_guard<std::mutex> lock(init_mutex());
  Slot& sl = slots()[index];
  if (!sl.tried) {
    sl.tried = true;
    sl.error = init_device(index, sl.state);
    if (sl.state) {
      register_hooks();
      register_allocator(Device::cuda(index), new CachingAllocator(*sl.state));
    }
  }
  return sl;
}

std::atomic<int>& algo_code() {
  static std::atomic<int> a{0};
  return a;
}
std::atomic<int>& blocking_flag() {
  static std::atomic<int> f{[] {
    const char* e = std::getenv("GLASSGRAD_CUDA_LAUNCH_BLOCKING");
    return (e && e[0] && e[0] != '0') ? 1 : 0;
  }()};
  return f;
}

}  // namespace

DeviceState& state(int index) {
  Slot& sl = slot(index);
  if (!sl.state) {
    throw DeviceError(ErrorMessage("CUDA device cuda:" + std::to_string(index) + " cannot be used")
                          .detail("reason: " + sl.error)
                          .fix("use device='cpu', or fix the reason above (glassgrad.cuda.why_unavailable() repeats it)")
                          .str());
  }
  return *sl.state;
}

void ensure_initialized(int index) { (void)state(index); }

const DriverApi& api() { return *driver(); }

void make_current(const DeviceState& s) {
  const CUresult r = api().cuCtxSetCurrent(s.ctx);
  if (r != CUDA_SUCCESS) check(r, "cuCtxSetCurrent on cuda:" + std::to_string(s.index));
}

CUfunction function(DeviceState& s, const char* name) {
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.functions.find(name);
  if (it != s.functions.end()) return it->second;
  require_registered(name);
  CUfunction f = nullptr;
  const CUresult r = api().cuModuleGetFunction(&f, s.module, name);
  if (r != CUDA_SUCCESS) {
    throw InternalError(ErrorMessage(std::string("CUDA kernel '") + name + "' is not in the embedded fatbin")
                            .detail("cuModuleGetFunction: " + result_string(r))
                            .cause("the launcher and kernels/cuda/*.cu disagree on the kernel's name")
                            .fix("rebuild glassgrad; if it persists, please report it")
                            .str());
  }
  s.functions.emplace(name, f);
  return f;
}

void check(CUresult r, const std::string& what, const std::string& fix) {
  if (r == CUDA_SUCCESS) return;
  ErrorMessage m(what + " failed: " + result_string(r));
  if (r == 700 || r == 719 || r == 716 || r == 715 || r == 714) {  // illegal address, launch failure, misaligned, ...
    m.cause("a kernel launched earlier failed while running (CUDA reports such errors at the next call); "
            "the GPU context is no longer usable in this process");
    m.fix(fix.empty() ? "rerun with GLASSGRAD_CUDA_LAUNCH_BLOCKING=1 to name the kernel that failed, and please report it"
                      : fix);
  } else if (!fix.empty()) {
    m.fix(fix);
  }
  throw CudaError(m.str());
}

bool is_available() { return slot(0).state != nullptr; }

std::string why_unavailable() { return slot(0).error; }

int device_count() {
  if (!built_with_kernels()) return 0;
  const DriverApi* a = driver();
  if (!a) return 0;
  int n = 0;
  return a->cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

DeviceInfo device_info(int index) { return state(index).info; }

namespace {
thread_local bool t_capturing = false;
struct ErrorWord {
  int index;
  CUdeviceptr word;
  std::string what;
};
std::mutex& words_mutex() {
  static std::mutex m;
  return m;
}
std::vector<ErrorWord>& error_words() {
  static auto* w = new std::vector<ErrorWord>();
  return *w;
}
}  // namespace

void synchronize(int index) {
  DeviceState& s = state(index);
  make_current(s);
  check(api().cuStreamSynchronize(s.stream), "synchronizing cuda:" + std::to_string(index));
  check_error_words(index);
}

bool graphs_supported(int index) {
  if (!is_available()) return false;
  state(index);
  return api().cuStreamBeginCapture != nullptr;
}

bool capturing() { return t_capturing; }

void begin_capture(int index) {
  DeviceState& s = state(index);
  make_current(s);
  check(api().cuStreamBeginCapture(s.stream, CU_STREAM_CAPTURE_MODE_RELAXED),
        "cuStreamBeginCapture on cuda:" + std::to_string(index));
  t_capturing = true;
}

void* end_capture(int index) {
  DeviceState& s = state(index);
  make_current(s);
  t_capturing = false;
  CUgraph graph = nullptr;
  check(api().cuStreamEndCapture(s.stream, &graph), "cuStreamEndCapture on cuda:" + std::to_string(index));
  CUgraphExec exec = nullptr;
  const CUresult r = api().cuGraphInstantiateWithFlags(&exec, graph, 0);
  api().cuGraphDestroy(graph);
  check(r, "cuGraphInstantiate of a captured plan on cuda:" + std::to_string(index));
  return exec;
}

void abort_capture(int index) noexcept {
  t_capturing = false;
  try {
    DeviceState& s = state(index);
    make_current(s);
    CUgraph graph = nullptr;
    if (api().cuStreamEndCapture(s.stream, &graph) == CUDA_SUCCESS && graph) api().cuGraphDestroy(graph);
  } catch (...) {
  }
}

void launch_graph(int index, void* exec) {
  DeviceState& s = state(index);
  make_current(s);
  check(api().cuGraphLaunch(static_cast<CUgraphExec>(exec), s.stream),
        "cuGraphLaunch of a captured plan on cuda:" + std::to_string(index));
  if (launch_blocking()) synchronize(index);
}

void destroy_graph(void* exec) noexcept {
  if (exec && driver()) driver()->cuGraphExecDestroy(static_cast<CUgraphExec>(exec));
}

void register_error_word(int index, void* device_word, std::string what) {
  std::lock_guard<std::mutex> lock(words_mutex());
  error_words().push_back({index, reinterpret_cast<CUdeviceptr>(device_word), std::move(what)});
}

void unregister_error_word(void* device_word) noexcept {
  std::lock_guard<std::mutex> lock(words_mutex());
  auto& w = error_words();
  for (auto it = w.begin(); it != w.end();) {
    it = it->word == reinterpret_cast<CUdeviceptr>(device_word) ? w.erase(it) : it + 1;
  }
}

void check_error_words(int index) {
  std::vector<ErrorWord> words;
  {
    std::lock_guard<std::mutex> lock(words_mutex());
    words = error_words();
  }
  DeviceState& s = state(index);
  for (const auto& w : words) {
    if (w.index != index) continue;
    int64_t value = -1;
    check(api().cuMemcpyDtoHAsync(&value, w.word, sizeof value, s.stream), "reading a device error word");
    check(api().cuStreamSynchronize(s.stream), "reading a device error word");
    if (value == -1) continue;
    const int64_t reset = -1;
    api().cuMemcpyHtoDAsync(w.word, &reset, sizeof reset, s.stream);
    api().cuStreamSynchronize(s.stream);
    throw IndexError(w.what + ": a label out of range was found at position " + std::to_string(value) +
                     " of a batch while a captured CUDA graph replayed (reported at this synchronization; "
                     "that batch's data has been overwritten since)\n  fix: check the labels are in [0, classes), "
                     "or set GLASSGRAD_CUDA_GRAPHS=0 to check them at every step");
  }
}

std::pair<size_t, size_t> mem_get_info(int index) {
  DeviceState& s = state(index);
  make_current(s);
  size_t free_b = 0, total_b = 0;
  check(api().cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo on cuda:" + std::to_string(index));
  return {free_b, total_b};
}

void set_conv_algo(const std::string& algo) {
  if (algo == "auto") algo_code() = 0;
  else if (algo == "direct") algo_code() = 1;
  else if (algo == "igemm") algo_code() = 2;
  else
    throw ValueError(ErrorMessage("unknown CUDA convolution algorithm '" + algo + "'")
                         .fix("use one of 'auto', 'direct', 'igemm'")
                         .str());
}

std::string conv_algo() {
  const int a = algo_code();
  return a == 0 ? "auto" : a == 1 ? "direct" : "igemm";
}

void set_launch_blocking(bool on) { blocking_flag() = on ? 1 : 0; }
bool launch_blocking() { return blocking_flag() != 0; }

}  // namespace cuda
}  // namespace glassgrad
