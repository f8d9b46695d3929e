// Conv2D and its backward kernels against the naive formulas, on many random small geometries:
// every pixel layout (pointwise, flat, same-width, general), the direct and dot paths, kernels
// as large as the padded input, strides larger than the kernel, asymmetric padding, dilation,
// groups (depthwise among them). Meant to
// be run under AddressSanitizer too: the fast paths index with shifted runs and spill vector
// stores, and an off-by-one there writes outside a buffer without changing a value.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cpu/conv_geometry.h"
#include "cpu/conv_winograd.h"
#include "cpu/im2col_panels.h"
#include "glassgrad/runtime/eager.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/settings.h"
#include "glassgrad/runtime/tensor.h"

using namespace glassgrad;

namespace {

struct Geom {
  int64_t n, c, h, w, k, r, s, sh, sw, pt, pb, pl, pr;
  int64_t dh = 1, dw = 1, groups = 1;
  int64_t ho() const { return (h + pt + pb - dh * (r - 1) - 1) / sh + 1; }
  int64_t wo() const { return (w + pl + pr - dw * (s - 1) - 1) / sw + 1; }
  int64_t cg() const { return c / groups; }
  std::string str() const {
    return "x[" + std::to_string(n) + "," + std::to_string(c) + "," + std::to_string(h) + "," + std::to_string(w) +
           "] w[" + std::to_string(k) + "," + std::to_string(c) + "," + std::to_string(r) + "," + std::to_string(s) +
           "] stride " + std::to_string(sh) + "x" + std::to_string(sw) + " pad " + std::to_string(pt) + "," +
           std::to_string(pb) + "," + std::to_string(pl) + "," + std::to_string(pr) + " dilation " + std::to_string(dh) +
           "x" + std::to_string(dw) + " groups " + std::to_string(groups);
  }
};

template <typename T>
Tensor random_tensor(const Shape& shape, std::mt19937& gen) {
  Tensor t = Tensor::empty(shape, sizeof(T) == 4 ? DType::Float32 : DType::Float64);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(u(gen));
  return t;
}

// x value at (n, c, h, v), 0 outside the image.
template <typename T>
double at(const Tensor& x, const Geom& g, int64_t n, int64_t c, int64_t h, int64_t v) {
  if (h < 0 || h >= g.h || v < 0 || v >= g.w) return 0.0;
  return static_cast<double>(x.data<T>()[((n * g.c + c) * g.h + h) * g.w + v]);
}

// Within tol of the value, plus a few ulps of `mag` (the sum of the magnitudes of the summed
// terms): a sum that cancels (a weight gradient over thousands of pixels) keeps the rounding
// error of its terms, amplified a little more by Winograd's transforms than by a plain GEMM.
template <typename T>
void expect_close(const Tensor& got, const std::vector<double>& want, const std::vector<double>& mag,
                  const std::string& what) {
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-11, ulps = sizeof(T) == 4 ? 1e-6 : 1e-14;
  const T* p = got.data<T>();
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(static_cast<double>(p[i]), want[i], tol * (1 + std::fabs(want[i])) + ulps * mag[i])
        << what << " at flat index " << i;
  }
}

