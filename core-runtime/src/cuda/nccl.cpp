// NCCL communicator (glassgrad/runtime/nccl_communicator.h): libnccl.so.2 through dlopen, the
// few entry points of nccl.h declared here with their stable ABI values (NCCL 2.x).
#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

#include "cuda/backend.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/nccl_communicator.h"

namespace glassgrad {
namespace nccl {

namespace {

using ncclResult_t = int;
using ncclComm_t = struct ncclComm*;
constexpr int kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kUniqueIdBytes];
};
// ncclDataType_t and ncclRedOp_t values of nccl.h.
constexpr int ncclInt64 = 4, ncclUint8 = 1, ncclFloat32 = 7, ncclFloat64 = 8;
constexpr int ncclSum = 0, ncclAvg = 4;  // ncclAvg: NCCL 2.10+

struct Api {
  ncclResult_t (*GetVersion)(int*);
  ncclResult_t (*GetUniqueId)(ncclUniqueId*);
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*CommAbort)(ncclComm_t);
  const char* (*GetErrorString)(ncclResult_t);
  ncclResult_t (*AllReduce)(const void*, void*, size_t, int, int, ncclComm_t, cuda::CUstream);
  ncclResult_t (*Broadcast)(const void*, void*, size_t, int, int, ncclComm_t, cuda::CUstream);
};

struct Loaded {
  Api api{};
  bool ok = false;
  std::string status;  // the version, or why not
};

template <typename F>
bool resolve(void* lib, const char* name, F& fn, std::string& error) {
  void* p = dlsym(lib, name);
  if (!p && error.empty()) error = std::string("libnccl.so.2 has no entry point ") + name + " (NCCL older than 2.10?)";
  fn = reinterpret_cast<F>(p);
  return p != nullptr;
}

Loaded load() {
  Loaded L;
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    L.status = std::string("libnccl.so.2 could not be loaded (") + (e ? e : "unknown dlopen error") +
               "); install it with pip install 'glassgrad[distributed]' (the nvidia-nccl-cu12 wheel) and put its "
               "lib/ folder on LD_LIBRARY_PATH, or install NCCL from the CUDA repository";
    return L;
  }
  Api& a = L.api;
  bool ok = true;
  ok &= resolve(lib, "ncclGetVersion", a.GetVersion, L.status);
  ok &= resolve(lib, "ncclGetUniqueId", a.GetUniqueId, L.status);
  ok &= resolve(lib, "ncclCommInitRank", a.CommInitRank, L.status);
  ok &= resolve(lib, "ncclCommDestroy", a.CommDestroy, L.status);
  ok &= resolve(lib, "ncclCommAbort", a.CommAbort, L.status);
  ok &= resolve(lib, "ncclGetErrorString", a.GetErrorString, L.status);
  ok &= resolve(lib, "ncclAllReduce", a.AllReduce, L.status);
  ok &= resolve(lib, "ncclBroadcast", a.Broadcast, L.status);
  if (!ok) return L;
  int v = 0;
  a.GetVersion(&v);  // 22105 for 2.21.5 (major*10000 + minor*100 + patch since 2.9)
  if (v < 21000) {
    L.status = "NCCL " + std::to_string(v) + " is older than 2.10, which glassgrad needs (ncclAvg)";
    return L;
  }
  L.status = "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  L.ok = true;
  return L;
}

const Loaded& loaded() {
  static const Loaded* L = new Loaded(load());  // never destroyed, like the driver
  return *L;
}

const Api& api() {
  const Loaded& L = loaded();
  if (!L.ok) throw UnsupportedError(ErrorMessage("NCCL is not available: " + L.status)
                                        .fix("use backend='mpi' for CPU processes, or install NCCL")
                                        .str());
  return L.api;
}

