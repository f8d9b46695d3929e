// Storage: one contiguous block of device memory that tensors view. Freed (through its
// allocator) when the last tensor viewing it goes away. Storage can also wrap foreign memory
// (a NumPy array's buffer) without copying, keeping the owner alive.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

class Allocator;
struct HostCopy;  // host_copy.h

class Storage {
 public:
  static std::shared_ptr<Storage> allocate(size_t nbytes, const Device& device, const std::string& name);
  // Foreign memory; `release` runs when the storage dies (e.g. drops a reference to an array).
  static std::shared_ptr<Storage> wrap(void* data, size_t nbytes, const Device& device,
                                       std::function<void()> release, const std::string& name = "");
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }
  const std::string& name() const { return name_; }
  void set_name(const std::string& n) { name_ = n; }
  bool owned() const { return allocator_ != nullptr; }
  // The host copy of a device storage's bytes that the plan writing it queued (host_copy.h,
  // docs/cuda.md "Early host reads"); null when none. Every write into the storage after the
  // plan that made it drops it (drop_host_copy), so a set copy always equals the bytes.
  const std::shared_ptr<const HostCopy>& host_copy() const { return host_copy_; }
  void set_host_copy(std::shared_ptr<const HostCopy> c) { host_copy_ = std::move(c); }
  void drop_host_copy() {
    if (host_copy_) host_copy_.reset();
  }
  // Lent storage (docs/cuda.md "Lent graph outputs"): a view of memory that a captured CUDA graph
  // writes again at its next replay. claim() gives it memory of its own first (an allocation and a
  // queued device copy, stream-ordered before anything queued later); views follow, as they hold
  // the storage, not its address. Anything that hands the address out of the runtime claims first.
  static std::shared_ptr<Storage> lend(const std::shared_ptr<Storage>& owner, const std::string& name);
  bool lent() const { return lent_; }
  void claim();

 private:
  Storage() = default;
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  std::string name_;
  Allocator* allocator_ = nullptr;
  std::function<void()> release_;
  std::shared_ptr<const HostCopy> host_copy_;
  bool lent_ = false;
};

// While a RetainScope is alive on a thread, every Storage allocated there is also kept in
// `list`: a captured CUDA graph keeps replaying into the temporaries its kernels allocated
// during capture, so they must live (and never be handed to anyone else) as long as the graph.
class RetainScope {
 public:
  explicit RetainScope(std::vector<std::shared_ptr<Storage>>* list);
  ~RetainScope();
  RetainScope(const RetainScope&) = delete;
  RetainScope& operator=(const RetainScope&) = delete;

 private:
  std::vector<std::shared_ptr<Storage>>* previous_;
};

}  // namespace glassgrad
