// Events on a device's stream, for torch.cuda.Event (cuda.h): thin wrappers over the driver's
// cuEvent* calls, which driver.cpp resolves together (all or none).
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/cuda.h"
#include "cuda/backend.h"

namespace glassgrad {
namespace cuda {
namespace {

constexpr unsigned int kEventDefault = 0x0;
constexpr unsigned int kEventWithoutTiming = 0x2;  // CU_EVENT_DISABLE_TIMING

CUevent as_event(void* e) {
  if (e == nullptr) throw InternalError("a CUDA event handle is null");
  return static_cast<CUevent>(e);
}

void require_events() {
  if (api().cuEventCreate == nullptr) {
    throw DeviceError(ErrorMessage("this NVIDIA driver has no event functions (cuEventCreate and the others)")
                          .fix("update the NVIDIA driver")
                          .str());
  }
}

}  // namespace

void* event_create(int index, bool timing) {
  DeviceState& s = state(index);
  require_events();
  make_current(s);
  CUevent e = nullptr;
  check(api().cuEventCreate(&e, timing ? kEventDefault : kEventWithoutTiming),
        "creating an event on cuda:" + std::to_string(index));
  return e;
}

void event_record(void* event, int index) {
  if (capturing()) {
    throw UnsupportedError(ErrorMessage("recording a CUDA event while a CUDA graph is being captured")
                               .fix("record events outside glassgrad.compile'd steps")
                               .str());
  }
  DeviceState& s = state(index);
  make_current(s);
  check(api().cuEventRecord(as_event(event), s.stream), "recording an event on cuda:" + std::to_string(index));
}

void event_synchronize(void* event) {
  require_events();
  check(api().cuEventSynchronize(as_event(event)), "waiting for a CUDA event");
}

bool event_query(void* event) {
  require_events();
  if (api().cuEventQuery == nullptr) {
    event_synchronize(event);  // no query entry point: wait, then it is complete
    return true;
  }
  const CUresult r = api().cuEventQuery(as_event(event));
  if (r == CUDA_ERROR_NOT_READY) return false;
  check(r, "querying a CUDA event");
  return true;
}

float event_elapsed_ms(void* start, void* end) {
  require_events();
  float ms = 0;
  check(api().cuEventElapsedTime(&ms, as_event(start), as_event(end)), "measuring the time between two CUDA events",
        "record both events (start.record() ... end.record()) and wait for the end one (end.synchronize()) first; "
        "both need enable_timing=True");
  return ms;
}

void event_destroy(void* event) noexcept {
  if (event == nullptr || api().cuEventDestroy == nullptr) return;
  api().cuEventDestroy(static_cast<CUevent>(event));
}

}  // namespace cuda
}  // namespace glassgrad
