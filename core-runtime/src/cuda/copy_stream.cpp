// Host-to-device copies of pinned data on a copy stream (docs/cuda.md, "Copies on a copy
// stream"): a training loop's NumPy batch, staged in pinned memory by from_numpy, is copied while
// the device's stream still runs the previous step, instead of queueing behind it.
//
// Each device has a copy stream and two landing buffers used in turn. A copy goes
//   copy stream:   wait until the landing buffer is free, pinned -> landing buffer, record `ready`
//   device stream: wait for `ready`, landing buffer -> destination, record `free`
// Invariants: the destination is only ever written on the device's stream, so the caching
// allocator's one-stream rule (allocator.h) holds for every tensor; the landing buffers come from
// the driver, not the allocator, and the copy stream writes nothing else. A landing buffer is
// written again only after the device's stream has read it (`free`). While a CUDA graph is being
// captured, and without the driver's event functions, copies stay on the device's stream.
// The landing buffers (twice the largest staged batch, at most 2 x kStagedBytes) are outside
// the allocator's statistics and memory limit, as the driver's own allocations are.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/copy_stream.h"
#include "glassgrad/runtime/pinned_memory.h"

namespace glassgrad {
namespace cuda {
namespace {

constexpr unsigned int kEventNoTiming = 0x2;  // CU_EVENT_DISABLE_TIMING
constexpr int kLandingBuffers = 2;

struct LandingBuffer {
  CUdeviceptr ptr = 0;      // device bytes from the driver (not the caching allocator), or 0
  size_t size = 0;
  CUevent ready = nullptr;  // recorded on the copy stream after the copy into `buffer`
  CUevent free = nullptr;   // recorded on the device stream after the last read of `buffer`
};

struct CopyLane {
  std::mutex mu;
  CUstream stream = nullptr;
  LandingBuffer buffers[kLandingBuffers];
  int next = 0;
};

// One lane per device, made on first use and never destroyed: copies may be in flight when the
// process exits, and the driver reclaims the stream and events with the context.
CopyLane& copy_lane(int index) {
  static std::mutex m;
  static std::vector<CopyLane*> lanes;
  std::lock_guard<std::mutex> lock(m);
  if (lanes.size() <= static_cast<size_t>(index)) lanes.resize(static_cast<size_t>(index) + 1, nullptr);
  if (lanes[static_cast<size_t>(index)] == nullptr) lanes[static_cast<size_t>(index)] = new CopyLane();
  return *lanes[static_cast<size_t>(index)];
}

CUdeviceptr device_ptr(const Tensor& t) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(t.data_ptr())); }

}  // namespace

bool copy_in_on_copy_stream(DeviceState& s, const Tensor& dst, const Tensor& host) {
  const DriverApi& a = api();
  if (a.cuEventCreate == nullptr || a.cuEventRecord == nullptr || a.cuStreamWaitEvent == nullptr) return false;
  if (capturing() || !dst.is_contiguous() || dst.nbytes() == 0 || !is_pinned(host)) return false;
  const std::string what = "host-to-device copy of " + dst.info().str() + " on the copy stream";
  const size_t n = dst.nbytes();
  CopyLane& lane = copy_lane(s.index);
  std::lock_guard<std::mutex> lock(lane.mu);
  make_current(s);
  if (lane.stream == nullptr) check(a.cuStreamCreate(&lane.stream, CU_STREAM_NON_BLOCKING), what);
  LandingBuffer& b = lane.buffers[lane.next];
  lane.next = (lane.next + 1) % kLandingBuffers;
  if (b.ready == nullptr) {
    check(a.cuEventCreate(&b.ready, kEventNoTiming), what);
    check(a.cuEventCreate(&b.free, kEventNoTiming), what);
  }
  if (b.size < n) {
    // Larger data than before: the old buffer goes back to the driver once its last copy was
    // read, and fresh memory (which no queued work uses) replaces it. Where the driver has no
    // memory to give, this copy stays on the device's stream.
    if (b.ptr != 0) {
      check(a.cuEventSynchronize(b.free), what);
      check(a.cuMemFree(b.ptr), what);
      b.ptr = 0;
      b.size = 0;
    }
    if (a.cuMemAlloc(&b.ptr, n) != CUDA_SUCCESS) {
      b.ptr = 0;
      return false;
    }
    b.size = n;
    check(a.cuEventRecord(b.free, s.stream), what);  // so the wait below always has a record
  }
  check(a.cuStreamWaitEvent(lane.stream, b.free, 0), what);
  check(a.cuMemcpyHtoDAsync(b.ptr, host.data_ptr(), n, lane.stream), what);
  note_pinned_read(host.data_ptr(), lane.stream);
  check(a.cuEventRecord(b.ready, lane.stream), what);
  check(a.cuStreamWaitEvent(s.stream, b.ready, 0), what);
  check(a.cuMemcpyDtoDAsync(device_ptr(dst), b.ptr, n, s.stream), what);
  check(a.cuEventRecord(b.free, s.stream), what);
  return true;
}

}  // namespace cuda
}  // namespace glassgrad
