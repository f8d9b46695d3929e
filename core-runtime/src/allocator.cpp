#include "glassgrad/runtime/allocator.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <new>

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

// Host memory, 64-byte aligned (a cache line; also what AVX-512 loads like).
class CpuAllocator final : public Allocator {
 public:
  CpuAllocator() : Allocator(Device::cpu()) {}

 protected:
  void* raw_allocate(size_t bytes) override {
    const size_t rounded = (bytes + 63) / 64 * 64;
    return std::aligned_alloc(64, rounded);
  }
  void raw_free(void* ptr, size_t) noexcept override { std::free(ptr); }
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