template <typename T>
void check_geometry(const Geom& g, std::mt19937& gen, bool bias) {
  const int64_t ho = g.ho(), wo = g.wo();
  const Tensor x = random_tensor<T>({g.n, g.c, g.h, g.w}, gen);
  const int64_t cg = g.cg(), kg = g.k / g.groups;
  const Tensor w = random_tensor<T>({g.k, cg, g.r, g.s}, gen);
  const Tensor b = random_tensor<T>({g.k}, gen);
  const Tensor gy = random_tensor<T>({g.n, g.k, ho, wo}, gen);
  Attrs conv{{"stride", std::vector<int64_t>{g.sh, g.sw}}, {"padding", std::vector<int64_t>{g.pt, g.pb, g.pl, g.pr}}};
  if (g.dh != 1 || g.dw != 1) conv.set("dilation", std::vector<int64_t>{g.dh, g.dw});
  if (g.groups != 1) conv.set("groups", g.groups);
  const T* wp = w.data<T>();
  const T* gp = gy.data<T>();
  auto wat = [&](int64_t k, int64_t c, int64_t r, int64_t s) { return static_cast<double>(wp[((k * cg + c) * g.r + r) * g.s + s]); };

  std::vector<double> y(static_cast<size_t>(g.n * g.k * ho * wo), 0.0);
  std::vector<double> dx(static_cast<size_t>(g.n * g.c * g.h * g.w), 0.0);
  std::vector<double> dw(static_cast<size_t>(g.k * cg * g.r * g.s), 0.0);
  std::vector<double> ymag(y.size(), 0.0), dxmag(dx.size(), 0.0), dwmag(dw.size(), 0.0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t k = 0; k < g.k; ++k)
      for (int64_t i = 0; i < ho; ++i)
        for (int64_t j = 0; j < wo; ++j) {
          const size_t yi = static_cast<size_t>(((n * g.k + k) * ho + i) * wo + j);
          double acc = bias ? static_cast<double>(b.data<T>()[k]) : 0.0;
          const double gv = static_cast<double>(gp[yi]);
          for (int64_t cl = 0; cl < cg; ++cl)  // input channel c of k's group
            for (int64_t r = 0; r < g.r; ++r)
              for (int64_t s = 0; s < g.s; ++s) {
                const int64_t c = k / kg * cg + cl;
                const int64_t h = i * g.sh + r * g.dh - g.pt, v = j * g.sw + s * g.dw - g.pl;
                const double xv = at<T>(x, g, n, c, h, v), wv = wat(k, cl, r, s);
                const size_t wi = static_cast<size_t>(((k * cg + cl) * g.r + r) * g.s + s);
                acc += xv * wv;
                ymag[yi] += std::fabs(xv * wv);
                dw[wi] += gv * xv;
                dwmag[wi] += std::fabs(gv * xv);
                if (h >= 0 && h < g.h && v >= 0 && v < g.w) {
                  const size_t xi = static_cast<size_t>(((n * g.c + c) * g.h + h) * g.w + v);
                  dx[xi] += gv * wv;
                  dxmag[xi] += std::fabs(gv * wv);
                }
              }
          y[yi] = acc;
        }

  std::vector<Tensor> fin = {x, w};
  if (bias) fin.push_back(b);
  expect_close<T>(run_op("Conv2D", fin, conv)[0], y, ymag, "Conv2D " + g.str());
  Attrs bi = conv;
  bi.set("input_shape", std::vector<int64_t>{g.n, g.c, g.h, g.w});
  expect_close<T>(run_op("Conv2DBackwardInput", {gy, w}, bi)[0], dx, dxmag, "Conv2DBackwardInput " + g.str());
  Attrs bw = conv;
  bw.set("weight_shape", std::vector<int64_t>{g.k, cg, g.r, g.s});
  expect_close<T>(run_op("Conv2DBackwardWeight", {x, gy}, bw)[0], dw, dwmag, "Conv2DBackwardWeight " + g.str());
}

Geom random_geometry(std::mt19937& gen) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  for (;;) {
    Geom g{};
    g.n = pick(1, 3);
    // Mostly few channels (direct and dot paths), sometimes enough for the GEMM tiles.
    g.c = pick(0, 3) == 0 ? pick(6, 40) : pick(1, 4);
    g.k = pick(1, 12);
    g.r = pick(1, 4), g.s = pick(1, 4);
    g.h = pick(1, 12), g.w = pick(1, 12);
    g.sh = pick(1, 3), g.sw = pick(0, 2) ? 1 : pick(2, 3);
    const int64_t pad = pick(0, 2);
    if (pad == 0) {
      g.pt = g.pb = g.pl = g.pr = 0;
    } else if (pad == 1) {  // "same" at stride 1 when the kernel is odd
      g.pt = (g.r - 1) / 2, g.pb = g.r / 2, g.pl = (g.s - 1) / 2, g.pr = g.s / 2;
    } else {
      g.pt = pick(0, 3), g.pb = pick(0, 3), g.pl = pick(0, 3), g.pr = pick(0, 3);
    }
    // Sometimes dilated, sometimes grouped (depthwise: one input channel per group).
    if (pick(0, 3) == 0) g.dh = pick(1, 3), g.dw = pick(1, 3);
    const int64_t grouping = pick(0, 5);
    if (grouping == 0) {
      g.groups = g.c;  // depthwise, K = multiplier * C
      g.k = g.c * pick(1, 2);
    } else if (grouping == 1) {
      g.groups = pick(2, 3);
      g.c = g.groups * pick(1, 5);
      g.k = g.groups * pick(1, 4);
    }
    if (g.h + g.pt + g.pb >= g.dh * (g.r - 1) + 1 && g.w + g.pl + g.pr >= g.dw * (g.s - 1) + 1) return g;
  }
}

