// CUDA device setup. For each device on first use: read its properties, retain the primary
// context, create the device's stream, load the embedded kernels (kernel_image.cpp), register
// the caching allocator for cuda:i, and (once) the device hooks. A failure is remembered with
// its precise reason and reported by why_unavailable() and by the DeviceError raised when a
// CUDA tensor is requested. Also: kernel lookup by name, and driver errors as CudaError.
#include <map>
#include <memory>
#include <mutex>

#include "cuda/allocator.h"
#include "cuda/backend.h"
#include "cuda/functions.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/allocator.h"

namespace glassgrad {
namespace cuda {

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

int attr(const DriverApi& a, CUdevice d, CUdevice_attribute what) {
  int v = 0;
  a.cuDeviceGetAttribute(&v, what, d);
  return v;
}

// Initializes one device; returns "" or the reason it cannot be used.
std::string init_device(int index, std::unique_ptr<DeviceState>& out) {
  if (!built_with_kernels()) return no_kernels_reason();
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
  info.kernel_image = kernel_image_for(info);

  if ((r = a->cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS) {
    return "could not create a CUDA context on " + gpu + ": " + result_string(r);
  }
  if ((r = a->cuCtxSetCurrent(s->ctx)) != CUDA_SUCCESS) return "cuCtxSetCurrent failed on " + gpu + ": " + result_string(r);
  if ((r = a->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
    return "could not create a CUDA stream on " + gpu + ": " + result_string(r);
  }
  if (std::string why = load_kernel_image(*s, gpu); !why.empty()) return why;
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

void synchronize(int index) {
  DeviceState& s = state(index);
  make_current(s);
  check(api().cuStreamSynchronize(s.stream), "synchronizing cuda:" + std::to_string(index));
  check_error_words(index);
}

std::pair<size_t, size_t> mem_get_info(int index) {
  DeviceState& s = state(index);
  make_current(s);
  size_t free_b = 0, total_b = 0;
  check(api().cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo on cuda:" + std::to_string(index));
  return {free_b, total_b};
}

}  // namespace cuda
}  // namespace glassgrad
