#include "glassgrad/runtime/storage.h"

#include "glassgrad/runtime/allocator.h"

namespace glassgrad {

namespace {
thread_local std::vector<std::shared_ptr<Storage>>* t_retain = nullptr;
}

RetainScope::RetainScope(std::vector<std::shared_ptr<Storage>>* list) : previous_(t_retain) { t_retain = list; }
RetainScope::~RetainScope() { t_retain = previous_; }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, const Device& device, const std::string& name) {
  Allocator& a = allocator_for(device);
  void* p = a.allocate(nbytes, name);
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = p;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->name_ = name;
  s->allocator_ = &a;
  if (t_retain) t_retain->push_back(s);
  return s;
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, const Device& device,
                                       std::function<void()> release, const std::string& name) {
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->name_ = name;
  s->release_ = std::move(release);
  return s;
}

Storage::~Storage() {
  if (allocator_) allocator_->deallocate(data_, nbytes_, name_);
  if (release_) release_();
}

}  // namespace glassgrad
