// Winograd minimal filtering F(m x m, 3 x 3) for m = 2 and m = 4 (and F(2x2, 3x3) at stride 2,
// F2Stride2 below): the transform matrices and
// the per-tile transforms, written once for the CPU kernels (plain C++17) and the CUDA kernels
// (nvcc and NVRTC). This header includes nothing, so NVRTC can compile it as it is.
//
// A 3x3 correlation y[i, j] = sum_{r,s} d[i + r, j + s] g[r, s] over an (m + 2) x (m + 2) input
// tile d gives an m x m output tile (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016, eq. 8):
//
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A           (.) = elementwise product
//
// with alpha = m + 2 and B^T [alpha x alpha], G [alpha x 3], A^T [m x alpha] as below. Summed
// over input channels, the elementwise products become alpha^2 independent GEMMs
// (M[xi, nu][k, tile] = sum_c U[xi, nu][k, c] V[xi, nu][c, tile]); the transforms are the
// per-tile work around them.
//
// Y is linear in d and in g, so the adjoints of the same matrices give both gradients
// (<., .> the sum of elementwise products; gY the gradient of an output tile):
//   <Y, gY> = <(G g G^T) (.) (B^T d B), A gY A^T>
//   input gradient of the tile:   gd = B [ (G g G^T) (.) (A gY A^T) ] B^T
//   weight gradient of the tile:  gg = G^T [ (B^T d B) (.) (A gY A^T) ] G
// so besides the three forward transforms there are three adjoint ones: output_adjoint
// (A gY A^T: m x m -> alpha x alpha), input_adjoint (B X B^T: alpha x alpha -> alpha x alpha)
// and filter_adjoint (G^T X G: alpha x alpha -> 3 x 3).
//
// Every transform is separable: the 2-D form applies the 1-D one to each column, then to each
// row. The 1-D forms are written out with the matrices' zeros and shared terms folded (fewer
// operations than a matrix product); core-runtime/tests/test_winograd_transforms.cpp checks
// each against the matrices and the whole algorithm against a direct correlation.
//
// Types: T is the scalar type of the constants (float or double); V the value type, T itself or
// anything with +, - and V * T (e.g. a GCC vector of T, so one call transforms a vector of
// tiles or channels). Pointers with element strides address a tile anywhere (registers,
// a local array, a strided buffer).
#pragma once

// Host compilers inline every transform into its caller: the CPU kernels call them from
// translation units compiled per ISA (-mavx2, -mavx512f), and an out-of-line copy shared
// through the linker could run one ISA's instructions in another's code.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GG_WINOGRAD_FN __host__ __device__ inline
#elif defined(__GNUC__)
#define GG_WINOGRAD_FN inline __attribute__((always_inline))
#else
#define GG_WINOGRAD_FN inline
#endif

namespace glassgrad {
namespace winograd {

// F(m x m, 3 x 3); only m = 2 and m = 4 are defined.
template <int M>
struct F;

// F(2x2, 3x3): alpha = 4, interpolation points 0, 1, -1, infinity.
template <>
struct F<2> {
  static constexpr int m = 2, r = 3, alpha = 4, stride = 1;
  static constexpr double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

  // v = B^T d   (d: 4 values at stride ds; v: 4 at stride vs)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_1d(const V* d, int ds, V* v, int vs) {
    const V d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds];
    v[0] = d0 - d2;
    v[vs] = d1 + d2;
    v[2 * vs] = d2 - d1;
    v[3 * vs] = d1 - d3;
  }
  // u = G g   (g: 3 values; u: 4)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_1d(const V* g, int gs, V* u, int us) {
    const V g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
    const V h = (g0 + g2) * T(0.5), o = g1 * T(0.5);
    u[0] = g0;
    u[us] = h + o;
    u[2 * us] = h - o;
    u[3 * us] = g2;
  }
  // y = A^T x   (x: 4 values; y: 2)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_1d(const V* x, int xs, V* y, int ys) {
    const V x1 = x[xs], x2 = x[2 * xs];
    y[0] = x[0] + x1 + x2;
    y[ys] = x1 - x2 - x[3 * xs];
  }
  // x = A y   (y: 2 values; x: 4): adjoint of output_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_adjoint_1d(const V* y, int ys, V* x, int xs) {
    const V y0 = y[0], y1 = y[ys];
    x[0] = y0;
    x[xs] = y0 + y1;
    x[2 * xs] = y0 - y1;
    x[3 * xs] = y1 * T(-1);
  }
  // d = B v   (v: 4 values; d: 4): adjoint of input_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_adjoint_1d(const V* v, int vs, V* d, int ds) {
    const V v0 = v[0], v1 = v[vs], v2 = v[2 * vs], v3 = v[3 * vs];
    d[0] = v0;
    d[ds] = v1 - v2 + v3;
    d[2 * ds] = v1 + v2 - v0;
    d[3 * ds] = v3 * T(-1);
  }
  // g = G^T u   (u: 4 values; g: 3): adjoint of filter_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_adjoint_1d(const V* u, int us, V* g, int gs) {
    const V u0 = u[0], u1 = u[us], u2 = u[2 * us], u3 = u[3 * us];
    const V h = (u1 + u2) * T(0.5);
    g[0] = u0 + h;
    g[gs] = (u1 - u2) * T(0.5);
    g[2 * gs] = h + u3;
  }
};

