// The typed interface between the CUDA kernels and their launchers. A family's kernels are the
// rows of a table in kernels/cuda/<family>.h, which <family>.cu (the kernels) and <family>.cpp
// (their launchers) both include; each kernel's name and parameter list are written once, there:
//
//   #define GG_POOL_KERNELS(K)
//     K(gg_maxpool_fwd, Float, GG_NO_BOUNDS, (GGPool g, T* y, const T* x), gg_pool::max_fwd<T>(g, y, x))
//   GG_DECLARE_KERNELS(GG_POOL_KERNELS)
//
//   Name    the CUDA function's name; with a dtype set, one function per element type: Name_f32,
//           Name_f64, Name_i64, Name_u8 (the suffixes of kname(); bool tensors use the u8 one)
//   DTypes  None (one function Name; its parameters name no T), F32 (float), Float (float,
//           double), FloatI64 (+ int64_t), Numeric (+ unsigned char)
//   Bounds  GG_NO_BOUNDS, or GG_BOUNDS(threads) / GG_BOUNDS(threads, min blocks): __launch_bounds__
//   Params  the parameter list; T is the element type
//   Body    the kernel's body: a call of the family's device code with the parameters (the last
//           column, so template arguments in it may hold commas)
//
// Device side: <family>.cu, after its device code, writes GG_DEFINE_KERNELS(GG_POOL_KERNELS),
// which defines every row as an extern "C" __global__ function (declared at file scope too, as
// the emulated tests call them).
// Host side: GG_DECLARE_KERNELS declares, per row, the handle glassgrad::cuda::kernels::Name<T>
// (Name for None rows) that launch<K>() takes (src/cuda/launch.h): the function's name and its
// parameter types. A launch whose arguments do not convert to the parameters without narrowing
// (or, for a struct parameter, are not that struct), or that passes another number of them,
// does not compile. <family>.cpp writes GG_KERNEL_NAMES(GG_POOL_KERNELS) once, registering every
// function's name with the runtime (cuda/functions.h), so the names the fatbin holds and the
// names the runtime may load come from the same rows.
//
// Read by nvcc, by NVRTC (no host headers: the host part below is compiled by the host compiler
// only) and by the host compiler (the launchers, and the emulated kernel tests).
#pragma once

#define GG_NO_BOUNDS
#define GG_BOUNDS(...) __launch_bounds__(__VA_ARGS__)

// ---- device side: the definitions -------------------------------------------------------------
// (The Body is the rows' last, variadic, column: template arguments in it may hold commas.)
#define GG_DEFINE_KERNELS(TABLE) TABLE(GG_DEFINE_KERNEL_ROW)
#define GG_DEFINE_KERNEL_ROW(Name, DTypes, Bounds, Params, ...) GG_DEFINE_##DTypes(Name, Bounds, Params, __VA_ARGS__)
// One function per element type, inside a namespace where T is that type.
#define GG_DEFINE_TYPED(Name, Bounds, Params, suffix, Type, ...)                      \
  namespace gg_kernels_##suffix {                                                     \
  typedef Type T;                                                                     \
  extern "C" __global__ void Bounds Name##_##suffix Params { __VA_ARGS__; }           \
  }                                                                                   \
  using gg_kernels_##suffix::Name##_##suffix;
#define GG_DEFINE_None(Name, Bounds, Params, ...) \
  extern "C" __global__ void Bounds Name Params { __VA_ARGS__; }
#define GG_DEFINE_F32(Name, Bounds, Params, ...) GG_DEFINE_TYPED(Name, Bounds, Params, f32, float, __VA_ARGS__)
#define GG_DEFINE_Float(Name, Bounds, Params, ...) \
  GG_DEFINE_F32(Name, Bounds, Params, __VA_ARGS__) GG_DEFINE_TYPED(Name, Bounds, Params, f64, double, __VA_ARGS__)
#define GG_DEFINE_FloatI64(Name, Bounds, Params, ...) \
  GG_DEFINE_Float(Name, Bounds, Params, __VA_ARGS__) GG_DEFINE_TYPED(Name, Bounds, Params, i64, int64_t, __VA_ARGS__)
#define GG_DEFINE_Numeric(Name, Bounds, Params, ...)      \
  GG_DEFINE_FloatI64(Name, Bounds, Params, __VA_ARGS__) \
  GG_DEFINE_TYPED(Name, Bounds, Params, u8, unsigned char, __VA_ARGS__)

// ---- the functions' names -----------------------------------------------------------------------
#define GG_KERNEL_NAME_ROW(Name, DTypes, Bounds, Params, ...) GG_NAMES_##DTypes(Name)
#define GG_NAMES_None(Name) #Name,
#define GG_NAMES_F32(Name) #Name "_f32",
#define GG_NAMES_Float(Name) GG_NAMES_F32(Name) #Name "_f64",
#define GG_NAMES_FloatI64(Name) GG_NAMES_Float(Name) #Name "_i64",
#define GG_NAMES_Numeric(Name) GG_NAMES_FloatI64(Name) #Name "_u8",
// In a launcher file: registers the table's function names (cuda/functions.h).
#define GG_KERNEL_NAMES(TABLE) \
  static const ::glassgrad::cuda::FunctionNames gg_kernel_names_##TABLE({TABLE(GG_KERNEL_NAME_ROW)});