int nccl_dtype(DType dt) {
  switch (dt) {
    case DType::Float32: return ncclFloat32;
    case DType::Float64: return ncclFloat64;
    case DType::Int64: return ncclInt64;
    default: return ncclUint8;
  }
}

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(const std::string& id, int rank, int size, int device) : rank_(rank), size_(size), device_(device) {
    if (id.size() != kUniqueIdBytes) throw ValueError("NCCL unique id must be 128 bytes, got " + std::to_string(id.size()));
    const Api& a = api();
    cuda::DeviceState& s = cuda::state(device);
    cuda::make_current(s);
    const cuda::DriverApi& d = cuda::api();
    if (!d.cuStreamWaitEvent || !d.cuEventCreate) {
      throw UnsupportedError("NCCL communicator: the CUDA driver lacks cuStreamWaitEvent or events (driver too old)");
    }
    cuda::check(d.cuStreamCreate(&stream_, cuda::CU_STREAM_NON_BLOCKING), "NCCL communicator: creating its stream");
    cuda::check(d.cuEventCreate(&ready_, kDisableTiming), "NCCL communicator: creating an event");
    ncclUniqueId uid;
    std::memcpy(uid.internal, id.data(), kUniqueIdBytes);
    check(a.CommInitRank(&comm_, size, uid, rank), "ncclCommInitRank");
  }
  ~NcclCommunicator() override {
    if (comm_ && loaded().ok) loaded().api.CommDestroy(comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "nccl"; }

  void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, void* stream) override {
    all_reduce_async(data, count, dtype, op, stream, -1);
    join(done_event(-1), stream);
  }
  void all_reduce_async(void* data, int64_t count, DType dtype, ReduceOp op, void* stream, int64_t bucket) override {
    fork(stream);
    check(api().AllReduce(data, data, static_cast<size_t>(count), nccl_dtype(dtype),
                          op == ReduceOp::Average ? ncclAvg : ncclSum, comm_, stream_),
          "ncclAllReduce");
    cuda::check(cuda::api().cuEventRecord(done_event(bucket), stream_), "NCCL communicator: recording an event");
  }
  void wait(int64_t bucket, void* stream) override { join(done_event(bucket), stream); }
  void broadcast(void* data, int64_t count, DType dtype, int root, void* stream) override {
    fork(stream);
    check(api().Broadcast(data, data, static_cast<size_t>(count) * dtype_size(dtype), ncclUint8, root, comm_, stream_),
          "ncclBroadcast");
    cuda::check(cuda::api().cuEventRecord(done_event(-1), stream_), "NCCL communicator: recording an event");
    join(done_event(-1), stream);
  }

 private:
  static constexpr unsigned int kDisableTiming = 0x2;  // CU_EVENT_DISABLE_TIMING

  // The communication stream waits for what the compute stream has queued (the bucket's data).
  void fork(void* stream) {
    const cuda::DriverApi& d = cuda::api();
    cuda::make_current(cuda::state(device_));
    cuda::check(d.cuEventRecord(ready_, static_cast<cuda::CUstream>(stream)), "NCCL communicator: recording an event");
    cuda::check(d.cuStreamWaitEvent(stream_, ready_, 0), "NCCL communicator: ordering its stream");
  }
  void join(cuda::CUevent done, void* stream) {
    cuda::check(cuda::api().cuStreamWaitEvent(static_cast<cuda::CUstream>(stream), done, 0),
                "NCCL communicator: waiting for an all-reduce");
  }
  // One event per bucket, reused every step (a CUDA graph captures its record and wait).
  cuda::CUevent done_event(int64_t bucket) {
    std::lock_guard<std::mutex> lock(mu_);
    cuda::CUevent& e = done_[bucket];
    if (!e) cuda::check(cuda::api().cuEventCreate(&e, kDisableTiming), "NCCL communicator: creating an event");
    return e;
  }
  void check(ncclResult_t r, const char* what) const {
    if (r == 0) return;
    throw CommunicationError(ErrorMessage(std::string(what) + " failed on rank " + std::to_string(rank_) + " of " +
                                          std::to_string(size_) + " (cuda:" + std::to_string(device_) +
                                          "): " + loaded().api.GetErrorString(r))
                                 .cause("another rank died or was started with a different world size, or the GPUs "
                                        "cannot reach each other")
                                 .fix("run with NCCL_DEBUG=INFO to see the transport NCCL chose, and check every "
                                      "rank's output")
                                 .str());
  }

  int rank_, size_, device_;
  ncclComm_t comm_ = nullptr;
  cuda::CUstream stream_ = nullptr;
  cuda::CUevent ready_ = nullptr;
  std::mutex mu_;
  std::map<int64_t, cuda::CUevent> done_;
};

}  // namespace

std::pair<bool, std::string> library_status() { return {loaded().ok, loaded().status}; }

std::string unique_id() {
  ncclUniqueId id;
  const ncclResult_t r = api().GetUniqueId(&id);
  if (r != 0) throw CommunicationError(std::string("ncclGetUniqueId failed: ") + loaded().api.GetErrorString(r));
  return std::string(id.internal, kUniqueIdBytes);
}

std::shared_ptr<Communicator> make_communicator(const std::string& id, int rank, int size, int device) {
  return std::make_shared<NcclCommunicator>(id, rank, size, device);
}

}  // namespace nccl
}  // namespace glassgrad
