// The CUDA backend's public face: availability (with the precise reason when unavailable),
// device properties, synchronization and a few switches. Everything initializes lazily: the
// driver is opened on the first call here or on the first use of a CUDA tensor, never at
// import, and nothing throws merely because there is no GPU.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>
#include <utility>
#include <vector>

#include "glassgrad/runtime/settings.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cuda {

// Whether this build embeds CUDA kernels (cmake/cuda_select.py chose some: the build machine's
// GPUs under GLASSGRAD_CUDA=AUTO, or those GLASSGRAD_CUDA_ARCHS names).
bool built_with_kernels();
// Which kernels the build holds and why, one sentence from its configuration, e.g. "no CUDA
// kernels: no GPU was visible when it was built (...)" or "CUDA kernels for the visible GPU: ...".
std::string build_note();
// The embedded architectures, e.g. "sm_75, sm_80, sm_90 + PTX compute_75"; "" without kernels.
std::string built_archs();
// The CUDA toolkit version the kernels were compiled with ("13.0"); "" without kernels.
std::string built_cuda_version();
// The embedded fatbin (for disassembly by tests and curious users); nullptr without kernels.
const unsigned char* fatbin_data();
size_t fatbin_size();
// The kernel images CUDA 12's NVRTC compiled (cmake/GlassgradLegacy.cmake): for the GPUs CUDA
// 13's nvcc no longer targets (Maxwell, Pascal, Volta) and for Turing to Hopper under drivers
// older than CUDA 13's (525 to 575); a cubin per architecture, and in a full build PTX
// compute_50, embedded packed next to nvcc's fatbin (cmake/pack_images.py). Empty without them.
// The loader picks among all images by the driver's version and the compute capability
// (src/cuda/image_choice.h).
struct LegacyImage {
  const char* name;                    // "sm_61", "compute_50"
  int arch;                            // 61, 50
  bool ptx;                            // PTX text (JIT-compiled by the driver), else a cubin
  int min_driver;                      // the oldest driver that loads it, as cuDriverGetVersion reports (12000)
  // Where it is: the images are packed by architecture major (cmake/pack_images.py), each group
  // one xz stream of its images concatenated; this one is bytes [offset, offset + size) of it.
  const char* group;                   // "sm_8x", "ptx"
  const unsigned char* packed_begin;   // the group's xz stream
  const unsigned char* packed_end;
  size_t group_size;                   // the group's bytes unpacked
  size_t offset;
  size_t size;                         // the image's bytes, as NVRTC wrote them
  const char* sha256;                  // of those bytes (hex): what unpacking must give back
  size_t packed_size() const { return static_cast<size_t>(packed_end - packed_begin); }
};
const std::vector<LegacyImage>& legacy_images();
// The image as NVRTC wrote it, unpacked, followed by a NUL (so PTX text loads as it is): the
// caller owns the bytes. Throws CudaError when the embedded stream does not unpack to it.
std::vector<unsigned char> legacy_image_bytes(const LegacyImage& img);
// Every image's bytes as legacy_image_bytes gives them, in legacy_images()' order (each group
// unpacked once).
std::vector<std::vector<unsigned char>> all_legacy_image_bytes();
// Unpacks an xz stream (LZMA2, CRC32 or no check) that holds exactly `unpacked_size` bytes, with
// the system's liblzma (opened when first needed). Throws ValueError naming `what` when it does not.
std::vector<unsigned char> unpack_xz(const unsigned char* data, size_t size, size_t unpacked_size,
                                     const std::string& what);
// Every CUDA function the launchers may load from the fatbin, sorted (the registry of
// src/cuda/functions.h); tests check the fatbin against it. Empty without kernels.
std::vector<std::string> kernel_names();

// True when cuda:0 can run glassgrad's kernels (driver loaded, GPU present, module loaded).
bool is_available();
// "" when available; otherwise one precise sentence: no kernels in this build, libcuda.so.1
// not found (with dlerror's text), cuInit's error, no GPU, or no kernel image for this GPU's
// compute capability (naming it and the built architectures).
std::string why_unavailable();
int device_count();  // 0 when the driver is unavailable

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;             // compute capability
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int max_shared_memory_per_block = 0;  // bytes (static limit without opt-in)
  int max_shared_memory_per_multiprocessor = 0;
  int max_registers_per_block = 0;
  int warp_size = 0;
  int max_grid[3] = {0, 0, 0};
  int l2_cache_bytes = 0;
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_width_bits = 0;
  size_t total_memory = 0;              // bytes
  int driver_version = 0;               // e.g. 13000
  std::string kernel_image;             // "sm_90 machine code" or "PTX compute_75, JIT-compiled by the driver"
};
// Initializes the device if needed; throws DeviceError (why_unavailable's text) otherwise.
DeviceInfo device_info(int index = 0);
// Initializes cuda:index (context, stream, kernels, allocator) if needed; throws DeviceError
// explaining why when it cannot be used. Called by allocator_for / device_hooks on first use.
void ensure_initialized(int index);
void synchronize(int index = 0);
std::pair<size_t, size_t> mem_get_info(int index = 0);  // (free, total) bytes on the device

