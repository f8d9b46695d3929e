// Where trace nodes and values live: new_node() / new_value() make them as std::make_shared
// does (the object and its reference counts in one block), from per-thread free lists of blocks.
//
// A plain loop's step makes and frees a few hundred nodes and values (ResNet-18: about 1200), the
// previous step's graph all at once when its last handle goes. glibc keeps only 7 freed blocks of
// a size per thread at hand; the rest went through its slower free path and were merged again
// at the next large request (malloc_consolidate), a cost paid block by block every step. Here a
// freed block waits on its thread's list for the next node or value of that size.
//
// Invariants: a block freed on another thread than the one that made it joins the freeing
// thread's list (each list is its own thread's: no locks); a list holds at most kMaxFree blocks,
// beyond which blocks go back to the heap; at thread exit a list's blocks go back to the heap
// and later frees on that thread (interpreter teardown) go straight there too. Nothing but the
// block's memory is pooled: a node or value is constructed and destroyed as make_shared's are.
#pragma once
#include <cstddef>
#include <memory>
#include <new>

#include "glassgrad/runtime/lazy.h"

namespace glassgrad {
namespace lazy {
namespace trace_pool {

constexpr size_t kMaxFree = size_t{1} << 13;  // blocks of one size a thread keeps (a few MiB)

struct FreeBlock {
  FreeBlock* next;
};

// Trivially destructible, so it may be read after the thread's objects with destructors are gone.
struct FreeList {
  FreeBlock* head;
  size_t count;
  bool closed;  // the thread is exiting: no more pooling
};

template <size_t Size>
struct Lists {
  static thread_local FreeList list;
  // Hands the list's blocks back at thread exit; constructed on a thread's first allocation.
  struct Closer {
    ~Closer() {
      FreeList& l = list;
      while (l.head) {
        FreeBlock* b = l.head;
        l.head = b->next;
        ::operator delete(b);
      }
      l.count = 0;
      l.closed = true;
    }
  };
  static thread_local Closer closer;
};
template <size_t Size>
thread_local FreeList Lists<Size>::list{nullptr, 0, false};
template <size_t Size>
thread_local typename Lists<Size>::Closer Lists<Size>::closer;

template <class T>
struct Allocator {
  using value_type = T;
  static_assert(sizeof(T) >= sizeof(FreeBlock), "a block must hold the free list's link");
  Allocator() = default;
  template <class U>
  Allocator(const Allocator<U>&) {}  // NOLINT(google-explicit-constructor): allocate_shared rebinds
  T* allocate(size_t n) {
    if (n == 1) {
      FreeList& l = Lists<sizeof(T)>::list;
      if (l.head) {
        FreeBlock* b = l.head;
        l.head = b->next;
        --l.count;
        return reinterpret_cast<T*>(b);
      }
      if (!l.closed) (void)&Lists<sizeof(T)>::closer;  // its destructor empties the list at thread exit
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    FreeList& l = Lists<sizeof(T)>::list;
    if (n != 1 || l.closed || l.count >= kMaxFree) {
      ::operator delete(p);
      return;
    }
    if (!l.head) (void)&Lists<sizeof(T)>::closer;  // a thread that only frees empties its list at exit too
    auto* b = reinterpret_cast<FreeBlock*>(p);
    b->next = l.head;
    l.head = b;
    ++l.count;
  }
  template <class U>
  bool operator==(const Allocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Allocator<U>&) const {
    return false;
  }
};

}  // namespace trace_pool

inline std::shared_ptr<TraceNode> new_node() { return std::allocate_shared<TraceNode>(trace_pool::Allocator<TraceNode>()); }
inline ValuePtr new_value() { return std::allocate_shared<TraceValue>(trace_pool::Allocator<TraceValue>()); }

}  // namespace lazy
}  // namespace glassgrad
