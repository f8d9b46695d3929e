// Page-locked ("pinned") host memory: CPU tensors whose pages stay resident, so the GPU reads
// them by DMA. A host-to-device copy from pinned memory is asynchronous: the host queues it and
// goes on (the DataLoader prepares the next batch meanwhile) while the GPU copies in order on the
// device's stream; from ordinary memory the driver first stages the bytes and the host waits.
//
// Blocks come from the CUDA driver (cuMemHostAlloc) and are cached: a freed block is handed out
// again only after every asynchronous copy that read it has finished (an event recorded after
// each such copy), so a tensor may die while its copy is still in flight.
#pragma once
#include <cstddef>
#include <string>

#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Whether pinned memory can be allocated (a CUDA driver and a GPU are usable).
bool pinned_memory_available();

// A dense CPU tensor in pinned memory. Throws DeviceError (with the reason) when no CUDA driver
// is usable, OutOfMemoryError when the driver cannot lock that much memory.
Tensor empty_pinned(const Shape& shape, DType dtype, const std::string& name = "");

// A host tensor to fill with data bound for `target` and copy there (NumPy data for a GPU): pinned
// when the target is a GPU and the data is batch-sized (at most kStagedBytes), so the copy is
// queued and the host goes on; ordinary memory otherwise (a CPU target, a whole data set uploaded
// once, whose pinned block the cache would keep, or memory that cannot be locked now).
constexpr size_t kStagedBytes = size_t{64} << 20;
Tensor host_staging(const Shape& shape, DType dtype, const Device& target, const std::string& name = "");

// Whether t's storage lies in a pinned block of this allocator or in a registered range.
bool is_pinned(const Tensor& t);

// Page-locks [host, host + bytes) in place (cuMemHostRegister; host page-aligned, such as a
// shared-memory mapping a DataLoader worker writes its batches into), so tensors over it are
// pinned: copies from it are asynchronous and tracked as a pinned block's (a later write must
// first wait_pinned_reads). Returns false, locking nothing, when the driver cannot (no usable GPU,
// no cuMemHostRegister, or the system refuses to lock the pages).
bool register_pinned_range(void* host, size_t bytes);
// Waits for the copies that read the range registered at `host`, then unlocks it. Does nothing for
// an address that starts no registered range.
void unregister_pinned_range(void* host);

struct PinnedMemoryStats {
  int64_t blocks = 0;          // blocks held (in use and cached)
  int64_t bytes_in_use = 0;    // bytes of blocks that tensors hold
  int64_t bytes_cached = 0;    // bytes of freed blocks kept for reuse
  int64_t allocations = 0;     // cuMemHostAlloc calls so far
};
PinnedMemoryStats pinned_memory_stats();

// Returns the cached blocks whose copies have finished to the driver.
void empty_pinned_cache();

// Waits until every asynchronous copy queued so far that reads the pinned block (or registered
// range) holding `host` has finished; returns at once for memory that is not pinned or has no
// copy in flight. Every write glassgrad makes into host memory that a copy may still read calls it
// first: a realize that updates a CPU tensor in place, a NumPy view of a CPU tensor, a DataLoader
// slot handed back to its worker (docs/data-loading.md, "Copies to the GPU").
void wait_pinned_reads(const void* host);

namespace cuda {
// Called by the CUDA copy after it queued an asynchronous copy on `stream` that reads the host
// memory at `host`: when that memory is a pinned block, the block is not reused before the copy
// has finished. Returns whether it was pinned (else the copy was from pageable memory, which the
// driver staged before returning).
bool note_pinned_read(const void* host, void* stream);
}  // namespace cuda

}  // namespace glassgrad
