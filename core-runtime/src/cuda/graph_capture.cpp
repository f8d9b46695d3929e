// Whole-step CUDA graphs (used by the Executor): a capture of the launches a plan makes on
// the device's stream, instantiated once and replayed with one launch. capturing() tells
// kernels a capture is open on this thread, so they avoid host synchronization meanwhile.
#include "cuda/backend.h"

namespace glassgrad {
namespace cuda {

namespace {
thread_local bool t_capturing = false;
}  // namespace

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

}  // namespace cuda
}  // namespace glassgrad