// F(4x4, 3x3): alpha = 6, interpolation points 0, 1, -1, 2, -2, infinity (Lavin and Gray's
// matrices; the same as NNPACK's and oneDNN's up to row scaling).
template <>
struct F<4> {
  static constexpr int m = 4, r = 3, alpha = 6, stride = 1;
  static constexpr double BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                      {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr double G[6][3] = {{1.0 / 4, 0, 0},
                                     {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                     {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                     {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                     {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                     {0, 0, 1}};
  static constexpr double AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

  // v = B^T d   (d: 6 values; v: 6)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_1d(const V* d, int ds, V* v, int vs) {
    const V d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
    const V a = d4 - d2 * T(4), b = d3 - d1 * T(4);  // rows 1, 2: a +- b
    const V c = d4 - d2, e = (d3 - d1) * T(2);        // rows 3, 4: c +- e
    v[0] = d0 * T(4) - d2 * T(5) + d4;
    v[vs] = a + b;
    v[2 * vs] = a - b;
    v[3 * vs] = c + e;
    v[4 * vs] = c - e;
    v[5 * vs] = d1 * T(4) - d3 * T(5) + d5;
  }
  // u = G g   (g: 3 values; u: 6)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_1d(const V* g, int gs, V* u, int us) {
    const V g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
    const V a = (g0 + g2) * T(-1.0 / 6), b = g1 * T(-1.0 / 6);
    const V c = g0 * T(1.0 / 24) + g2 * T(1.0 / 6), e = g1 * T(1.0 / 12);
    u[0] = g0 * T(0.25);
    u[us] = a + b;
    u[2 * us] = a - b;
    u[3 * us] = c + e;
    u[4 * us] = c - e;
    u[5 * us] = g2;
  }
  // y = A^T x   (x: 6 values; y: 4)
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_1d(const V* x, int xs, V* y, int ys) {
    const V x1 = x[xs], x2 = x[2 * xs], x3 = x[3 * xs], x4 = x[4 * xs];
    const V p12 = x1 + x2, m12 = x1 - x2, p34 = x3 + x4, m34 = x3 - x4;
    y[0] = x[0] + p12 + p34;
    y[ys] = m12 + m34 * T(2);
    y[2 * ys] = p12 + p34 * T(4);
    y[3 * ys] = m12 + m34 * T(8) + x[5 * xs];
  }
  // x = A y   (y: 4 values; x: 6): adjoint of output_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_adjoint_1d(const V* y, int ys, V* x, int xs) {
    const V y0 = y[0], y1 = y[ys], y2 = y[2 * ys], y3 = y[3 * ys];
    const V p = y0 + y2, q = y1 + y3;                             // points +1 and -1
    const V p2 = y0 + y2 * T(4), q2 = y1 * T(2) + y3 * T(8);      // points +2 and -2
    x[0] = y0;
    x[xs] = p + q;
    x[2 * xs] = p - q;
    x[3 * xs] = p2 + q2;
    x[4 * xs] = p2 - q2;
    x[5 * xs] = y3;
  }
  // d = B v   (v: 6 values; d: 6): adjoint of input_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_adjoint_1d(const V* v, int vs, V* d, int ds) {
    const V v0 = v[0], v1 = v[vs], v2 = v[2 * vs], v3 = v[3 * vs], v4 = v[4 * vs], v5 = v[5 * vs];
    const V s12 = v1 + v2, m12 = v2 - v1, s34 = v3 + v4, m34 = v3 - v4;
    d[0] = v0 * T(4);
    d[ds] = m12 * T(4) + m34 * T(-2) + v5 * T(4);
    d[2 * ds] = v0 * T(-5) + s12 * T(-4) - s34;
    d[3 * ds] = m12 * T(-1) + m34 * T(2) + v5 * T(-5);
    d[4 * ds] = v0 + s12 + s34;
    d[5 * ds] = v5;
  }
  // g = G^T u   (u: 6 values; g: 3): adjoint of filter_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_adjoint_1d(const V* u, int us, V* g, int gs) {
    const V u0 = u[0], u1 = u[us], u2 = u[2 * us], u3 = u[3 * us], u4 = u[4 * us], u5 = u[5 * us];
    const V s12 = (u1 + u2) * T(-1.0 / 6), s34 = u3 + u4, m34 = u3 - u4;
    g[0] = u0 * T(0.25) + s12 + s34 * T(1.0 / 24);
    g[gs] = (u2 - u1) * T(1.0 / 6) + m34 * T(1.0 / 12);
    g[2 * gs] = s12 + s34 * T(1.0 / 6) + u5;
  }
};

