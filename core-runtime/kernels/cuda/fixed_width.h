// The fixed-width integer types for files that the host compiler, nvcc and NVRTC all read
// (params.h, the kernels). NVRTC has no host headers, so it cannot include <stdint.h>: there
// the same types are declared for LP64 (x86-64 / aarch64 Linux, where int64_t is long), the only
// data model the parameter blocks of params.h are laid out for.
#pragma once
#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long int64_t;
typedef unsigned long uint64_t;
typedef unsigned long uintptr_t;
#else
#include <stdint.h>
#endif
