#include "glassgrad/runtime/communicator.h"

#include <map>
#include <mutex>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
struct Communicators {
  std::mutex mu;
  std::map<int64_t, std::shared_ptr<Communicator>> comms;
  int64_t next = 0;
};
Communicators& communicators() {
  static Communicators* r = new Communicators();  // never destroyed: kernels may run during interpreter exit
  return *r;
}
}  // namespace

int64_t register_communicator(std::shared_ptr<Communicator> comm) {
  if (!comm) throw ValueError("register_communicator: null communicator");
  Communicators& r = communicators();
  std::lock_guard<std::mutex> lock(r.mu);
  const int64_t id = r.next++;
  r.comms[id] = std::move(comm);
  return id;
}

void unregister_communicator(int64_t group) {
  Communicators& r = communicators();
  std::lock_guard<std::mutex> lock(r.mu);
  r.comms.erase(group);
}

std::shared_ptr<Communicator> communicator(int64_t group, const std::string& where) {
  Communicators& r = communicators();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.comms.find(group);
  if (it != r.comms.end()) return it->second;
  throw CommunicationError(ErrorMessage(where + ": no communicator is registered as group " + std::to_string(group))
                         .cause("the process group was destroyed (destroy_process_group) or never created in this "
                                "process, but a plan that talks to it still runs")
                         .fix("call glassgrad.distributed.init_process_group() before building the model's "
                              "DistributedDataParallel wrapper, and keep it until training ends")
                         .str());
}

}  // namespace glassgrad