// F(2x2, 3x3) at stride 2 (docs/cpu-threads.md, "Winograd at stride 2"): a 3x3 correlation at stride 2,
// y[i] = d[2i] g0 + d[2i + 1] g1 + d[2i + 2] g2, splits into its even input samples e[j] = d[2j]
// correlated at stride 1 with the 2-tap filter (g0, g2), plus its odd ones o[j] = d[2j + 1]
// times g1. Two outputs read the 5 samples d[0..4]: F(2, 2) on e (3 multiplications, points 0,
// 1 and infinity) and o[0] g1, o[1] g1 (2 more), so 5 points instead of the direct 6, and 25 in
// 2-D for a 2x2 output tile instead of 36. Input windows are 5 x 5 and step by 4 (two outputs
// at stride 2); every coefficient is 0 or +-1, so the transforms round no more than additions.
//   v = B^T d: (d0 - d2, d2, d4 - d2, d1, d3)    u = G g: (g0, g0 + g2, g2, g1, g1)
//   y = A^T x: (x0 + x1 + x3, x1 + x2 + x4)
struct F2Stride2 {
  static constexpr int m = 2, r = 3, alpha = 5, stride = 2;
  static constexpr double BT[5][5] = {
      {1, 0, -1, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, -1, 0, 1}, {0, 1, 0, 0, 0}, {0, 0, 0, 1, 0}};
  static constexpr double G[5][3] = {{1, 0, 0}, {1, 0, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};
  static constexpr double AT[2][5] = {{1, 1, 0, 1, 0}, {0, 1, 1, 0, 1}};

  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_1d(const V* d, int ds, V* v, int vs) {
    const V d2 = d[2 * ds];
    v[0] = d[0] - d2;
    v[vs] = d2;
    v[2 * vs] = d[4 * ds] - d2;
    v[3 * vs] = d[ds];
    v[4 * vs] = d[3 * ds];
  }
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_1d(const V* g, int gs, V* u, int us) {
    const V g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
    u[0] = g0;
    u[us] = g0 + g2;
    u[2 * us] = g2;
    u[3 * us] = g1;
    u[4 * us] = g1;
  }
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_1d(const V* x, int xs, V* y, int ys) {
    const V x1 = x[xs];
    y[0] = x[0] + x1 + x[3 * xs];
    y[ys] = x1 + x[2 * xs] + x[4 * xs];
  }
  // x = A y: adjoint of output_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void output_adjoint_1d(const V* y, int ys, V* x, int xs) {
    const V y0 = y[0], y1 = y[ys];
    x[0] = y0;
    x[xs] = y0 + y1;
    x[2 * xs] = y1;
    x[3 * xs] = y0;
    x[4 * xs] = y1;
  }
  // d = B v: adjoint of input_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void input_adjoint_1d(const V* v, int vs, V* d, int ds) {
    const V v0 = v[0], v2 = v[2 * vs];
    d[0] = v0;
    d[ds] = v[3 * vs];
    d[2 * ds] = v[vs] - v0 - v2;
    d[3 * ds] = v[4 * vs];
    d[4 * ds] = v2;
  }
  // g = G^T u: adjoint of filter_1d
  template <typename T, typename V>
  static GG_WINOGRAD_FN void filter_adjoint_1d(const V* u, int us, V* g, int gs) {
    const V u1 = u[us];
    g[0] = u[0] + u1;
    g[gs] = u[3 * us] + u[4 * us];
    g[2 * gs] = u1 + u[2 * us];
  }
};