TEST(Conv2DKernels, MatchNaiveFormulasOnRandomSmallGeometriesFloat64) {
  std::mt19937 gen(2024);
  for (int t = 0; t < 400; ++t) check_geometry<double>(random_geometry(gen), gen, t % 2 == 0);
}

TEST(Conv2DKernels, MatchNaiveFormulasOnRandomSmallGeometriesFloat32) {
  std::mt19937 gen(7);
  for (int t = 0; t < 400; ++t) check_geometry<float>(random_geometry(gen), gen, t % 3 == 0);
}

TEST(Conv2DKernels, MatchNaiveFormulasOnTheSimpleCnnAndBenchmarkShapes) {
  std::mt19937 gen(11);
  // Large enough for the threaded paths (images over slots, partial dw sums).
  check_geometry<float>({8, 1, 28, 28, 16, 3, 3, 1, 1, 0, 0, 0, 0}, gen, true);
  check_geometry<float>({8, 16, 13, 13, 32, 3, 3, 1, 1, 0, 0, 0, 0}, gen, true);
  check_geometry<float>({4, 16, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1}, gen, false);
  check_geometry<double>({3, 5, 17, 19, 7, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<float>({1, 20, 33, 33, 24, 3, 3, 1, 1, 1, 1, 1, 1}, gen, false);
}

// ResNet's stride-2 convs at 16x16 outputs: several images side by side in one GEMM, as many as
// fill its NR-wide tiles (conv.cpp, images_per_gemm: 2 here), with a last batch of fewer; im2col's
// vector gather at stride 2 on even and odd output widths.
TEST(Conv2DKernels, MatchNaiveFormulasOnStrideTwoBatchedShapes) {
  std::mt19937 gen(31);
  check_geometry<float>({4, 8, 32, 32, 12, 1, 1, 2, 2, 0, 0, 0, 0}, gen, true);
  check_geometry<float>({5, 6, 32, 32, 16, 3, 3, 2, 2, 1, 1, 1, 1}, gen, false);
  check_geometry<float>({4, 7, 31, 29, 9, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<double>({4, 6, 32, 32, 10, 1, 1, 2, 2, 0, 0, 0, 0}, gen, false);
  // The forward's im2col gathered into the GEMM's panels (conv.cpp, im2col_panels: output rows
  // of at most 8): layer4.0's 4x4 outputs, 12 images a GEMM and a last batch of one; stride 3;
  // one image of 300 x 8 output pixels, more columns than one panel holds (NC = 2048 on AVX-512,
  // 1024 in float64), so panels start inside an image.
  check_geometry<float>({13, 9, 8, 8, 10, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<double>({3, 5, 20, 17, 6, 3, 3, 3, 3, 1, 1, 1, 1}, gen, true);
  // (Odd widths: even ones run by tap groups, below.)
  check_geometry<float>({1, 2, 600, 15, 5, 3, 3, 2, 2, 1, 1, 1, 1}, gen, false);
  check_geometry<double>({2, 2, 600, 15, 5, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
}

// The 3x3 stride-2 convs whose padding taps are all at the top and left (even H and W) run
// forward and weight gradient as one GEMM per tap group over only the pixels it reaches
// (conv_pad_classes.h): several images a GEMM and a last batch of fewer, 2x2 outputs (classes
// of one pixel each), non-square images, no bottom/right padding, enough images for several
// slots (partial dw sums); a grouped conv of the same shape keeps the im2col GEMM.
TEST(Conv2DKernels, PadClassesMatchNaiveFormulas) {
  std::mt19937 gen(41);
  check_geometry<float>({5, 7, 10, 12, 9, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<double>({3, 6, 4, 4, 5, 3, 3, 2, 2, 1, 1, 1, 1}, gen, false);
  check_geometry<double>({4, 11, 16, 6, 7, 3, 3, 2, 2, 1, 0, 1, 0}, gen, true);
  check_geometry<float>({13, 9, 8, 8, 10, 3, 3, 2, 2, 1, 1, 1, 1}, gen, false);
  check_geometry<float>({2, 3, 600, 16, 5, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<float>({37, 16, 16, 16, 24, 3, 3, 2, 2, 1, 1, 1, 1}, gen, true);
  check_geometry<double>({9, 64, 8, 8, 52, 3, 3, 2, 2, 1, 1, 1, 1}, gen, false);
  Geom grouped{4, 8, 8, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1};
  grouped.groups = 2;
  check_geometry<float>(grouped, gen, true);
}

// Weight gradients whose output channels fill the GEMM's tiles better than C*R*S does run the
// transposed product dw^T = col x gy^T (conv.cpp, weight_transposed): 1x1 with C = 52 and K = 48
// (float32 and float64 alike), general (stride 2, batched) and pointwise layouts, one slot and
// several (partial sums).
TEST(Conv2DKernels, TransposedWeightGradientMatchesNaiveFormulas) {
  std::mt19937 gen(37);
  check_geometry<float>({3, 52, 12, 12, 48, 1, 1, 2, 2, 0, 0, 0, 0}, gen, false);
  check_geometry<double>({2, 52, 8, 7, 48, 1, 1, 1, 1, 0, 0, 0, 0}, gen, false);
  check_geometry<float>({8, 52, 32, 32, 48, 1, 1, 2, 2, 0, 0, 0, 0}, gen, false);
  check_geometry<double>({9, 52, 32, 32, 48, 1, 1, 2, 2, 0, 0, 0, 0}, gen, false);
  check_geometry<float>({5, 52, 9, 9, 48, 1, 1, 1, 1, 0, 0, 0, 0}, gen, false);
}

// A window covering the whole unpadded input is one GEMM over the batch (conv_dense.h): DCGAN's
// discriminator head (K = 1: the forward by row dots) and its first generator layer's adjoint
// (K = 100, threaded sizes), a 3x3 image that would otherwise take Winograd, a non-square window
// at a stride that has no effect, and float64.
TEST(Conv2DKernels, DenseWindowMatchesNaiveFormulas) {
  std::mt19937 gen(41);
  check_geometry<float>({16, 128, 4, 4, 1, 4, 4, 1, 1, 0, 0, 0, 0}, gen, true);
  check_geometry<float>({17, 67, 4, 4, 100, 4, 4, 1, 1, 0, 0, 0, 0}, gen, true);
  check_geometry<float>({5, 9, 3, 3, 9, 3, 3, 1, 1, 0, 0, 0, 0}, gen, false);
  check_geometry<float>({3, 5, 3, 2, 7, 3, 2, 2, 3, 0, 0, 0, 0}, gen, true);
  check_geometry<double>({9, 13, 4, 4, 30, 4, 4, 1, 1, 0, 0, 0, 0}, gen, true);
}

// The strided row gather of im2col at every length up to a few vectors: the right values, and
// (under AddressSanitizer) no read past src[(n - 1) * stride], the last element it needs, or past
// the `readable` values the caller allows beyond it (the rest of an image row).
TEST(Conv2DKernels, StridedGatherReadsOnlyWhatItCopies) {
  for (int64_t stride : {1, 2, 3}) {
    for (int64_t n = 0; n <= 21; ++n) {
      for (int64_t extra : {-1, 0, 1, 7}) {  // -1: readable left at its default
        const int64_t len = n == 0 ? 0 : (n - 1) * stride + 1;
        std::vector<float> src(static_cast<size_t>(len + std::max<int64_t>(extra, 0)));
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;
        std::vector<float> dst(static_cast<size_t>(n), -1.0f);
        if (extra < 0) {
          cpu::gather_strided(dst.data(), src.data(), n, stride);
        } else {
          cpu::gather_strided(dst.data(), src.data(), n, stride, len + extra);
        }
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(dst[static_cast<size_t>(j)], static_cast<float>(j * stride) + 0.5f)
              << "stride " << stride << " n " << n << " readable past the last " << extra;
      }
    }
  }
}

// im2col gathered into the GEMM's packed panels (im2col_panels.h): every panel (any rows pc ..
// pc+kc, columns j0 .. j0+nc, sliver width nr) equals the packed im2col matrix of the batch, to
// the bit, on random strided geometries (strides 2-4, dilation, asymmetric padding, images not
// contiguous, panel rows of more runs than one window); im2col_planes, the stored matrix from the
// same planes, equals im2col, and col2im_planes equals col2im. Exact-size buffers, for
// AddressSanitizer.
TEST(Conv2DKernels, Im2colPanelsEqualThePackedIm2colMatrix) {
  std::mt19937 gen(41);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  int checked = 0;
  while (checked < 3000) {
    const int64_t side = pick(0, 4) == 0 ? 40 : 13;  // sometimes more runs a panel row than one window (kRuns)
    Geom t{1, pick(1, 3), pick(1, side), pick(1, side), 1, pick(1, 5), pick(1, 5), pick(1, 4), pick(1, 4),
           pick(0, 4), pick(0, 4), pick(0, 4), pick(0, 4)};
    t.dh = pick(1, 3), t.dw = pick(1, 3);
    if (t.h + t.pt + t.pb < t.dh * (t.r - 1) + 1 || t.w + t.pl + t.pr < t.dw * (t.s - 1) + 1) continue;
    Attrs a{{"stride", std::vector<int64_t>{t.sh, t.sw}}, {"padding", std::vector<int64_t>{t.pt, t.pb, t.pl, t.pr}},
            {"dilation", std::vector<int64_t>{t.dh, t.dw}}};
    const cpu::ConvGeometry g = cpu::conv_geometry({1, t.c, t.h, t.w}, {1, t.c, t.r, t.s}, a);
    if (!cpu::im2col_by_planes(g)) continue;
    const int64_t images = pick(1, 3), stride = g.c * g.hw() + pick(0, 5), n = images * g.hwo(), k = g.crs();
    std::vector<float> x(static_cast<size_t>(images * stride));
    for (auto& v : x) v = static_cast<float>(pick(1, 1000));
    std::vector<float> col(static_cast<size_t>(k * n));
    for (int64_t i = 0; i < images; ++i) cpu::im2col(g, x.data() + i * stride, col.data() + i * g.hwo(), n);
    // The stored matrix built from the same planes (the weight gradient's im2col_planes).
    std::vector<float> by_planes(col.size(), -9.0f), planes(static_cast<size_t>(images * cpu::PhasePlanes(g).elems(g)));
    cpu::im2col_planes(g, x.data(), stride, images, by_planes.data(), n, planes.data());
    ASSERT_EQ(by_planes, col) << t.str() << " images " << images;
    // col2im through the planes (the input gradient's col2im_planes) against col2im, to the bit.
    std::vector<float> dx(x.size(), -9.0f), dx_planes(x.size(), -9.0f), col_copy = col;
    for (int64_t i = 0; i < images; ++i) cpu::col2im(g, col_copy.data() + i * g.hwo(), dx.data() + i * stride, n);
    cpu::col2im_planes(g, col.data(), n, images, dx_planes.data(), stride, planes.data());
    for (int64_t i = 0; i < images; ++i)
      for (int64_t e = 0; e < g.c * g.hw(); ++e)
        ASSERT_EQ(dx_planes[static_cast<size_t>(i * stride + e)], dx[static_cast<size_t>(i * stride + e)]) << t.str();
    const int64_t nr = std::vector<int64_t>{1, 3, 4, 8, 16, 48}[static_cast<size_t>(pick(0, 5))];
    const int64_t pc = pick(0, k - 1), kc = pick(1, k - pc), j0 = pick(0, n - 1), nc = pick(1, n - j0);
    const int64_t slivers = (nc + nr - 1) / nr;
    std::vector<float> panel(static_cast<size_t>(slivers * nr * kc), -9.0f);
    std::vector<float> scratch(static_cast<size_t>(cpu::Im2colPanels<float>::scratch_elems(g, images)));
    cpu::Im2colPanels<float> src;
    src.g = &g, src.x = x.data(), src.image_stride = stride, src.images = images, src.scratch = scratch.data();
    cpu::Im2colPanels<float>::fill(&src, pc, kc, j0, nc, nr, panel.data());
    for (int64_t s = 0; s < slivers; ++s)
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = 0; j < nr; ++j) {
          const int64_t q = s * nr + j;
          const float want = q < nc ? col[static_cast<size_t>((pc + p) * n + j0 + q)] : 0.0f;
          ASSERT_EQ(panel[static_cast<size_t>((s * kc + p) * nr + j)], want)
              << t.str() << " images " << images << " nr " << nr << " rows " << pc << "+" << kc << " cols " << j0 << "+" << nc;
        }
    ++checked;
  }
}

// 3x3 at stride 1 with >= 8 channels each way runs Winograd (conv_winograd.h): F(2x2, 3x3) in
// float32 and F(4x4, 3x3) in float64 by default, each forced here in both dtypes
// (cpu::set_conv_algo): sizes that leave partial tiles (H, W not multiples of the tile, down to
// one pixel), every padding it takes (0, 1, 2, asymmetric), channel counts off the vector width,
// and batches that span several blocks of images (a block holds about 96 tiles).
struct ForcedCpuConvAlgo {
  explicit ForcedCpuConvAlgo(const std::string& algo) { cpu::set_conv_algo(algo); }
  ~ForcedCpuConvAlgo() { cpu::set_conv_algo("auto"); }
};

TEST(Conv2DKernels, WinogradPathMatchesNaiveFormulas) {
  for (const char* algo : {"auto", "winograd2", "winograd4"}) {
    SCOPED_TRACE(algo);
    const ForcedCpuConvAlgo forced(algo);
    std::mt19937 gen(17);
    const Geom shapes[] = {
        {2, 8, 4, 4, 8, 3, 3, 1, 1, 1, 1, 1, 1},       {3, 9, 7, 5, 17, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 16, 13, 11, 10, 3, 3, 1, 1, 0, 0, 0, 0},   {1, 12, 3, 3, 9, 3, 3, 1, 1, 0, 0, 0, 0},
        {2, 10, 6, 9, 12, 3, 3, 1, 1, 2, 2, 2, 2},     {2, 11, 9, 8, 8, 3, 3, 1, 1, 2, 0, 1, 2},
        {40, 8, 4, 4, 16, 3, 3, 1, 1, 1, 1, 1, 1},     {7, 33, 9, 9, 20, 3, 3, 1, 1, 1, 1, 1, 1},
        {1, 8, 1, 1, 8, 3, 3, 1, 1, 1, 1, 1, 1},       {2, 20, 30, 30, 24, 3, 3, 1, 1, 1, 1, 1, 1},
    };
    for (const Geom& g : shapes) {
      check_geometry<float>(g, gen, true);
      check_geometry<double>(g, gen, false);
    }
  }
}

// The Winograd weight gradient with several threads on layers whose per-thread dU accumulators fit
// in the op's input size (conv_winograd.cpp, weight_kind): each thread sums a fixed share of the
// images, so the result matches the formulas, repeats bit for bit, and every thread count gives
// the same value up to rounding; batches not divisible by the thread count and smaller than it.
struct ThreadCount {
  explicit ThreadCount(int n) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(0); }
};

TEST(Conv2DKernels, WinogradWeightGradientWithPerThreadAccumulators) {
  for (const char* algo : {"winograd2", "winograd4"}) {
    const ForcedCpuConvAlgo forced(algo);
    for (int threads : {2, 3}) {
      SCOPED_TRACE(std::string(algo) + ", threads " + std::to_string(threads));
      const ThreadCount count(threads);
      std::mt19937 gen(23);
      const Geom shapes[] = {
          {5, 8, 12, 12, 16, 3, 3, 1, 1, 1, 1, 1, 1},  {7, 9, 10, 7, 12, 3, 3, 1, 1, 0, 0, 0, 0},
          {2, 16, 20, 20, 8, 3, 3, 1, 1, 1, 1, 1, 1},  {40, 8, 4, 4, 16, 3, 3, 1, 1, 1, 1, 1, 1},
      };
      for (const Geom& g : shapes) {
        check_geometry<float>(g, gen, false);
        check_geometry<double>(g, gen, false);
      }
      const Tensor x = random_tensor<float>({6, 16, 16, 16}, gen);
      const Tensor gy = random_tensor<float>({6, 24, 16, 16}, gen);
      Attrs bw{{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}};
      bw.set("weight_shape", std::vector<int64_t>{24, 16, 3, 3});
      const Tensor a = run_op("Conv2DBackwardWeight", {x, gy}, bw)[0];
      const Tensor b = run_op("Conv2DBackwardWeight", {x, gy}, bw)[0];
      for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]) << "index " << i;
    }
  }
}

// Layers whose per-thread dU would outgrow the input (many channels, small images) split the
// points of the one dU over the threads instead, each thread transforming every block itself:
// each dU[xi] is then summed by one thread in the same order whatever the thread count, so 1, 2
// and 3 threads give the same bits, and the result matches the formulas.
TEST(Conv2DKernels, WinogradWeightGradientSplitByPointsIsTheSameOnAnyThreadCount) {
  for (const char* algo : {"winograd2", "winograd4"}) {
    SCOPED_TRACE(algo);
    const ForcedCpuConvAlgo forced(algo);
    std::mt19937 gen(29);
    const Tensor x = random_tensor<float>({3, 64, 5, 5}, gen);
    const Tensor gy = random_tensor<float>({3, 40, 5, 5}, gen);
    Attrs bw{{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}};
    bw.set("weight_shape", std::vector<int64_t>{40, 64, 3, 3});
    std::vector<Tensor> got;
    for (int threads : {1, 2, 3}) {
      const ThreadCount count(threads);
      got.push_back(run_op("Conv2DBackwardWeight", {x, gy}, bw)[0]);
      check_geometry<float>({3, 64, 5, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1}, gen, false);
      check_geometry<double>({2, 48, 4, 6, 24, 3, 3, 1, 1, 0, 2, 1, 1}, gen, false);
    }
    for (size_t t = 1; t < got.size(); ++t)
      for (int64_t i = 0; i < got[0].numel(); ++i)
        ASSERT_EQ(got[0].data<float>()[i], got[t].data<float>()[i]) << "threads #" << t << " index " << i;
  }
}

// Wide layers with few tiles (ResNet-18's layer4 at batch 32, any many-channel layer at batch 1)
// run the forward and the input gradient by chunks of output channels (conv_winograd.cpp,
// filter_chunks_suit): the whole batch in one block, the filters transformed a chunk at a time.
// The shapes here take that schedule (checked), with channel counts off the vector and sliver
// widths, partial tiles and chunks, on 1 to 3 threads; the result matches the formulas and is
// the same to the bit on every thread count. A narrow layer of many tiles keeps the blocks.
TEST(Conv2DKernels, WinogradFilterChunksMatchNaiveFormulas) {
  for (const char* algo : {"winograd2", "winograd4"}) {
    const ForcedCpuConvAlgo forced(algo);
    const int m = std::string(algo) == "winograd2" ? 2 : 4;
    const Geom shapes[] = {
        {1, 64, 4, 4, 260, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 90, 5, 3, 200, 3, 3, 1, 1, 1, 1, 1, 1},
        {1, 40, 3, 4, 450, 3, 3, 1, 1, 0, 2, 2, 1},
    };
    for (const Geom& g : shapes) {
      const cpu::ConvGeometry cg = cpu::conv_geometry({g.n, g.c, g.h, g.w}, {g.k, g.c, 3, 3},
                                                 Attrs{{"padding", std::vector<int64_t>{g.pt, g.pb, g.pl, g.pr}}});
      for (DType dt : {DType::Float32, DType::Float64}) {
        EXPECT_TRUE(cpu::winograd_filter_chunks(cg, m, dt, /*input_gradient=*/false)) << g.str();
        EXPECT_TRUE(cpu::winograd_filter_chunks(cg, m, dt, /*input_gradient=*/true)) << g.str();
      }
    }
    const cpu::ConvGeometry narrow = cpu::conv_geometry({32, 64, 32, 32}, {64, 64, 3, 3},
                                                   Attrs{{"padding", std::vector<int64_t>{1, 1, 1, 1}}});
    EXPECT_FALSE(cpu::winograd_filter_chunks(narrow, m, DType::Float32, false));
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(std::string(algo) + ", threads " + std::to_string(threads));
      const ThreadCount count(threads);
      std::mt19937 gen(31);
      for (const Geom& g : shapes) {
        check_geometry<float>(g, gen, true);
        check_geometry<double>(g, gen, false);
      }
    }
    std::mt19937 gen(37);
    const Tensor x = random_tensor<float>({2, 90, 5, 3}, gen);
    const Tensor w = random_tensor<float>({200, 90, 3, 3}, gen);
    const Tensor gy = random_tensor<float>({2, 200, 5, 3}, gen);
    Attrs fw{{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}};
    Attrs bi = fw;
    bi.set("input_shape", std::vector<int64_t>{2, 90, 5, 3});
    std::vector<Tensor> ys, dxs;
    for (int threads : {1, 2, 3}) {
      const ThreadCount count(threads);
      ys.push_back(run_op("Conv2D", {x, w}, fw)[0]);
      dxs.push_back(run_op("Conv2DBackwardInput", {gy, w}, bi)[0]);
    }
    for (size_t t = 1; t < ys.size(); ++t) {
      for (int64_t i = 0; i < ys[0].numel(); ++i)
        ASSERT_EQ(ys[0].data<float>()[i], ys[t].data<float>()[i]) << "forward, threads #" << t << " index " << i;
      for (int64_t i = 0; i < dxs[0].numel(); ++i)
        ASSERT_EQ(dxs[0].data<float>()[i], dxs[t].data<float>()[i]) << "input gradient, threads #" << t << " index " << i;
    }
  }
}

TEST(Conv2DKernels, CpuConvAlgoSwitchRefusesUnknownNames) {
  EXPECT_THROW(cpu::set_conv_algo("winograd6"), std::exception);
  EXPECT_EQ(cpu::conv_algo(), "auto");
  {
    const ForcedCpuConvAlgo forced("gemm");
    EXPECT_EQ(cpu::conv_algo(), "gemm");
    std::mt19937 gen(5);
    check_geometry<float>({2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1}, gen, true);
  }
  EXPECT_EQ(cpu::conv_algo(), "auto");
}

TEST(Conv2DKernels, MatchNaiveFormulasGroupedDepthwiseAndDilatedAtThreadedSizes) {
  std::mt19937 gen(13);
  Geom depthwise{8, 32, 16, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1};
  depthwise.groups = 32;
  check_geometry<float>(depthwise, gen, true);
  Geom depthwise_s2{4, 16, 15, 15, 32, 3, 3, 2, 2, 1, 1, 1, 1};
  depthwise_s2.groups = 16;
  check_geometry<double>(depthwise_s2, gen, false);
  Geom grouped{1, 24, 20, 20, 36, 3, 3, 1, 1, 1, 1, 1, 1};  // one image: the groups spread over threads
  grouped.groups = 4;
  check_geometry<float>(grouped, gen, true);
  Geom dilated{4, 16, 20, 20, 24, 3, 3, 1, 1, 2, 2, 2, 2};  // "same" with dilation 2
  dilated.dh = dilated.dw = 2;
  check_geometry<float>(dilated, gen, false);
  Geom dilated_flat{3, 12, 18, 17, 20, 3, 3, 1, 1, 0, 0, 0, 0};
  dilated_flat.dh = 3, dilated_flat.dw = 2;
  check_geometry<double>(dilated_flat, gen, true);
}

}  // namespace
