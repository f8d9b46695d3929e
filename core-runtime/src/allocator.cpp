#include "glassgrad/runtime/allocator.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <new>
#include <unordered_map>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/plan.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {

void* Allocator::allocate(size_t bytes, const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.limit != 0 && stats_.current + bytes > stats_.limit) {
      const std::string what = name.empty() ? std::string("a buffer") : "'" + name + "'";
      throw OutOfMemoryError(
          ErrorMessage("memory limit exceeded on " + device_.str() + ": allocating " +
                       format_bytes(bytes) + " for " + what)
              .detail("limit:   " + limit_text_locked())
              .detail("in use:  " + format_bytes(stats_.current) + " (peak " + format_bytes(stats_.peak) + ")")
              .detail("request: " + format_bytes(bytes) + " -> would reach " + format_bytes(stats_.current + bytes))
              .cause("the model, batch and activations need more memory than the limit allows")
              .fix("use a smaller batch, micro-batches, or raise the limit: "
                   "glassgrad.set_memory_limit(\"" + format_bytes(stats_.current + bytes) + "\")")
              .str());
    }
  }
  void* p = bytes == 0 ? nullptr : raw_allocate(bytes);
  if (bytes != 0 && p == nullptr) {
    empty_cache();
    p = raw_allocate(bytes);
  }
  if (bytes != 0 && p == nullptr) {
    throw OutOfMemoryError(ErrorMessage("out of memory on " + device_.str() + ": could not allocate " +
                                        format_bytes(bytes) + " for '" + name + "'")
                               .detail("in use by glassgrad: " + format_bytes(stats().current))
                               .fix("use a smaller batch or micro-batches, or set a memory budget "
                                    "so glassgrad recomputes activations (checkpointing)")
                               .str());
  }
  record(true, bytes, name);
  return p;
}

void Allocator::deallocate(void* ptr, size_t bytes, const std::string& name) noexcept {
  if (ptr) raw_free(ptr, bytes);
  record(false, bytes, name);
}

void Allocator::record(bool is_alloc, size_t bytes, const std::string& name) {
  std::function<void(const AllocationRecord&)> cb;
  AllocationRecord rec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (is_alloc) {
      stats_.current += bytes;
      ++stats_.num_allocs;
      if (stats_.current > stats_.peak) stats_.peak = stats_.current;
    } else {
      stats_.current -= std::min(bytes, stats_.current);
      ++stats_.num_frees;
    }
    if (!logging_) return;
    rec.seq = ++seq_;
    rec.is_alloc = is_alloc;
    rec.bytes = bytes;
    rec.name = name;
    rec.device = device_;
    rec.current_after = stats_.current;
    log_.push_back(rec);
    cb = callback_;
  }
  if (cb) {
    try {
      cb(rec);
    } catch (...) {
      // A failing log callback must never break a free.
    }
  }
}

MemoryStats Allocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  MemoryStats s = stats_;
  s.cached = cached_bytes();
  return s;
}
void Allocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak = stats_.current;
}
size_t Allocator::room_under_limit() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (stats_.limit == 0) return SIZE_MAX;
  return stats_.limit > stats_.current ? stats_.limit - stats_.current : 0;
}
void Allocator::set_limit(size_t bytes, const std::string& as_given) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.limit = bytes;
  limit_as_given_ = bytes ? as_given : std::string();
}
std::string Allocator::limit_str() const {
  std::lock_guard<std::mutex> lock(mu_);
  return limit_text_locked();
}
std::string Allocator::limit_text_locked() const {
  const std::string bytes = format_bytes(stats_.limit);
  if (limit_as_given_.empty() || limit_as_given_ == bytes) return bytes;
  return "glassgrad.set_memory_limit(\"" + limit_as_given_ + "\") = " + bytes;
}
size_t Allocator::limit() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.limit;
}
void Allocator::set_logging(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  logging_ = on;
}
bool Allocator::logging() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logging_;
}
std::vector<AllocationRecord> Allocator::take_log() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AllocationRecord> out;
  out.swap(log_);
  return out;
}
void Allocator::set_log_callback(std::function<void(const AllocationRecord&)> cb) {
  std::lock_guard<std::mutex> lock(mu_);
  callback_ = std::move(cb);
}