// 2-D transforms of one tile by the 1-D ones of W (F<2>, F<4> or F2Stride2; alpha = W::alpha,
// m = W::m): the 1-D transform down each column (into tmp), then along each row. Arrays are
// row-major [rows][cols] in plain local arrays, e.g.
//   float d[6][6], v[6][6];  winograd::input_tile<4, float>(&d[0][0], &v[0][0]);
// (input_tile<M> is input_tile_of<F<M>>, and so for the others).

// out [OutR x OutC] from in [InR x InC]: Col (InR -> OutR values) down each column into tmp
// [OutR x InC], then Row (InC -> OutC values) along each of tmp's rows.
template <int InR, int InC, int OutR, int OutC, typename V, void (*Col)(const V*, int, V*, int),
          void (*Row)(const V*, int, V*, int)>
GG_WINOGRAD_FN void separable(const V* in, V* out) {
  V tmp[OutR * InC];
  for (int j = 0; j < InC; ++j) Col(in + j, InC, tmp + j, InC);
  for (int i = 0; i < OutR; ++i) Row(tmp + i * InC, 1, out + i * OutC, 1);
}

// v [alpha x alpha] = B^T d B
template <class W, typename T, typename V>
GG_WINOGRAD_FN void input_tile_of(const V* d, V* v) {
  constexpr int A = W::alpha;
  separable<A, A, A, A, V, W::template input_1d<T, V>, W::template input_1d<T, V>>(d, v);
}

// u [alpha x alpha] = G g G^T   (g: 3 x 3)
template <class W, typename T, typename V>
GG_WINOGRAD_FN void filter_tile_of(const V* g, V* u) {
  constexpr int A = W::alpha;
  separable<3, 3, A, A, V, W::template filter_1d<T, V>, W::template filter_1d<T, V>>(g, u);
}

// y [m x m] = A^T x A   (x: alpha x alpha)
template <class W, typename T, typename V>
GG_WINOGRAD_FN void output_tile_of(const V* x, V* y) {
  constexpr int A = W::alpha, M = W::m;
  separable<A, A, M, M, V, W::template output_1d<T, V>, W::template output_1d<T, V>>(x, y);
}

// x [alpha x alpha] = A y A^T   (y: m x m): adjoint of output_tile
template <class W, typename T, typename V>
GG_WINOGRAD_FN void output_adjoint_tile_of(const V* y, V* x) {
  constexpr int A = W::alpha, M = W::m;
  separable<M, M, A, A, V, W::template output_adjoint_1d<T, V>, W::template output_adjoint_1d<T, V>>(y, x);
}

// d [alpha x alpha] = B v B^T: adjoint of input_tile
template <class W, typename T, typename V>
GG_WINOGRAD_FN void input_adjoint_tile_of(const V* v, V* d) {
  constexpr int A = W::alpha;
  separable<A, A, A, A, V, W::template input_adjoint_1d<T, V>, W::template input_adjoint_1d<T, V>>(v, d);
}

// g [3 x 3] = G^T u G   (u: alpha x alpha): adjoint of filter_tile
template <class W, typename T, typename V>
GG_WINOGRAD_FN void filter_adjoint_tile_of(const V* u, V* g) {
  constexpr int A = W::alpha;
  separable<A, A, 3, 3, V, W::template filter_adjoint_1d<T, V>, W::template filter_adjoint_1d<T, V>>(u, g);
}

template <int M, typename T, typename V>
GG_WINOGRAD_FN void input_tile(const V* d, V* v) { input_tile_of<F<M>, T, V>(d, v); }
template <int M, typename T, typename V>
GG_WINOGRAD_FN void filter_tile(const V* g, V* u) { filter_tile_of<F<M>, T, V>(g, u); }
template <int M, typename T, typename V>
GG_WINOGRAD_FN void output_tile(const V* x, V* y) { output_tile_of<F<M>, T, V>(x, y); }
template <int M, typename T, typename V>
GG_WINOGRAD_FN void output_adjoint_tile(const V* y, V* x) { output_adjoint_tile_of<F<M>, T, V>(y, x); }
template <int M, typename T, typename V>
GG_WINOGRAD_FN void input_adjoint_tile(const V* v, V* d) { input_adjoint_tile_of<F<M>, T, V>(v, d); }
template <int M, typename T, typename V>
GG_WINOGRAD_FN void filter_adjoint_tile(const V* u, V* g) { filter_adjoint_tile_of<F<M>, T, V>(u, g); }

}  // namespace winograd
}  // namespace glassgrad