// Convolution algorithm: "auto" (per shape: heuristics, or the plan-time autotuner), "direct"
// (when the shape allows), "igemm", "winograd2" / "winograd4" (3x3 stride-1 float32 layers);
// "igemm:<tile>" etc. also force the product tile (an unknown one is refused).
void set_conv_algo(const std::string& algo);
std::string conv_algo();
// Every spec set_conv_algo takes besides "auto": each algorithm alone and with each of its tiles.
std::vector<std::string> conv_algo_specs();
// The convolution choices made so far, one line each (shape, device, algorithm, how chosen),
// and forgetting them (the next plan of each shape chooses again).
std::vector<std::string> conv_choices();
void clear_conv_choices();

// Whole-step CUDA graphs (used by the Executor): capture the launches a plan makes on the
// device's stream, then replay them with one launch. Kernels consult capturing() to avoid
// host synchronization while a capture is open.
bool graphs_supported(int index = 0);
void begin_capture(int index);
// Ends the capture and instantiates it; returns an opaque executable graph (destroy_graph).
void* end_capture(int index);
// Ends a capture that failed, discarding it (never throws).
void abort_capture(int index) noexcept;
void launch_graph(int index, void* exec);
void destroy_graph(void* exec) noexcept;
bool capturing();  // a capture is open on this thread
// Events on a device's one stream (torch.cuda.Event): an event recorded now completes when
// every kernel and copy queued on the device before it has finished. `timing` events measure
// the milliseconds between two (event_elapsed_ms, both recorded and complete). Handles are
// opaque; event_destroy never throws. Recording while a graph capture is open is refused.
void* event_create(int index, bool timing);
void event_record(void* event, int index);
void event_synchronize(void* event);
bool event_query(void* event);  // true when complete (or never recorded), as cuEventQuery
float event_elapsed_ms(void* start, void* end);
void event_destroy(void* event) noexcept;

// Errors kernels detect on the device while a graph replays (e.g. a label out of range) are
// recorded in a word registered here and reported at the next synchronize of the device.
void register_error_word(int index, void* device_word, std::string what);
void unregister_error_word(void* device_word) noexcept;  // before the word's memory is freed
void check_error_words(int index);
// A check that need not stop the stream: the returned word (one int64 on device `index`, -1
// when fine) may be set by the kernel launched next; at the next synchronization of the device
// (or when kMaxDeferredChecks are pending) the words are read and on_error(value) raises for the
// first one set, in launch order. The indexing kernels' bounds checks use it, so a launch does not
// wait for the device (as PyTorch's device-side asserts, the error comes at the next
// synchronization) and still names the value and the dim. The words are slots of one arena per
// device, at -1 already: taking one costs no launch, and a synchronization reads the slots in
// use with one copy and re-arms them with one memset (docs/cuda.md, "Deferred checks").
constexpr size_t kMaxDeferredChecks = 64;
void* deferred_check_word(int index, std::function<void(int64_t)> on_error);
// Whether deferred checks of device `index` wait to be read (at its next synchronization).
bool deferred_checks_pending(int index);

// Early host reads (host_copy.h): queues on src's device stream a copy of src (dense) into the
// first bytes of `block` (pinned host memory) and, when `error_word` (a device address) is given,
// of that int64 at error_word_offset(src.nbytes()), without waiting; the block is recorded as used
// by the copies (pinned_memory.h), so it is not handed out again before they finish.
void copy_to_host_async(const Tensor& block, const Tensor& src, const void* error_word);
// Waits for the copies queued into `block` (only those: the work queued after them runs on) and
// raises the errors known then: an error word copied with the data that is set, or deferred checks
// pending, are read by a synchronization of the device, which raises as it always does.
void finish_host_copy(int index, const Tensor& block, size_t data_bytes, bool error_word);

}  // namespace cuda
}  // namespace glassgrad