namespace {

// Host memory, 64-byte aligned (a cache line; also what AVX-512 loads like), with freed blocks
// kept for reuse. A training step frees and allocates the same sizes every step (the gradients
// zero_grad drops and the step's plan makes again, the input batch, the loss): served from the
// free lists, they skip the C library's allocator (docs/performance.md, "The plain loop's host
// work (issue 34)").
//
// Requests are rounded up to a size class: multiples of 64 B up to 4 KiB, then 8 classes per
// power of two (at most 12.5% lost to rounding). Blocks up to kMaxBlock are kept, at most
// kMaxCached bytes in all, and under a memory limit in use plus kept stays within it (a block
// is kept only where it fits; a new block empties the cache where it would not).
// The cache is reported as MemoryStats::cached; empty_cache() (glassgrad's empty_cache, a new
// memory limit, an allocation that fails) gives it back to the C library. Host memory has no
// stream: a block is free for reuse as soon as its storage is dropped.
size_t cpu_size_class(size_t bytes) {
  if (bytes <= 4096) return (bytes + 63) / 64 * 64;
  size_t top = 4096;
  while (top < bytes) top <<= 1;  // bytes in (top/2, top]
  const size_t step = top / 16;   // 8 classes between top/2 and top
  return (bytes + step - 1) / step * step;
}

class CpuAllocator final : public Allocator {
 public:
  CpuAllocator() : Allocator(Device::cpu()) {}

  void empty_cache() override {
    std::unordered_map<size_t, std::vector<void*>> blocks;
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      blocks.swap(free_);
      cached_ = 0;
    }
    for (auto& kv : blocks)
      for (void* p : kv.second) std::free(p);
  }

 protected:
  void* raw_allocate(size_t bytes) override {
    const size_t cls = cpu_size_class(bytes);
    if (cls > kMaxBlock) return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = free_.find(cls);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= cls;
        return p;
      }
    }
    // A new block: under a limit, the kept ones go back first when in use plus cached would
    // pass it (the base class has checked that the request itself fits).
    const size_t room = room_under_limit();
    if (room != SIZE_MAX && cached_bytes() + cls > room) empty_cache();
    return std::aligned_alloc(64, cls);
  }

  void raw_free(void* ptr, size_t bytes) noexcept override {
    const size_t cls = cpu_size_class(bytes);
    if (cls <= kMaxBlock) {
      // Called before the base class counts the free: `bytes` is still in use.
      const size_t room = room_under_limit();
      std::lock_guard<std::mutex> lock(cache_mu_);
      if (cached_ + cls <= kMaxCached && (room == SIZE_MAX || cached_ + cls <= room + bytes)) {
        try {
          free_[cls].push_back(ptr);
          cached_ += cls;
          return;
        } catch (...) {
          // No room for the list entry: the block goes back to the C library below.
        }
      }
    }
    std::free(ptr);
  }

  size_t cached_bytes() const override {
    std::lock_guard<std::mutex> lock(cache_mu_);
    return cached_;
  }

 private:
  static constexpr size_t kMaxBlock = size_t(64) << 20;
  static constexpr size_t kMaxCached = size_t(256) << 20;
  mutable std::mutex cache_mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> kept blocks
  size_t cached_ = 0;
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<Device, Allocator*>& registry() {
  static std::map<Device, Allocator*> r;
  return r;
}

}  // namespace

Allocator& allocator_for(const Device& d) {
  if (d.is_cpu()) {
    static CpuAllocator* cpu = new CpuAllocator();  // lives for the process: tensors may outlive statics
    return *cpu;
  }
  // The CUDA backend initializes a device on its first use: it registers the device's
  // allocator, or throws DeviceError with the reason the device cannot be used.
  if (d.is_cuda()) cuda::ensure_initialized(d.index);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(d);
  if (it == registry().end()) {
    throw DeviceError(ErrorMessage("no allocator for device " + d.str())
                          .cause("the CUDA backend is not available or not initialized")
                          .fix("check glassgrad.cuda.is_available() and glassgrad.cuda.why_unavailable(), "
                               "or use device='cpu'")
                          .str());
  }
  return *it->second;
}

void register_allocator(const Device& d, Allocator* a) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[d] = a;
}

size_t parse_bytes(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t j = i;
  while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
  std::string num = text.substr(i, j - i);
  std::string unit;
  for (size_t k = j; k < text.size(); ++k) {
    if (!std::isspace(static_cast<unsigned char>(text[k]))) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[k])));
  }
  double mult = -1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb") mult = 1e3;
  else if (unit == "m" || unit == "mb") mult = 1e6;
  else if (unit == "g" || unit == "gb") mult = 1e9;
  else if (unit == "kib") mult = 1024.0;
  else if (unit == "mib") mult = 1024.0 * 1024.0;
  else if (unit == "gib") mult = 1024.0 * 1024.0 * 1024.0;
  char* end = nullptr;
  const double v = num.empty() ? -1 : std::strtod(num.c_str(), &end);
  if (mult < 0 || v < 0 || (end && *end != '\0') || !std::isfinite(v)) {
    throw ValueError(ErrorMessage("cannot read '" + text + "' as a number of bytes")
                         .fix("write it like \"2GB\", \"512MiB\" or 1000000")
                         .str());
  }
  return static_cast<size_t>(std::llround(v * mult));
}

}  // namespace glassgrad
