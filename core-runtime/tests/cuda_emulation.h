// Runs CUDA kernels (kernels/cuda/*.cu) on the CPU, so their index arithmetic, tiling, shared
// memory staging and barriers are tested where there is no GPU (CI). A kernel source is
// included after this header and compiled as C++; emulate::launch() then runs the grid:
//   * the blocks one after another, so `__shared__` can be a function-local static (one
//     block's shared memory at a time);
//   * a block's threads as fibers on one OS thread, switched at __syncthreads().
// What it does not model: warps (__shfl_down_sync throws; __shfl_xor_sync works where every
// thread of the block reaches it, see below), memory ordering beyond the barrier, speed,
// and fused multiply-add contraction (nvcc contracts a * b + c; the host compiler may not), so
// float results may differ from the GPU's in the last bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <ucontext.h>
#include <vector>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
struct emu_uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline double2 make_double2(double x, double y) { return double2{x, y}; }

namespace emulate {

inline emu_uint3 t_thread, t_block;
inline dim3 g_block_dim, g_grid_dim;

// The threads of a block are fibers (ucontext) on the calling thread: each runs until it
// reaches __syncthreads() or returns, then the next one runs; a round ends when every thread
// has reached the barrier. Far cheaper than an OS thread per CUDA thread on a small machine.
struct Fibers {
  ucontext_t scheduler;
  std::vector<ucontext_t> ctx;
  std::vector<std::vector<char>> stacks;
  std::vector<char> done;
  unsigned current = 0;
  const std::function<void()>* body = nullptr;
};
inline Fibers& fibers() {
  static Fibers f;
  return f;
}

inline void fiber_entry() {
  Fibers& f = fibers();
  (*f.body)();
  f.done[f.current] = 1;  // returning resumes the scheduler (uc_link)
}

inline void barrier() {
  Fibers& f = fibers();
  swapcontext(&f.ctx[f.current], &f.scheduler);
}

// Runs kernel(args...) over the grid. Argument types must be exactly the kernel's parameter
// types, as for cuLaunchKernel.
template <typename T>
struct Same {
  typedef T type;
};

template <typename... P>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, typename Same<P>::type... args) {
  g_grid_dim = grid;
  g_block_dim = block;
  const unsigned threads = block.x * block.y * block.z;
  Fibers& f = fibers();
  constexpr size_t kStack = 256 * 1024;
  f.ctx.resize(threads);
  f.done.assign(threads, 0);
  while (f.stacks.size() < threads) f.stacks.emplace_back(kStack);
  const std::function<void()> body = [&] { kernel(args...); };
  f.body = &body;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        t_block = emu_uint3{bx, by, bz};
        for (unsigned t = 0; t < threads; ++t) {
          getcontext(&f.ctx[t]);
          f.ctx[t].uc_stack.ss_sp = f.stacks[t].data();
          f.ctx[t].uc_stack.ss_size = kStack;
          f.ctx[t].uc_link = &f.scheduler;
          makecontext(&f.ctx[t], fiber_entry, 0);
          f.done[t] = 0;
        }
        for (bool running = true; running;) {  // one round per barrier
          running = false;
          for (unsigned t = 0; t < threads; ++t) {
            if (f.done[t]) continue;
            f.current = t;
            t_thread = emu_uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            swapcontext(&f.scheduler, &f.ctx[t]);
            running = running || !f.done[t];
          }
          for (unsigned t = 0; t < threads; ++t)
            if (f.done[t] != f.done[0])
              throw std::logic_error("emulated kernel: some threads of a block returned while others wait at a barrier");
        }
      }
  f.body = nullptr;
}

}  // namespace emulate

#define threadIdx emulate::t_thread
#define blockIdx emulate::t_block
#define blockDim emulate::g_block_dim
#define gridDim emulate::g_grid_dim
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict

inline void __syncthreads() { emulate::barrier(); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((uint64_t(a) * b) >> 32); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
using std::fma;
inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
// Round-to-nearest sums, never contracted (the emulation builds with -ffp-contract off).
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __longlong_as_double(long long i) {
  double d;
  std::memcpy(&d, &i, sizeof d);
  return d;
}
// Atomic because a block's threads are fibers of one OS thread that switch only at barriers
// and shuffles, and the blocks run one after another.
template <typename T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <typename T>
T __shfl_down_sync(unsigned, T, int) {
  throw std::logic_error("warp shuffles are not emulated");
}

namespace emulate {
template <typename T>
std::vector<T>& shuffle_slots() {
  static std::vector<T> slots;
  return slots;
}
}  // namespace emulate

// A butterfly shuffle for kernels in which every thread of the block executes the same
// shuffles (uniform control flow, as in attention.cu's row reductions): the block meets as at a
// barrier, each thread posts its value, and after a second meeting reads the value of lane
// (lane ^ lane_mask) of its own warp. Stricter than a warp's implicit synchronization, so a
// kernel that passes here may still need the GPU tests for divergent shuffles.
template <typename T>
T __shfl_xor_sync(unsigned, T v, int lane_mask) {
  emulate::Fibers& f = emulate::fibers();
  std::vector<T>& slots = emulate::shuffle_slots<T>();
  if (slots.size() < f.ctx.size()) slots.resize(f.ctx.size());
  const unsigned t = f.current;
  slots[t] = v;
  emulate::barrier();
  const unsigned src = (t & ~31u) | ((t & 31u) ^ static_cast<unsigned>(lane_mask));
  const T r = src < f.ctx.size() ? slots[src] : v;
  emulate::barrier();
  return r;
}
