// The tile kernels of the Winograd convolution (conv_winograd_kernels.h), written once in plain
// C++ and compiled once per ISA. Include from exactly one translation unit per ISA after
// defining GG_WINO_NS (namespace of this copy) and GG_WINO_VEC_BYTES (bytes per vector).
//
// Every kernel works on whole vectors of L channels (the blocked layout), so the per-tile
// transforms of winograd_transforms.h run with V = a vector of L channels: one call transforms
// the same tile of L channels. Moving between NCHW and the blocked layout (stage / unstage) is
// an L x L transpose in registers per L pixels of L channels; the borders (padding, partial
// tiles) are zeros written once into the staged image, so the tile loops never test bounds.
#include <cstdint>
#include <cstring>

#include "conv_winograd_kernels.h"
#include "winograd_transforms.h"

#if !defined(GG_WINO_NS) || !defined(GG_WINO_VEC_BYTES)
#error "define GG_WINO_NS and GG_WINO_VEC_BYTES before including conv_winograd_impl.h"
#endif

namespace glassgrad {
namespace cpu {
namespace GG_WINO_NS {
namespace {

#define GG_SIMD_VEC_BYTES GG_WINO_VEC_BYTES
#include "simd_impl.h"

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// The tiles of transform W (winograd::F<M>, or F2Stride2): output tiles of side out, input
// windows of side alpha (M + 2; 5 at stride 2) starting every `step` pixels (out x stride),
// alpha^2 points.
template <class W>
struct Tile {
  static constexpr int out = W::m;                 // output tile side
  static constexpr int alpha = W::alpha;           // input window side
  static constexpr int step = W::m * W::stride;    // input pixels from one window to the next
  static constexpr int points = alpha * alpha;     // Winograd-domain points
};

template <typename T>
void zero_vectors(T* p, int64_t count) {
  constexpr int L = Vec<T>::lanes;
  const typename Vec<T>::type z{};
  for (int64_t i = 0; i < count; ++i) store_vec<T>(p + i * L, z);
}

// The first n < L values at src as a vector, zeros past them: half and quarter vectors (rows of
// 8 and 4 pixels, ResNet-18's layer3 and layer4 at AVX-512 float32 width) as one fixed-size
// copy, where a loop of n lane inserts took one instruction a value.
template <typename T>
inline typename Vec<T>::type load_partial(const T* src, int64_t n) {
  constexpr int L = Vec<T>::lanes;
  typename Vec<T>::type v{};
  if (2 * n == L) {
    std::memcpy(&v, src, sizeof(T) * (L / 2));
  } else if (4 * n == L) {
    std::memcpy(&v, src, sizeof(T) * (L / 4));
  } else {
    for (int64_t j = 0; j < n; ++j) v[j] = src[j];
  }
  return v;
}

// The first n < L lanes of v to dst, the same way round.
template <typename T>
inline void store_partial(T* dst, const typename Vec<T>::type& v, int64_t n) {
  constexpr int L = Vec<T>::lanes;
  if (2 * n == L) {
    std::memcpy(dst, &v, sizeof(T) * (L / 2));
  } else if (4 * n == L) {
    std::memcpy(dst, &v, sizeof(T) * (L / 4));
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j] = v[j];
  }
}

template <typename T>
void stage(const WinoStage<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  const int64_t blocks = (p.c + L - 1) / L;
  for (int64_t cb = 0; cb < blocks; ++cb) {
    const int64_t nch = min64(L, p.c - cb * L);
    const T* end = p.x + (cb * L + nch) * p.h * p.w;  // past the block's last channel
    for (int64_t r = 0; r < p.rows; ++r) {
      T* row = p.xb + (cb * p.rows + r) * p.cols * L;
      const int64_t h = r - p.top;
      if (h < 0 || h >= p.h) {
        zero_vectors(row, p.cols);
        continue;
      }
      zero_vectors(row, p.left);
      zero_vectors(row + (p.left + p.w) * L, p.cols - p.left - p.w);
      for (int64_t w0 = 0; w0 < p.w; w0 += L) {
        const int64_t nw = min64(L, p.w - w0);
        V v[L];
        for (int l = 0; l < L; ++l) {
          v[l] = V{};
          if (l >= nch) continue;
          const T* src = p.x + ((cb * L + l) * p.h + h) * p.w + w0;
          // A short row (nw < L) is read as a whole vector while that stays inside the staged
          // channels (the next row's values land in lanes nw.., which the transpose moves into
          // the columns past nw that are never stored); the block's last row as a partial one.
          v[l] = nw == L || src + L <= end ? load_vec<T>(src) : load_partial<T>(src, nw);
        }
        transpose_block<T>(v);  // v[j]: the channels of column w0 + j
        for (int64_t j = 0; j < nw; ++j) store_vec<T>(row + (p.left + w0 + j) * L, v[j]);
      }
    }
  }
}

// Loads the A x A window at pixel (r0, c0) of channel block cb.
template <typename T, int A>
inline void load_window(const WinoTiles<T>& p, int64_t cb, int64_t r0, int64_t c0, typename Vec<T>::type* d) {
  constexpr int L = Vec<T>::lanes;
  const T* base = p.image + ((cb * p.rows + r0) * p.cols + c0) * L;
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < A; ++j) d[i * A + j] = load_vec<T>(base + (i * p.cols + j) * L);
}

template <typename T, int Points>
inline void store_points(const WinoTiles<T>& p, int64_t t, int64_t cb, const typename Vec<T>::type* v) {
  constexpr int L = Vec<T>::lanes;
  if (p.nr > 0) {
    // The GEMM's b_packed form (conv_winograd_kernels.h): the vector's L channels are one run of
    // the sliver that holds them, NR values a tile.
    const int64_t tt = p.first_tile + t, ch = (p.cb + cb) * L;
    T* dst = p.trans + (ch - ch % p.nr) * p.tiles + tt * p.nr + ch % p.nr;
    for (int xi = 0; xi < Points; ++xi) store_vec<T>(dst + xi * p.xi_stride, v[xi]);
    return;
  }
  if (p.mr == 0) {
    T* dst = p.trans + (p.first_tile + t) * p.tile_stride + cb * L;
    for (int xi = 0; xi < Points; ++xi) store_vec<T>(dst + xi * p.xi_stride, v[xi]);
    return;
  }
  // The GEMM's a_packed form (conv_winograd_kernels.h): channels p.cb * L .. of tile tt lie in
  // slivers of MR channels, MR * kcb values apart; a vector is one (MR = L) or two (MR = L / 2).
  const int64_t tt = p.first_tile + t, pc = tt - tt % p.kc, kcb = min64(p.kc, p.tiles - pc);
  T* dst = p.trans + pc * p.tile_stride + (p.cb + cb) * L * kcb + (tt - pc) * p.mr;
  if (p.mr == L) {
    for (int xi = 0; xi < Points; ++xi) store_vec<T>(dst + xi * p.xi_stride, v[xi]);
    return;
  }
  const int64_t half = (L / 2) * kcb;  // to the second sliver
  for (int xi = 0; xi < Points; ++xi) {
    const T* lanes = reinterpret_cast<const T*>(&v[xi]);
    std::memcpy(dst + xi * p.xi_stride, lanes, sizeof(T) * (L / 2));
    std::memcpy(dst + xi * p.xi_stride + half, lanes + L / 2, sizeof(T) * (L / 2));
  }
}

// Every tile's window -> its alpha^2 points: the input transform B^T d B of alpha x alpha input
// windows (Input), or the adjoint output transform A g A^T of M x M gradient tiles.
template <typename T, class W, bool Input>
void window_tiles(const WinoTiles<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int kWindow = Input ? Tile<W>::alpha : Tile<W>::out;
  constexpr int kStep = Input ? Tile<W>::step : Tile<W>::out;
  for (int64_t t = 0; t < p.tiles_h * p.tiles_w; ++t) {
    const int64_t ti = t / p.tiles_w, tj = t % p.tiles_w;
    for (int64_t cb = 0; cb < p.blocks; ++cb) {
      V d[kWindow * kWindow], v[Tile<W>::points];
      load_window<T, kWindow>(p, cb, kStep * ti, kStep * tj, d);
      if (Input) {
        winograd::input_tile_of<W, T, V>(d, v);
      } else {
        winograd::output_adjoint_tile_of<W, T, V>(d, v);
      }
      store_points<T, Tile<W>::points>(p, t, cb, v);
    }
  }
}

template <typename T, class W>
void output_tiles(const WinoTiles<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes, kOut = Tile<W>::out;
  for (int64_t t = 0; t < p.tiles_h * p.tiles_w; ++t) {
    const int64_t ti = t / p.tiles_w, tj = t % p.tiles_w;
    for (int64_t cb = 0; cb < p.blocks; ++cb) {
      V m[Tile<W>::points], y[kOut * kOut];
      const T* src = p.trans + (p.first_tile + t) * p.tile_stride + cb * L;
      for (int xi = 0; xi < Tile<W>::points; ++xi) m[xi] = load_vec<T>(src + xi * p.xi_stride);
      winograd::output_tile_of<W, T, V>(m, y);
      T* base = p.image + ((cb * p.rows + kOut * ti) * p.cols + kOut * tj) * L;
      for (int i = 0; i < kOut; ++i)
        for (int j = 0; j < kOut; ++j) store_vec<T>(base + (i * p.cols + j) * L, y[i * kOut + j]);
    }
  }
}

template <typename T>
void unstage(const WinoUnstage<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  const int64_t blocks = (p.k + L - 1) / L, hwo = p.ho * p.wo;
  for (int64_t kb = 0; kb < blocks; ++kb) {
    const int64_t nk = min64(L, p.k - kb * L);
    for (int64_t h = 0; h < p.ho; ++h) {
      const T* row = p.yb + (kb * p.rows + h) * p.cols * L;
      for (int64_t w0 = 0; w0 < p.wo; w0 += L) {
        const int64_t nw = min64(L, p.wo - w0);
        V v[L];
        for (int j = 0; j < L; ++j) v[j] = j < nw ? load_vec<T>(row + (w0 + j) * L) : V{};
        transpose_block<T>(v);  // v[l]: channel kb*L + l at columns w0 ..
        for (int64_t l = 0; l < nk; ++l) {
          const int64_t k = kb * L + l;
          V out = v[l];
          if (p.bias) out += p.bias[k];
          if (p.relu) out = out > T(0) ? out : V{};
          T* dst = p.y + k * hwo + h * p.wo + w0;
          if (nw == L) {
            store_vec<T>(dst, out);
          } else {
            store_partial<T>(dst, out, nw);
          }
        }
      }
    }
  }
}

// The 9 taps of the L filters (row, q + l) as 9 vectors over l: each filter's taps are 9
// contiguous values, so L rows of them are loaded as L vectors (taps t0 .. t0 + L) and
// transposed in registers. A vector that would run past the end of w is copied lane by lane.
template <typename T>
inline void load_taps(const WinoFilter<T>& p, int64_t row, int64_t q, typename Vec<T>::type* g) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  const T* end = p.w + p.w_elems;
  for (int t0 = 0; t0 < 9; t0 += L) {
    V v[L];
    for (int l = 0; l < L; ++l) {
      v[l] = V{};
      if (q + l >= p.cols) continue;
      const T* src = p.w + row * p.p_stride + (q + l) * p.q_stride + t0;
      if (src + L <= end) {
        v[l] = load_vec<T>(src);
      } else {
        for (int t = 0; t < L && src + t < end; ++t) v[l][t] = src[t];
      }
    }
    transpose_block<T>(v);  // v[t]: tap t0 + t of the L filters
    for (int t = 0; t < L && t0 + t < 9; ++t) g[t0 + t] = v[t];
  }
}

// The taps of L rows (row0 ..) of the L filters q .. q + L - 1 where a filter's rows are
// contiguous (p_stride 9: the forward, rows = input channels): they are 9L consecutive values of
// each filter, moved as 9 whole vectors a filter and 9 L x L transposes into
// taps[9 * r + tap][l] (row row0 + r, filter q + l). load_taps reads them a row at a time, L
// vectors from L filters a whole filter apart (C * 9 values: 18 KiB at 512 channels, so the L
// lines of a row share two L1 sets and each row's loads missed L1): layer4's filter transform
// took a sixth of its forward.
template <typename T>
inline void load_rows_taps(const WinoFilter<T>& p, int64_t row0, int64_t q, T (*taps)[Vec<T>::lanes]) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  for (int j = 0; j < 9; ++j) {
    V v[L];
    for (int l = 0; l < L; ++l) v[l] = load_vec<T>(p.w + row0 * 9 + (q + l) * p.q_stride + j * L);
    transpose_block<T>(v);  // v[t]: value j * L + t of the L filters' block
    for (int t = 0; t < L; ++t) store_vec<T>(taps[j * L + t], v[t]);
  }
}

