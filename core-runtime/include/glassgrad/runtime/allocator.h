// Allocators, one per device, with accounting (current and peak bytes), an allocation log that
// can be switched on, and a memory limit that turns an over-limit request into an
// OutOfMemoryError naming the request and the limit. Every byte a tensor, an arena or a
// workspace holds goes through one of these, so memory_report() can be checked against them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct AllocationRecord {
  uint64_t seq = 0;
  bool is_alloc = true;        // false: a free
  size_t bytes = 0;
  std::string name;            // what the buffer holds ("conv1.weight", "arena", ...)
  Device device;
  size_t current_after = 0;    // bytes in use on the device after this event
};

struct MemoryStats {
  size_t current = 0;          // bytes held by live buffers
  size_t peak = 0;             // max of current since the last reset_peak()
  size_t limit = 0;            // 0: no limit
  size_t num_allocs = 0;
  size_t num_frees = 0;
  size_t cached = 0;           // bytes kept by a caching allocator for reuse (not in current)
};

class Allocator {
 public:
  explicit Allocator(Device device) : device_(device) {}
  virtual ~Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Throws OutOfMemoryError when the limit would be exceeded or the device is out of memory.
  void* allocate(size_t bytes, const std::string& name);
  void deallocate(void* ptr, size_t bytes, const std::string& name) noexcept;

  MemoryStats stats() const;
  void reset_peak();
  // 0 removes the limit. `as_given`: the limit as the user wrote it ("64MB"), echoed in messages.
  void set_limit(size_t bytes, const std::string& as_given = "");
  size_t limit() const;
  // The limit for messages: 'glassgrad.set_memory_limit("64MB") = 61.04 MiB', or "61.04 MiB"
  // when it was given as a number of bytes.
  std::string limit_str() const;
  void set_logging(bool on);
  bool logging() const;
  std::vector<AllocationRecord> take_log();  // returns and clears the log
  // Called for every event while logging is on (after it is appended to the log).
  void set_log_callback(std::function<void(const AllocationRecord&)> cb);
  // Releases memory a caching allocator keeps for reuse.
  virtual void empty_cache() {}
  const Device& device() const { return device_; }

 protected:
  virtual void* raw_allocate(size_t bytes) = 0;  // nullptr when the device is out of memory
  virtual void raw_free(void* ptr, size_t bytes) noexcept = 0;
  virtual size_t cached_bytes() const { return 0; }
  // Bytes the memory limit leaves beside the buffers in use (SIZE_MAX without a limit). A
  // caching allocator keeps no more than this, so in use plus cached stays under the limit.
  size_t room_under_limit() const;

 private:
  void record(bool is_alloc, size_t bytes, const std::string& name);
  std::string limit_text_locked() const;  // limit_str() with mu_ held
  Device device_;
  mutable std::mutex mu_;
  MemoryStats stats_;
  std::string limit_as_given_;
  bool logging_ = false;
  uint64_t seq_ = 0;
  std::vector<AllocationRecord> log_;
  std::function<void(const AllocationRecord&)> callback_;
};

// The allocator of a device. CPU always exists; a CUDA allocator exists once the CUDA backend
// is initialized (throws DeviceError with the reason otherwise).
Allocator& allocator_for(const Device& d);
void register_allocator(const Device& d, Allocator* a);  // takes no ownership
// Parses "2GB", "512MiB", "1.5 GiB", "1000000" into bytes; throws ValueError otherwise.
size_t parse_bytes(const std::string& text);

}  // namespace glassgrad
