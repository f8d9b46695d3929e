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
#include <vector>

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

// The buffers of a node's input and output lists and of a value's shape, kept per thread when
// the node or value dies (keep) for the next one made (spare): each was an allocation and a free
// per node and value, served by glibc's slow paths once a step's frees overflowed its per-size
// caches (about 1,600 a ResNet-18 step; docs/performance.md, "The plain loop's host work").
// A buffer waits in the list of its capacity (1 to kSizes - 1 elements: shapes of rank up to 8,
// nodes of up to 8 inputs or outputs; larger ones are freed), at most kMaxSpare of them a list.
// Invariants as the block lists': each thread its own lists, no locks; at thread exit the lists'
// buffers are freed and later keeps on that thread (interpreter teardown) free their buffer.
constexpr size_t kSizes = 9;
constexpr size_t kMaxSpare = size_t{1} << 12;

template <class V>
struct SpareLists {
  // Trivially destructible, so it may be read after the thread's objects with destructors are gone.
  struct Lists {
    std::vector<V>* by_capacity[kSizes];
    bool closed;
  };
  static thread_local Lists lists;
  struct Closer {
    ~Closer() {
      Lists& l = lists;
      for (std::vector<V>*& list : l.by_capacity) {
        delete list;
        list = nullptr;
      }
      l.closed = true;
    }
  };
  static thread_local Closer closer;
};
template <class V>
thread_local typename SpareLists<V>::Lists SpareLists<V>::lists{{}, false};
template <class V>
thread_local typename SpareLists<V>::Closer SpareLists<V>::closer;

// An empty vector with room for n elements: a kept buffer of capacity n when one waits.
template <class V>
V spare(size_t n) {
  if (n > 0 && n < kSizes) {
    std::vector<V>* list = SpareLists<V>::lists.by_capacity[n];
    if (list && !list->empty()) {
      V v = std::move(list->back());
      list->pop_back();
      return v;
    }
  }
  V v;
  v.reserve(n);
  return v;
}

// Empties v (its elements released) and keeps its buffer for spare(); v is left without one.
template <class V>
void keep(V& v) {
  v.clear();
  const size_t n = v.capacity();
  if (n == 0 || n >= kSizes) return;
  typename SpareLists<V>::Lists& l = SpareLists<V>::lists;
  if (l.closed) return;
  std::vector<V>*& list = l.by_capacity[n];
  if (!list) {
    (void)&SpareLists<V>::closer;  // its destructor frees the lists at thread exit
    list = new std::vector<V>();
  }
  if (list->size() >= kMaxSpare) return;
  list->push_back(std::move(v));
}

}  // namespace trace_pool

inline std::shared_ptr<TraceNode> new_node() { return std::allocate_shared<TraceNode>(trace_pool::Allocator<TraceNode>()); }
inline ValuePtr new_value() { return std::allocate_shared<TraceValue>(trace_pool::Allocator<TraceValue>()); }

}  // namespace lazy
}  // namespace glassgrad