template <typename T, class W>
void filter(const WinoFilter<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  auto transform = [&p](T* sliver, int64_t row, const V* taps) {
    V g[9], u[Tile<W>::points];
    for (int tap = 0; tap < 9; ++tap) g[tap] = taps[p.flip ? 8 - tap : tap];
    winograd::filter_tile_of<W, T, V>(g, u);
    for (int xi = 0; xi < Tile<W>::points; ++xi) store_vec<T>(sliver + xi * p.xi_stride + row * p.nr, u[xi]);
  };
  for (int64_t q = p.q0; q < p.q1; q += L) {
    T* sliver = p.packed + (q / p.nr) * p.nr * p.rows + q % p.nr;
    int64_t row = 0;
    if (p.p_stride == 9 && q + L <= p.cols) {
      alignas(64) T block[9 * L][L];
      for (; row + L <= p.rows; row += L) {
        load_rows_taps(p, row, q, block);
        for (int r = 0; r < L; ++r) {
          V taps[9];
          for (int tap = 0; tap < 9; ++tap) taps[tap] = load_vec<T>(block[9 * r + tap]);
          transform(sliver, row + r, taps);
        }
      }
    }
    for (; row < p.rows; ++row) {
      V taps[9];
      load_taps(p, row, q, taps);
      transform(sliver, row, taps);
    }
  }
}

