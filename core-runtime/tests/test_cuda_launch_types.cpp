// The typed CUDA interface (kernels/cuda/kernel_interface.h), without a GPU: each kernel's
// parameters are declared once (kernels/cuda/<family>.h) and a launch must match them, checked
// here at compile time through launchable<>() (the compile-fail tests of CMakeLists.txt build
// real bad launches and match the compiler's message).
#include <gtest/gtest.h>

#include <cstring>

#include "cuda/pool.h"

namespace {

using glassgrad::cuda::launchable;
namespace kernels = glassgrad::cuda::kernels;
using Fwd = kernels::gg_maxpool_fwd<float>;        // (GGPool g, T* y, const T* x)
using Bwd = kernels::gg_maxpool_bwd<double>;       // (GGPool g, int relu, T* dx, const T* dy, const T* x)

static_assert(launchable<Fwd, GGPool, float*, const float*>(), "the exact types");
static_assert(launchable<Fwd, GGPool, float*, float*>(), "T* for const T*");
static_assert(launchable<Fwd, GGPool, float*, std::nullptr_t>(), "nullptr for a pointer");
static_assert(!launchable<Fwd, GGPool, void*, const float*>(), "an untyped pointer");
static_assert(!launchable<Fwd, GGPool, double*, const double*>(), "another element type");
static_assert(!launchable<Fwd, GGPool, const float*, const float*>(), "const T* for T*");
static_assert(!launchable<Fwd, GGConv, float*, const float*>(), "another parameter struct");
static_assert(!launchable<Fwd, GGPool, float*>(), "too few arguments");
static_assert(!launchable<Fwd, GGPool, float*, const float*, int>(), "too many arguments");
static_assert(launchable<Bwd, GGPool, int, double*, const double*, const double*>(), "the exact types");
static_assert(launchable<Bwd, GGPool, bool, double*, const double*, const double*>(), "bool widens to int");
static_assert(!launchable<Bwd, GGPool, int64_t, double*, const double*, const double*>(), "int64_t narrows");
static_assert(!launchable<Bwd, GGPool, unsigned, double*, const double*, const double*>(), "unsigned narrows");
static_assert(!launchable<Bwd, GGPool, double, double*, const double*, const double*>(), "double for int");

TEST(CudaLaunchTypes, HandlesNameTheFunctionOfTheirElementType) {
  EXPECT_STREQ(Fwd::name, "gg_maxpool_fwd_f32");
  EXPECT_STREQ(Bwd::name, "gg_maxpool_bwd_f64");
  EXPECT_STREQ(kernels::gg_avgpool_bwd<float>::name, "gg_avgpool_bwd_f32");
}

TEST(CudaLaunchTypes, ArgumentsArePassedAsTheParameterTypes) {
  // A bool for the int parameter is passed as an int (4 bytes), as cuLaunchKernel reads it.
  using Values = glassgrad::cuda::KernelParams<decltype(&Bwd::params)>::Values;
  GGPool g{};
  g.kh = 3;
  double dx = 0, dy = 0, x = 0;
  const Values v(g, true, &dx, &dy, &x);
  int relu = 0;
  std::memcpy(&relu, v.pointers[1], sizeof relu);
  EXPECT_EQ(relu, 1);
  EXPECT_EQ(static_cast<const GGPool*>(v.pointers[0])->kh, 3);
  EXPECT_EQ(*static_cast<double* const*>(v.pointers[2]), &dx);
  EXPECT_EQ(v.pointers[5], nullptr);
}

}  // namespace
