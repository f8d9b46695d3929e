#include "glassgrad/runtime/storage.h"

#include "glassgrad/runtime/allocator.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

namespace {
thread_local std::vector<std::shared_ptr<Storage>>* t_retain = nullptr;
}

RetainScope::RetainScope(std::vector<std::shared_ptr<Storage>>* list) : previous_(t_retain) { t_retain = list; }
RetainScope::~RetainScope() { t_retain = previous_; }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, const Device& device, const std::string& name) {
  Allocator& a = allocator_for(device);
  std::shared_ptr<Storage> s = wrap(a.allocate(nbytes, name), nbytes, device, nullptr, name);
  s->allocator_ = &a;
  if (t_retain) t_retain->push_back(s);
  return s;
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, const Device& device,
                                       std::function<void()> release, const std::string& name) {
  // The storage and its reference counts in one block (make_shared), where `new` and the
  // shared_ptr's counts were two allocations per storage: every computed value's buffer, and on
  // a GPU each lent output of every replay (docs/performance.md, "The plain loop's host work").
  struct Made : Storage {};  // (a local class: Storage's private constructor is this function's to call)
  std::shared_ptr<Storage> s = std::make_shared<Made>();
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->name_ = name;
  s->release_ = std::move(release);
  return s;
}

std::shared_ptr<Storage> Storage::lend(const std::shared_ptr<Storage>& owner, const std::string& name) {
  // The lent storage keeps the owner's memory alive (not counted again: it allocates nothing), so
  // dropping or recapturing the graph never frees memory a lent output still views.
  std::shared_ptr<Storage> s = wrap(owner->data(), owner->nbytes(), owner->device(), [keep = owner] {}, name);
  s->lent_ = true;
  return s;
}

void Storage::claim() {
  if (!lent_) return;
  std::shared_ptr<Storage> own = allocate(nbytes_, device_, name_);
  const Shape bytes{static_cast<int64_t>(nbytes_)};
  const Strides dense{1};
  copy_tensor(Tensor::from_storage(own, bytes, dense, 0, DType::UInt8),
              Tensor::from_storage(std::shared_ptr<Storage>(std::shared_ptr<Storage>(), this), bytes, dense, 0, DType::UInt8));
  // The storages exchange memory; `own` then dies holding the graph's, which it releases.
  std::swap(data_, own->data_);
  std::swap(allocator_, own->allocator_);
  std::swap(release_, own->release_);
  lent_ = false;
}

Storage::~Storage() {
  if (allocator_) allocator_->deallocate(data_, nbytes_, name_);
  if (release_) release_();
}

}  // namespace glassgrad