template <typename T, class W>
void filter_adjoint(const WinoFilterAdjoint<T>& p) {
  typedef typename Vec<T>::type V;
  constexpr int L = Vec<T>::lanes;
  for (int64_t k = p.k0; k < p.k1; ++k) {
    for (int64_t c0 = 0; c0 < p.c; c0 += L) {
      const int64_t nc = min64(L, p.c - c0);
      V u[Tile<W>::points], g[9];
      for (int xi = 0; xi < Tile<W>::points; ++xi) {
        const T* src = p.du + xi * p.xi_stride + k * p.ld + c0;
        if (nc == L) {
          u[xi] = load_vec<T>(src);
        } else {
          u[xi] = V{};
          for (int64_t l = 0; l < nc; ++l) u[xi][l] = src[l];
        }
      }
      winograd::filter_adjoint_tile_of<W, T, V>(u, g);
      for (int64_t l = 0; l < nc; ++l) {
        T* dst = p.dw + (k * p.c + c0 + l) * 9;
        for (int tap = 0; tap < 9; ++tap) dst[tap] = g[tap][l];
      }
    }
  }
}

template <typename T, class W>
constexpr WinogradKernels<T> make_kernels() {
  WinogradKernels<T> k{};
  k.lanes = Vec<T>::lanes;
  k.m = W::m;
  k.stride = W::stride;
  k.stage = &stage<T>;
  k.input_tiles = &window_tiles<T, W, true>;
  k.grad_tiles = &window_tiles<T, W, false>;
  k.output_tiles = &output_tiles<T, W>;
  k.unstage = &unstage<T>;
  k.filter = &filter<T, W>;
  k.filter_adjoint = &filter_adjoint<T, W>;
  return k;
}

constexpr WinogradKernels<float> kF32[3] = {make_kernels<float, winograd::F<2>>(), make_kernels<float, winograd::F<4>>(),
                                            make_kernels<float, winograd::F2Stride2>()};
constexpr WinogradKernels<double> kF64[3] = {make_kernels<double, winograd::F<2>>(),
                                             make_kernels<double, winograd::F<4>>(),
                                             make_kernels<double, winograd::F2Stride2>()};

constexpr int table_index(int m, int stride) { return stride == 2 ? 2 : m == 2 ? 0 : 1; }

}  // namespace

const WinogradKernels<float>& kernels_f32(int m, int stride) { return kF32[table_index(m, stride)]; }
const WinogradKernels<double>& kernels_f64(int m, int stride) { return kF64[table_index(m, stride)]; }

}  // namespace GG_WINO_NS
}  // namespace cpu
}  // namespace glassgrad
