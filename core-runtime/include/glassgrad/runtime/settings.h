// The runtime's switches, in one place. Each setting has a setter (the Python API's
// glassgrad.set_fusion, glassgrad.cuda.set_launch_blocking, ...) and a default read once, at
// first use, from an environment variable. docs/architecture.md's "Environment variables"
// table lists every variable glassgrad reads (python-bindings/tests/test_docs.py checks it).
//
//   variable                              setting                         default
//   GLASSGRAD_FUSION=0                    lazy::fusion_enabled()          on
//   GLASSGRAD_CUDA_GRAPHS=0               cuda_graphs_enabled()           on
//   GLASSGRAD_EARLY_READS=0               early_reads_enabled()           on
//   GLASSGRAD_LENT_OUTPUTS=0              lent_outputs_enabled()          on
//   GLASSGRAD_POISON_FREED=1              poison_freed()                  off
//   GLASSGRAD_CUDA_LAUNCH_BLOCKING=1      cuda::launch_blocking()         off (any value but 0: on)
//   GLASSGRAD_CPU_ISA=generic|avx2|avx512 cpu_isa_cap()                   none: cpu_isa() is the best the CPU has
//   GLASSGRAD_CONV_AUTOTUNE=0             cuda::conv_autotune_enabled()   on
//   GLASSGRAD_CONV_FAST_WINOGRAD=1        conv_fast_winograd()            off (float32 error bounded)
//   GLASSGRAD_CONV_TARGET_THREADS=N       read by kernels/cuda/conv.cpp       256 a multiprocessor (its tile heuristic)
//   GLASSGRAD_CUDA_IMAGE=compute_50       cuda::forced_kernel_image()     none: the compute capability picks
//   GLASSGRAD_CUDA_DRIVER_VERSION=550     cuda::forced_driver_version()   none: the driver's own version
//   GLASSGRAD_PARALLEL_LIBRARY=<path>     read by src/parallel.cpp         the search beside the code, then RUNPATH
//   GOMP_SPINCOUNT                        set by src/parallel.cpp before  kGompSpinCount (20000) unless the user set it
//                                         it loads libgomp
#pragma once
#include <string>

namespace glassgrad {

namespace lazy {
// Compile options for realize: fusion of elementwise chains and activations (fusion.h).
void set_fusion(bool on);
bool fusion_enabled();
}  // namespace lazy

// Whole-step CUDA graphs for plans on one CUDA device (Executor).
void set_cuda_graphs(bool on);
bool cuda_graphs_enabled();

// Early host reads (host_copy.h): a small GPU output the host reads is copied as soon as the
// steps writing it ran, and the read waits for that copy only. Off: every read waits for the
// device's whole stream.
void set_early_reads(bool on);
bool early_reads_enabled();

// Lent graph outputs (docs/cuda.md "Lent graph outputs"): a CUDA graph replay returns outputs
// that view the graph's own buffers, copied out only when still alive at the next replay. Off:
// every output of every replay is copied into a buffer of its own.
void set_lent_outputs(bool on);
bool lent_outputs_enabled();

// Deterministic algorithms (glassgrad.use_deterministic_algorithms): the accumulating CUDA
// indexing kernels (scatter_add, index_add, index_put with accumulate, the gradients of gather,
// index_select and indexing) add in index order, one thread per output line, instead of in any
// order with atomics, and the float32 attention backward computes the query gradient in its own
// kernel instead of adding the key blocks' shares with atomics; so they do under
// cuda::deterministic() (glassgrad.backends.cudnn.deterministic).
// Off by default (no environment variable); plans are cached per setting.
void set_deterministic_algorithms(bool on);
bool deterministic_algorithms();

// Debug mode for every executor: poison arena buffers as soon as their lifetime ends (as
// ExecutorOptions::poison_freed).
void set_poison_freed(bool on);
bool poison_freed();

namespace cuda {
// Synchronize after every launch so an asynchronous kernel failure is reported by the launch
// that caused it.
void set_launch_blocking(bool on);
bool launch_blocking();
// The convolutions' plan-time autotuner (kernels/cuda/conv_tuner.cpp): off keeps the heuristics.
void set_conv_autotune(bool on);
bool conv_autotune_enabled();
// Only algorithms whose results are the same bit for bit on every run (no atomics whose order
// varies): glassgrad.backends.cudnn.deterministic. Off by default; no environment variable.
void set_deterministic(bool on);
bool deterministic();
// The embedded kernel image every device loads instead of the one its compute capability picks
// (src/cuda/image_choice.h), e.g. "compute_50": NVRTC's Maxwell PTX on any GPU. "" for none.
std::string forced_kernel_image();
// The driver version the kernel image choice assumes instead of the driver's own ("550", "12.4"
// or "12040"; src/cuda/image_choice.h reads it), to test the CUDA 12 images on a newer driver.
std::string forced_driver_version();
}  // namespace cuda

// Whether float32 convolutions may use Winograd F(4x4, 3x3), the fastest algorithm for 3x3
// stride-1 layers and the one that rounds worst (about 10-20x PyTorch's float32 error). Off (the
// default), every float32 convolution's error stays within the bound docs/numerics.md gives
// (at most 3x PyTorch's on the same shape): F(2x2, 3x3) or a GEMM path instead on the CPU, and
// the CUDA heuristics and autotuner leave F(4x4) out, and the direct float32 input-gradient
// kernels too. float64 convolutions always may use them.
// glassgrad.backends.cudnn.allow_fast_winograd.
void set_conv_fast_winograd(bool on);
bool conv_fast_winograd();

namespace cpu {
// A testing and teaching hook: force the CPU convolutions' algorithm, "auto" (the choice of
// docs/numerics.md), "gemm" (im2col / direct paths), "winograd2" or "winograd4" (F(2x2, 3x3) or
// F(4x4, 3x3) where Winograd applies: 3x3, stride 1; elsewhere the GEMM paths run).
// glassgrad.kernels.set_cpu_conv_algo. Not read from the environment.
void set_conv_algo(const std::string& algo);
std::string conv_algo();
}  // namespace cpu

// The highest CPU instruction set the kernels may use ("generic", "avx2", "avx512"), or "" for
// no cap (cpu_features.h: cpu_isa() takes the lower of this and what the CPU has).
std::string cpu_isa_cap();

}  // namespace glassgrad