// ---- host side: the handles launch<K>() takes ---------------------------------------------------
#if defined(__CUDACC__)
#define GG_DECLARE_KERNELS(TABLE)
#else
#include <cstdint>
#include <tuple>
#include <type_traits>

#define GG_DECLARE_KERNELS(TABLE)  \
  namespace glassgrad {            \
  namespace cuda {                 \
  namespace kernels {              \
  TABLE(GG_DECLARE_KERNEL_ROW)     \
  }                                \
  }                                \
  }
#define GG_DECLARE_KERNEL_ROW(Name, DTypes, Bounds, Params, ...) GG_DECLARE_##DTypes(Name, Params)
#define GG_DECLARE_TYPED(Name, Params, suffix, Type)      \
  template <>                                             \
  struct Name<Type> {                                     \
    typedef Type T;                                       \
    static constexpr const char* name = #Name "_" #suffix; \
    static void params Params;                            \
  };
#define GG_DECLARE_None(Name, Params)             \
  struct Name {                                   \
    static constexpr const char* name = #Name;    \
    static void params Params;                    \
  };
#define GG_DECLARE_F32(Name, Params) \
  template <typename T>              \
  struct Name;                       \
  GG_DECLARE_TYPED(Name, Params, f32, float)
#define GG_DECLARE_Float(Name, Params) GG_DECLARE_F32(Name, Params) GG_DECLARE_TYPED(Name, Params, f64, double)
#define GG_DECLARE_FloatI64(Name, Params) \
  GG_DECLARE_Float(Name, Params) GG_DECLARE_TYPED(Name, Params, i64, int64_t)
#define GG_DECLARE_Numeric(Name, Params) \
  GG_DECLARE_FloatI64(Name, Params) GG_DECLARE_TYPED(Name, Params, u8, unsigned char)

namespace glassgrad {
namespace cuda {

// Argument A may be passed for kernel parameter P: P{a} compiles (so no narrowing: an int64_t
// for an int, a double for a float, a void* or another element type for a T*, all fail), and a
// struct parameter takes that very struct (not an aggregate built from its first member).
template <typename P, typename A, typename = void>
struct ArgumentFits : std::false_type {};
template <typename P, typename A>
struct ArgumentFits<P, A, std::void_t<decltype(P{std::declval<const A&>()})>>
    : std::bool_constant<!std::is_class<P>::value || std::is_same<P, A>::value> {};

// A kernel's parameters (from its handle's `params` declaration) and the arguments of a launch.
template <typename Signature>
struct KernelParams;
template <typename... P>
struct KernelParams<void (*)(P...)> {
  template <typename... A>
  static constexpr bool count_fits() {
    return sizeof...(A) == sizeof...(P);
  }
  template <typename... A>
  static constexpr bool types_fit() {
    if constexpr (sizeof...(A) != sizeof...(P)) {
      return true;  // count_fits() reports it
    } else {
      return (ArgumentFits<P, A>::value && ...);
    }
  }
  // The arguments converted to the parameter types, and their addresses (cuLaunchKernel's
  // kernelParams; one entry more, so that a kernel without parameters has an array too).
  struct Values {
    std::tuple<P...> values;
    void* pointers[sizeof...(P) + 1];
    template <typename... A>
    explicit Values(const A&... args) : values(args...) {
      std::apply([this](auto&... v) {
        int i = 0;
        ((pointers[i++] = static_cast<void*>(&v)), ...);
        pointers[i] = nullptr;
      }, values);
    }
    Values(const Values&) = delete;
    Values& operator=(const Values&) = delete;
  };
};

// The checks of a launch of kernel K with arguments A..., as compile errors that name K.
template <typename K, typename... A>
constexpr bool check_launch() {
  using Params = KernelParams<decltype(&K::params)>;
  static_assert(Params::template count_fits<A...>(),
                "CUDA launch: the number of arguments differs from the kernel's parameter list "
                "(declared once in kernels/cuda/<family>.h)");
  static_assert(Params::template types_fit<A...>(),
                "CUDA launch: an argument does not convert to the kernel's parameter type without "
                "narrowing (see the parameter list in kernels/cuda/<family>.h)");
  return Params::template count_fits<A...>() && Params::template types_fit<A...>();
}

// True when kernel K can be launched with arguments of types A... (for tests).
template <typename K, typename... A>
constexpr bool launchable() {
  using Params = KernelParams<decltype(&K::params)>;
  return Params::template count_fits<A...>() && Params::template types_fit<A...>();
}

}  // namespace cuda
}  // namespace glassgrad
#endif
