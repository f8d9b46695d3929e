// Driver of the Winograd F(m x m, 3x3) convolutions, m = 2 or 4, and of F(2x2, 3x3) at stride 2
// (conv_winograd.h): block sizes, workspace layout, threads and the alpha^2 GEMMs per block (36
// for m = 4, 16 for m = 2, 25 at stride 2). The tile arithmetic is in conv_winograd_impl.h,
// compiled per ISA; the GEMM is gemm.h's with the transformed filters packed once per call.
#include "cpu/conv_winograd.h"

#include <algorithm>
#include <atomic>

#include "cpu/carver.h"
#include "cpu/conv_winograd_kernels.h"
#include "cpu/gemm/gemm.h"
#include "cpu/rounding.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cpu {

namespace {

constexpr int kMaxSlots = 64;
// Forward-like: tiles per block, each block a thread's own work from staging to write-back:
// enough rows for the point GEMMs to run at full speed, few enough that its transformed inputs
// and GEMM results stay near the caches.
constexpr int64_t kBlockTiles = 96;
// Weight gradient: bytes of the blocks of transformed inputs and gradients of all slots together
// (each slot transforms every block into its own buffers): large, so that each point's GEMM is
// deep and dU is read and written few times, but never more than the input itself takes (or
// kBlockTiles tiles' worth a slot, if that is more): the workspace sits in the step's memory
// plan, and a small network under a memory budget must not find it many times larger than its
// activations.
constexpr int64_t kWeightBlockBytes = int64_t(4) << 20;


// Elements from one of the point matrices of a kind to the next: its size plus one cache line.
// The tile transforms read or write all of them at once; at sizes that are multiples of 4 KiB they
// would all map to the same cache set and evict each other (measured: the filter transform of
// a 512x512 layer took 36 ms instead of a few).
template <typename T>
int64_t skewed(int64_t elems) {
  return elems + static_cast<int64_t>(kAlign / sizeof(T));
}

template <typename T>
const WinogradKernels<T>& kernels(int64_t m, int64_t stride);
template <>
const WinogradKernels<float>& kernels<float>(int64_t m, int64_t stride) {
  const int mi = static_cast<int>(m), si = static_cast<int>(stride);
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return conv_winograd_avx512::kernels_f32(mi, si);
    case CpuIsa::Avx2: return conv_winograd_avx2::kernels_f32(mi, si);
    default: return conv_winograd_generic::kernels_f32(mi, si);
  }
}
template <>
const WinogradKernels<double>& kernels<double>(int64_t m, int64_t stride) {
  const int mi = static_cast<int>(m), si = static_cast<int>(stride);
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return conv_winograd_avx512::kernels_f64(mi, si);
    case CpuIsa::Avx2: return conv_winograd_avx2::kernels_f64(mi, si);
    default: return conv_winograd_generic::kernels_f64(mi, si);
  }
}

template <typename T>
DType dtype_of() {
  return sizeof(T) == 8 ? DType::Float64 : DType::Float32;
}

// ForwardLike: the forward and the input gradient. FilterChunks: the same ops on wide layers
// with few tiles (filter_chunks_suit), the filters transformed a chunk of output channels at a
// time. Weight: the weight gradient, each slot owning some of the points of the one dU and
// transforming every block itself (winograd_backward_weight). WeightPerSlot: the weight gradient
// with each slot's own images and its own dU accumulator, summed at the end (weight_kind).
enum class Kind { ForwardLike, FilterChunks, Weight, WeightPerSlot };

// A 3x3 convolution at stride 1 or 2 as the Winograd path sees it: in [n, cin, h, w] -> out
// [n, cout, ho, wo], input padded by (pt, pl) at the top left (the input gradient is one too),
// cut into blocks of ipb images, in output tiles of m x m.
struct WinoShape {
  int64_t n, cin, h, w, cout, ho, wo, pt, pl;
  int64_t m = 4;       // output tile side
  int64_t stride = 1;  // 2: winograd::F2Stride2 (m = 2), input windows of 5 x 5 every 4 pixels
  int64_t ipb = 1;     // images per block
  int64_t alpha() const { return stride == 1 ? m + 2 : 2 * m + 1; }
  int64_t points() const { return alpha() * alpha(); }
  int64_t th() const { return ceil_div(ho, m); }
  int64_t tw() const { return ceil_div(wo, m); }
  int64_t tiles_per_image() const { return th() * tw(); }
  // Staged input: every tile's alpha x alpha window, one every m * stride pixels.
  int64_t in_rows() const { return m * stride * (th() - 1) + alpha(); }
  int64_t in_cols() const { return m * stride * (tw() - 1) + alpha(); }
  int64_t out_rows() const { return m * th(); }     // staged output / gradient: whole tiles
  int64_t out_cols() const { return m * tw(); }
  int64_t blocks() const { return ceil_div(n, ipb); }
  int64_t block_tiles() const { return ipb * tiles_per_image(); }
};

// Forward-like: blocks of about kBlockTiles tiles, at least one per slot, and all slots' blocks
// together no larger than the op's input, output and transformed filters (at least one image
// per block): the workspace sits in the step's memory plan, and a small network under a memory
// budget must not find it a multiple of its activations. Weight gradient: see kWeightBlockBytes.
WinoShape with_blocks(WinoShape s, Kind kind, int slots, int64_t lanes, size_t elem) {
  const int64_t e = static_cast<int64_t>(elem), tpi = s.tiles_per_image();
  const int64_t tile_bytes = s.points() * (round_up(s.cin, lanes) + round_up(s.cout, lanes)) * e;
  const int64_t input_bytes = s.n * s.cin * s.h * s.w * e;
  if (kind == Kind::ForwardLike) {
    const int64_t blocks = std::max(ceil_div(s.n * tpi, kBlockTiles), std::min<int64_t>(slots, s.n));
    const int64_t op_bytes = input_bytes + s.n * s.cout * s.ho * s.wo * e + s.points() * s.cin * s.cout * e;
    const int64_t cap = std::max<int64_t>(1, op_bytes / (slots * tile_bytes * tpi));
    s.ipb = std::min(ceil_div(s.n, blocks), cap);
  } else if (kind == Kind::Weight) {
    const int64_t budget = std::max(kBlockTiles * tile_bytes, std::min(kWeightBlockBytes, input_bytes) / slots);
    s.ipb = std::min(s.n, std::max<int64_t>(1, budget / tile_bytes / tpi));
  } else {  // WeightPerSlot: about kBlockTiles tiles (at least one image) of the slot's own images
    s.ipb = std::min(ceil_div(s.n, slots), ceil_div(kBlockTiles, tpi));
  }
  return s;
}

// The weight gradient's scheme for `slots` threads. Split by points (Kind::Weight), each slot
// repeats every tile transform and runs 1/slots of the point GEMMs; with per-slot accumulators
// each slot transforms only its own images and accumulates all their point GEMMs into its own dU
// [points][K][C], and the filter adjoint sums the slots' dU first: no transform is repeated,
// and the GEMMs of a few-channel layer are not split into slivers of points.
// The slots' accumulators must not make the workspace larger than the op's input (it sits in
// the step's memory plan), which keeps them to layers with few channels for their image size:
// ResNet-18's layer1 and layer2 (64 and 128 channels), not layer3 and layer4.
Kind weight_kind(const WinoShape& s, int slots, size_t elem) {
  const int64_t du_bytes = s.points() * s.cout * s.cin * static_cast<int64_t>(elem);
  const int64_t input_bytes = s.n * s.cin * s.h * s.w * static_cast<int64_t>(elem);
  return slots > 1 && s.n > 1 && slots * du_bytes <= input_bytes ? Kind::WeightPerSlot : Kind::Weight;
}

// Output channels (columns of U) one FilterChunks chunk transforms and multiplies: two of the
// GEMM's NR-wide slivers (96 at AVX-512 float32), so a slot's chunk of U stays near the caches
// (3 MiB for 512 input channels) and a 512-channel layer still has 6 chunks to spread over threads.
int64_t chunk_cols(DType dt) { return 2 * gemm_nr(dt); }

// Forward-like ops whose transformed filters U (points x C x K) outweigh the transformed input
// of the whole batch (points x tiles x C) at least twice over: ResNet-18's layer4 at batch 32
// (4x4 images: 128 tiles against 512 output channels), and any 3x3 layer of many channels at
// batch 1. The default schedule writes all of U (16.8 MB for 512 x 512 channels at F(2x2)) and
// its GEMMs read it back once a block of images, so such a layer is bound by memory bandwidth:
// layer4's forward took 4.5 ms at batch 1 against 16.7 at batch 32 (1 thread). FilterChunks
// transforms the whole batch's input once (V packed once as the GEMMs' A), then transforms U one
// chunk of output channels at a time into a slot's own buffer and runs the chunk's point GEMMs
// over every tile while that chunk is still in cache: U is never stored whole, and each of its
// values is read once. Each M value is the same sum in the same order as the default
// schedule's (the chunks are cut on the GEMM's NR-wide slivers), on any thread count. Only
// where U would not fit in a core's L2 anyway (kFilterChunksMinBytes): a small U is read from
// the caches by either schedule, and this one adds a pass that packs V.
constexpr int64_t kFilterChunksMinBytes = int64_t(1) << 20;

bool filter_chunks_suit(const WinoShape& s, int64_t lanes, size_t elem) {
  const int64_t u_bytes = s.points() * s.cin * s.cout * static_cast<int64_t>(elem);
  return round_up(s.cout, lanes) >= 2 * s.n * s.tiles_per_image() && u_bytes >= kFilterChunksMinBytes;
}

WinoShape forward_shape(const ConvGeometry& g, int m) {
  return {g.n, g.c, g.h, g.w, g.k, g.ho, g.wo, g.pt, g.pl, m, g.sh};
}
// dx = conv(gy, rot180(w) with C and K swapped), padding 2 - p: [N, K, Ho, Wo] -> [N, C, H, W].
WinoShape backward_input_shape(const ConvGeometry& g, int m) {
  return {g.n, g.k, g.ho, g.wo, g.c, g.h, g.w, 2 - g.pt, 2 - g.pl, m};
}

// The workspace of one call: the packed filter matrices of every point (forward-like) or the
// dU matrices (weight gradient); the transformed operands of a block (forward-like: one pair per
// slot, the weight gradient: one shared pair); per slot, two staging images of one channel
// block and the GEMM's packing buffers.
template <typename T>
struct Buffers {
  WinoShape shape{};
  int slots = 1;
  T* filters = nullptr;                 // forward-like: packed U; weight gradient: dU [points][K][C]
  bool per_slot = false;                // Kind::WeightPerSlot
  int64_t du_slot_stride = 0;           // WeightPerSlot: elements from one slot's dU to the next
  T* trans_in[kMaxSlots] = {};          // V [points][block tiles][cin rounded to L]
  T* trans_out[kMaxSlots] = {};         // M (forward-like) or Z (weight) [points][block tiles][cout rounded to L]
  T* stage_in[kMaxSlots] = {};          // one channel block of the staged input
  T* stage_out[kMaxSlots] = {};         // one channel block of the staged output / gradient
  T* gemm_ws[kMaxSlots] = {};
  size_t gemm_bytes = 0;
  // FilterChunks: `filters` holds V of the whole batch packed as the GEMMs' A (one a_packed
  // matrix per point), trans_in[0] V and then, in the same place, M; each slot transforms its
  // chunks of U into u_chunk (one b_packed matrix per point).
  T* u_chunk[kMaxSlots] = {};
  bool filter_chunks = false;
};

int64_t lanes_of(DType dt, const WinoShape& s) {
  return dt == DType::Float64 ? kernels<double>(s.m, s.stride).lanes : kernels<float>(s.m, s.stride).lanes;
}

// The schedule of a forward-like op (the forward, the input gradient).
Kind forward_like_kind(const WinoShape& s, DType dt) {
  return filter_chunks_suit(s, lanes_of(dt, s), dtype_size(dt)) ? Kind::FilterChunks : Kind::ForwardLike;
}

template <typename T>
size_t layout(Kind kind, WinoShape s, DType dt, int slots, char* base, Buffers<T>* b) {
  const int64_t L = lanes_of(dt, s);
  if (kind == Kind::FilterChunks) {
    s.ipb = s.n;  // one block: the whole batch
  } else {
    s = with_blocks(s, kind, slots, L, sizeof(T));
  }
  const int64_t tb = s.block_tiles(), cinp = round_up(s.cin, L), coutp = round_up(s.cout, L);
  cpu::Carver carve(base);  // cpu/carver.h
  T* filters;
  size_t gemm_bytes;
  if (kind == Kind::FilterChunks) {
    const int64_t cc = chunk_cols(dt);
    filters = carve.take<T>(s.points() * skewed<T>(gemm_packed_a_elems(tb, s.cin, dt)));
    T* vm = carve.take<T>(s.points() * skewed<T>(tb * std::max(cinp, coutp)));
    gemm_bytes = gemm_workspace_bytes(tb, cc, s.cin, dt, /*serial=*/true);
    if (b) b->shape = s, b->slots = slots, b->filters = filters, b->gemm_bytes = gemm_bytes;
    if (b) b->trans_in[0] = vm, b->trans_out[0] = vm, b->filter_chunks = true;
    for (int i = 0; i < slots; ++i) {
      T* uc = carve.take<T>(s.points() * skewed<T>(gemm_packed_b_elems(s.cin, cc, dt)));
      T* si = carve.take<T>(L * s.in_rows() * s.in_cols());
      T* so = carve.take<T>(L * s.out_rows() * s.out_cols());
      T* gw = carve.take<T>(static_cast<int64_t>(gemm_bytes / sizeof(T)) + 1);
      if (b) b->u_chunk[i] = uc, b->stage_in[i] = si, b->stage_out[i] = so, b->gemm_ws[i] = gw;
    }
    return carve.total();
  }
  if (kind == Kind::ForwardLike) {
    filters = carve.take<T>(s.points() * skewed<T>(gemm_packed_b_elems(s.cin, s.cout, dt)));
    gemm_bytes = gemm_workspace_bytes(tb, s.cout, s.cin, dt, /*serial=*/true);
  } else {
    const int64_t du_slot = round_up(s.points() * skewed<T>(s.cout * s.cin), kAlign / sizeof(T));
    filters = carve.take<T>((kind == Kind::WeightPerSlot ? slots : 1) * du_slot);  // dU [points][K][C] (per slot)
    gemm_bytes = gemm_workspace_bytes(s.cout, s.cin, tb, dt, /*serial=*/true);
    if (b) b->du_slot_stride = du_slot, b->per_slot = kind == Kind::WeightPerSlot;
  }
  if (b) b->shape = s, b->slots = slots, b->filters = filters, b->gemm_bytes = gemm_bytes;
  const int pairs = slots;  // every slot transforms into its own buffers
  for (int i = 0; i < pairs; ++i) {
    T* ti = carve.take<T>(s.points() * skewed<T>(tb * cinp));
    T* to = carve.take<T>(s.points() * skewed<T>(tb * coutp));
    if (b) b->trans_in[i] = ti, b->trans_out[i] = to;
  }
  for (int i = 0; i < slots; ++i) {
    T* si = carve.take<T>(L * s.in_rows() * s.in_cols());
    T* so = carve.take<T>(L * s.out_rows() * s.out_cols());
    T* gw = carve.take<T>(static_cast<int64_t>(gemm_bytes / sizeof(T)) + 1);
    if (b) b->stage_in[i] = si, b->stage_out[i] = so, b->gemm_ws[i] = gw;
  }
  return carve.total();
}

int slots_now() { return std::max(1, std::min(kMaxSlots, in_parallel_region() ? 1 : get_num_threads())); }

size_t workspace_bytes(Kind kind, const WinoShape& s, DType dt) {
  const int slots = std::max(1, std::min(kMaxSlots, get_num_threads()));
  kind = kind == Kind::ForwardLike ? forward_like_kind(s, dt) : weight_kind(s, slots, dtype_size(dt));
  return dt == DType::Float64 ? layout<double>(kind, s, dt, slots, nullptr, nullptr)
                              : layout<float>(kind, s, dt, slots, nullptr, nullptr);
}

// Runs fn(slot, u) for every u in [0, units), each slot taking the next unit when it is done
// with one. Work is never pinned to a thread: on a busy machine a thread the scheduler delays
// leaves its share to the others, and the phase waits only for the unit it is in.
template <typename F>
void for_units(int slots, int64_t units, F&& fn) {
  const int64_t used = std::min<int64_t>(slots, units);
  if (used <= 1) {
    for (int64_t u = 0; u < units; ++u) fn(0, u);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(used, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t sl = s0; sl < s1; ++sl)
      for (int64_t u = next.fetch_add(1); u < units; u = next.fetch_add(1)) fn(static_cast<int>(sl), u);
  });
}

// Binds the buffers in the given workspace, or in a temporary one when it is too small.
template <typename T>
Buffers<T> bind(Kind kind, const WinoShape& s, DType dt, void* workspace, size_t workspace_bytes, Tensor& scratch) {
  const int slots = slots_now();
  kind = kind == Kind::ForwardLike ? forward_like_kind(s, dt) : weight_kind(s, slots, sizeof(T));
  const size_t need = layout<T>(kind, s, dt, slots, nullptr, nullptr);
  char* base = static_cast<char*>(workspace);
  if (base == nullptr || workspace_bytes < need) {
    scratch = Tensor::empty({static_cast<int64_t>(need)}, DType::UInt8, Device::cpu(), "Winograd conv workspace");
    base = static_cast<char*>(scratch.data_ptr());
  }
  base = reinterpret_cast<char*>(align_up(reinterpret_cast<uintptr_t>(base)));
  Buffers<T> b;
  layout<T>(kind, s, dt, slots, base, &b);
  return b;
}

// Where the weight gradient's transformed gradients Z go: the GEMM's A is their transpose
// [K, tiles], which the GEMM would pack again for every point and block (pack_a: 9% of layer1's
// weight gradient, 11% of layer2.0.conv1's, 1 thread). Where a vector of L channels is one or two
// of the GEMM's MR-channel slivers (AVX-512: MR = 8, L = 16 floats or 8 doubles), the transform
// writes Z in that packed form (conv_winograd_kernels.h, "packed A") in the same bytes, tiles x
// K rounded to L a point, and the GEMM reads it in place; the sums are the same, in the same order.
// The same for the transformed inputs V (v_packed_form), the GEMM's B [tiles, C]: where NR is a
// multiple of L and C rounded to L fills whole NR-wide slivers (AVX2: NR = 16, L = 8 floats, and
// C a multiple of 16), the transform writes V in the b_packed form, tiles x C a point as before,
// and the GEMM reads it in place: the row copy of pack_b, which read each point's V back from
// beyond the L2 cache (a block's V and Z are about 4 MB), is gone (docs/cpu-threads.md).
struct PackedForm {
  int64_t mr = 0, kc = 0, tiles = 0;  // the packed A (Z); mr 0: not that
  int64_t nr = 0;                     // the packed B (V); 0: not that
  bool any() const { return mr > 0 || nr > 0; }
};

template <typename T>
PackedForm z_packed_form(const WinogradKernels<T>& kern, DType dt, int64_t tiles) {
  const int64_t mr = gemm_mr(dt), L = kern.lanes;
  if (mr != L && 2 * mr != L) return {};
  PackedForm f;
  f.mr = mr, f.kc = gemm_kc(dt), f.tiles = tiles;
  return f;
}

template <typename T>
PackedForm v_packed_form(const WinogradKernels<T>& kern, DType dt, int64_t cp, int64_t tiles) {
  const int64_t nr = gemm_nr(dt);
  if (nr % kern.lanes != 0 || cp % nr != 0) return {};
  PackedForm f;
  f.nr = nr, f.tiles = tiles;
  return f;
}

// Stages channel block cb of one image ([channels][h][w]) and transforms its tiles into
// `trans` (tiles first_tile ..): (m+2)x(m+2) input windows (input = true) or m x m gradient tiles,
// in the plain layout or the GEMM's packed A (z_packed_form) or packed B (v_packed_form).
template <typename T>
void transform_image_block(const WinogradKernels<T>& kern, const T* image, int64_t channels, int64_t h, int64_t w,
                           int64_t top, int64_t left, int64_t rows, int64_t cols, const WinoShape& s, int64_t cb,
                           T* stage_buf, T* trans, int64_t tile_stride, int64_t first_tile, bool input,
                           PackedForm packed = {}) {
  const int64_t L = kern.lanes;
  WinoStage<T> st;
  st.x = image + cb * L * h * w;
  st.c = std::min<int64_t>(L, channels - cb * L);
  st.h = h, st.w = w, st.top = top, st.left = left;
  st.xb = stage_buf, st.rows = rows, st.cols = cols;
  kern.stage(st);
  WinoTiles<T> t;
  t.image = stage_buf, t.rows = rows, t.cols = cols, t.blocks = 1;
  t.tiles_h = s.th(), t.tiles_w = s.tw();
  t.trans = trans + cb * L, t.xi_stride = skewed<T>(s.block_tiles() * tile_stride), t.tile_stride = tile_stride;
  t.first_tile = first_tile;
  if (packed.any()) t.trans = trans, t.cb = cb, t.mr = packed.mr, t.kc = packed.kc, t.nr = packed.nr, t.tiles = packed.tiles;
  (input ? kern.input_tiles : kern.grad_tiles)(t);
}

// One image's output y [cout, ho, wo] (+ bias, ReLU) from its tiles first_tile .. of M
// [points][tiles][cout rounded to L] (points m_stride apart), through the staging buffer.
template <typename T>
void write_image(const WinogradKernels<T>& kern, const WinoShape& s, T* m, int64_t m_stride, int64_t first_tile,
                 T* stage, const T* bias, bool relu, T* y) {
  const int64_t L = kern.lanes, coutp = round_up(s.cout, L);
  for (int64_t kb = 0; kb < coutp / L; ++kb) {
    WinoTiles<T> t;
    t.image = stage, t.rows = s.out_rows(), t.cols = s.out_cols(), t.blocks = 1;
    t.tiles_h = s.th(), t.tiles_w = s.tw();
    t.trans = m + kb * L, t.xi_stride = m_stride, t.tile_stride = coutp, t.first_tile = first_tile;
    kern.output_tiles(t);
    WinoUnstage<T> un;
    un.yb = stage, un.rows = s.out_rows(), un.cols = s.out_cols();
    un.y = y + kb * L * s.ho * s.wo;
    un.k = std::min<int64_t>(L, s.cout - kb * L), un.ho = s.ho, un.wo = s.wo;
    un.bias = bias ? bias + kb * L : nullptr;
    un.relu = relu;
    kern.unstage(un);
  }
}

// The forward-like convolution (forward, and the input gradient) on transformed filters
// already in b.filters. Every block is one slot's work from staging to write-back.
template <typename T>
void forward_like(const WinogradKernels<T>& kern, const T* in, const T* bias, bool relu, T* out, const Buffers<T>& b,
                  DType dt) {
  const WinoShape& s = b.shape;
  const int64_t L = kern.lanes, tpi = s.tiles_per_image(), tb = s.block_tiles();
  const int64_t cinp = round_up(s.cin, L), coutp = round_up(s.cout, L);
  const int64_t in_blocks = cinp / L;
  const int64_t u_stride = skewed<T>(gemm_packed_b_elems(s.cin, s.cout, dt));
  const int64_t v_stride = skewed<T>(tb * cinp), m_stride = skewed<T>(tb * coutp);
  const int64_t in_image = s.cin * s.h * s.w, out_image = s.cout * s.ho * s.wo;
  for_units(b.slots, s.blocks(), [&](int sl, int64_t blk) {
    const int64_t n0 = blk * s.ipb, images = std::min(s.ipb, s.n - n0), tiles = images * tpi;
    T* v = b.trans_in[sl];
    T* m = b.trans_out[sl];
    // Stage and transform the block's input, channel block by channel block.
    for (int64_t i = 0; i < images; ++i)
      for (int64_t cb = 0; cb < in_blocks; ++cb)
        transform_image_block(kern, in + (n0 + i) * in_image, s.cin, s.h, s.w, s.pt, s.pl, s.in_rows(), s.in_cols(), s,
                              cb, b.stage_in[sl], v, cinp, i * tpi, /*input=*/true);
    // M[xi] [tiles, cout] = V[xi] [tiles, cin] x U[xi] [cin, cout] for each point.
    for (int64_t xi = 0; xi < s.points(); ++xi) {
      GemmProblem<T> p(tiles, s.cout, s.cin);
      p.a = row_major<T>(v + xi * v_stride, cinp);
      p.b_packed = b.filters + xi * u_stride;
      p.c = m + xi * m_stride;
      p.ldc = coutp;
      gemm(p, {b.gemm_ws[sl], b.gemm_bytes});
    }
    // Inverse-transform and write NCHW (+ bias, ReLU).
    for (int64_t i = 0; i < images; ++i)
      write_image(kern, s, m, m_stride, i * tpi, b.stage_out[sl], bias, relu, out + (n0 + i) * out_image);
  });
}

// The forward-like convolution by chunks of output channels (Kind::FilterChunks, for wide
// layers with few tiles: filter_chunks_suit), four parallel phases: (1) stage and transform
// every image's tiles into V; (2) pack each point's V [tiles, cin] as the GEMMs' A; (3) per chunk
// of output channels, transform the chunk's filters into the slot's packed U and run the
// chunk's point GEMMs over all tiles into M's columns; (4) inverse-transform and write back.
// Filter (p, q) of the packed B operand (rows x cols) at w + p * p_stride + q * q_stride.
template <typename T>
void forward_like_chunks(const WinogradKernels<T>& kern, const T* in, const T* w, int64_t p_stride, int64_t q_stride,
                         bool flip, const T* bias, bool relu, T* out, const Buffers<T>& b, DType dt) {
  const WinoShape& s = b.shape;
  const int64_t L = kern.lanes, tpi = s.tiles_per_image(), tb = s.block_tiles(), nr = gemm_nr(dt);
  const int64_t cinp = round_up(s.cin, L), coutp = round_up(s.cout, L);
  const int64_t in_blocks = cinp / L, cc = chunk_cols(dt);
  const int64_t v_stride = skewed<T>(tb * cinp), m_stride = skewed<T>(tb * coutp);
  const int64_t vp_stride = skewed<T>(gemm_packed_a_elems(tb, s.cin, dt));
  const int64_t uc_stride = skewed<T>(gemm_packed_b_elems(s.cin, cc, dt));
  const int64_t in_image = s.cin * s.h * s.w, out_image = s.cout * s.ho * s.wo;
  T* vm = b.trans_in[0];  // V [points][tb][cinp], then M [points][tb][coutp]
  for_units(b.slots, s.n, [&](int sl, int64_t i) {
    for (int64_t cb = 0; cb < in_blocks; ++cb)
      transform_image_block(kern, in + i * in_image, s.cin, s.h, s.w, s.pt, s.pl, s.in_rows(), s.in_cols(), s, cb,
                            b.stage_in[sl], vm, cinp, i * tpi, /*input=*/true);
  });
  for_units(b.slots, s.points(), [&](int, int64_t xi) {
    GemmProblem<T> pa(tb, 0, s.cin);
    pa.a = row_major<T>(vm + xi * v_stride, cinp);
    gemm_pack_a(pa, b.filters + xi * vp_stride);
  });
  const int64_t w_elems = s.cin * s.cout * 9;
  for_units(b.slots, ceil_div(s.cout, cc), [&](int sl, int64_t chunk) {
    const int64_t q0 = chunk * cc, cols = std::min(cc, s.cout - q0);
    WinoFilter<T> f;
    f.w = w + q0 * q_stride, f.w_elems = w_elems - q0 * q_stride;
    f.rows = s.cin, f.cols = cols, f.p_stride = p_stride, f.q_stride = q_stride, f.flip = flip;
    f.packed = b.u_chunk[sl], f.xi_stride = uc_stride, f.nr = nr;
    f.q0 = 0, f.q1 = round_up(cols, nr);  // zeros past cols in the last sliver
    kern.filter(f);
    // M[xi] [tiles, q0 : q0 + cols] = V[xi] [tiles, cin] x U[xi] [cin, q0 : q0 + cols].
    for (int64_t xi = 0; xi < s.points(); ++xi) {
      GemmProblem<T> p(tb, cols, s.cin);
      p.a_packed = b.filters + xi * vp_stride;
      p.a_packed_m = tb;
      p.b_packed = b.u_chunk[sl] + xi * uc_stride;
      p.c = vm + xi * m_stride + q0;
      p.ldc = coutp;
      gemm(p, {b.gemm_ws[sl], b.gemm_bytes});
    }
  });
  for_units(b.slots, s.n, [&](int sl, int64_t i) {
    write_image(kern, s, vm, m_stride, i * tpi, b.stage_out[sl], bias, relu, out + i * out_image);
  });
}

// Transformed filters into b.filters: one packed [rows, cols] B operand per point.
template <typename T>
void transform_filters(const WinogradKernels<T>& kern, const T* w, int64_t rows, int64_t cols, int64_t p_stride,
                       int64_t q_stride, bool flip, const Buffers<T>& b, DType dt) {
  const int64_t L = kern.lanes, nr = gemm_nr(dt);
  const int64_t width = round_up(cols, nr);  // every column of the last sliver, zeros past cols
  for_units(b.slots, width / L, [&](int, int64_t u) {
    WinoFilter<T> f;
    f.w = w, f.w_elems = rows * cols * 9;
    f.rows = rows, f.cols = cols, f.p_stride = p_stride, f.q_stride = q_stride, f.flip = flip;
    f.packed = b.filters, f.xi_stride = skewed<T>(gemm_packed_b_elems(rows, cols, dt)), f.nr = nr;
    f.q0 = u * L, f.q1 = (u + 1) * L;
    kern.filter(f);
  });
}

}  // namespace

bool winograd_suits(const ConvGeometry& g) {
  const bool pads_ok = g.pt <= 2 && g.pb <= 2 && g.pl <= 2 && g.pr <= 2;
  return g.r == 3 && g.s == 3 && g.sh == 1 && g.sw == 1 && !g.dilated() && !g.grouped() && pads_ok &&
         g.c >= kWinogradMinChannels && g.k >= kWinogradMinChannels && g.ho > 0 && g.wo > 0;
}

bool winograd_stride2_suits(const ConvGeometry& g) {
  const bool pads_ok = g.pt <= 2 && g.pb <= 2 && g.pl <= 2 && g.pr <= 2;
  return g.r == 3 && g.s == 3 && g.sh == 2 && g.sw == 2 && !g.dilated() && !g.grouped() && pads_ok &&
         g.c >= kWinogradMinChannels && g.k >= kWinogradMinChannels && g.ho > 0 && g.wo > 0;
}

bool winograd_filter_chunks(const ConvGeometry& g, int m, DType dt, bool input_gradient) {
  return forward_like_kind(input_gradient ? backward_input_shape(g, m) : forward_shape(g, m), dt) == Kind::FilterChunks;
}

size_t winograd_forward_workspace(const ConvGeometry& g, int m, DType dt) {
  return workspace_bytes(Kind::ForwardLike, forward_shape(g, m), dt);
}
size_t winograd_backward_input_workspace(const ConvGeometry& g, int m, DType dt) {
  return workspace_bytes(Kind::ForwardLike, backward_input_shape(g, m), dt);
}
size_t winograd_backward_weight_workspace(const ConvGeometry& g, int m, DType dt) {
  return workspace_bytes(Kind::Weight, forward_shape(g, m), dt);
}

// The forward-like convolution s of `in` by filters w whose packed B operand (rows x cols) has
// filter (p, q) at w + p * p_stride + q * q_stride, flipped or not.
template <typename T>
void forward_like_call(const WinoShape& s, const T* in, const T* w, int64_t p_stride, int64_t q_stride, bool flip,
                       const T* bias, bool relu, T* out, void* workspace, size_t workspace_bytes) {
  const DType dt = dtype_of<T>();
  Tensor scratch;
  const Buffers<T> b = bind<T>(Kind::ForwardLike, s, dt, workspace, workspace_bytes, scratch);
  const WinogradKernels<T>& kern = kernels<T>(s.m, s.stride);
  if (b.filter_chunks) {
    forward_like_chunks(kern, in, w, p_stride, q_stride, flip, bias, relu, out, b, dt);
    return;
  }
  transform_filters(kern, w, s.cin, s.cout, p_stride, q_stride, flip, b, dt);
  forward_like(kern, in, bias, relu, out, b, dt);
}

template <typename T>
void winograd_forward(const ConvGeometry& g, int m, const T* x, const T* w, const T* bias, bool relu, T* y,
                      void* workspace, size_t workspace_bytes) {
  // B [c, k] = U of filter w[k, c]: row c at stride 9, column k at stride C * 9.
  forward_like_call(forward_shape(g, m), x, w, 9, g.c * 9, /*flip=*/false, bias, relu, y, workspace, workspace_bytes);
}

template <typename T>
void winograd_backward_input(const ConvGeometry& g, int m, const T* gy, const T* w, T* dx, void* workspace,
                             size_t workspace_bytes) {
  // B [k, c] = U of rot180(w[k, c]): row k at stride C * 9, column c at stride 9.
  forward_like_call<T>(backward_input_shape(g, m), gy, w, g.c * 9, 9, /*flip=*/true, nullptr, false, dx, workspace,
                       workspace_bytes);
}

namespace {

// The weight gradient GEMM's A = Z[xi]^T [K, tiles] from Z written with za (z_packed_form): read
// in place in the packed form (a_packed_m: K rounded to L, the rows the transform wrote), or
// through strides.
template <typename T>
void set_z_operand(GemmProblem<T>& p, const T* z, int64_t kp, const PackedForm& za) {
  if (za.mr > 0) {
    p.a_packed = z;
    p.a_packed_m = kp;
  } else {
    p.a = transpose_of<T>(z, kp);
  }
}

// Its B = V[xi] [tiles, C] from V written with va (v_packed_form): in place, or row-major.
template <typename T>
void set_v_operand(GemmProblem<T>& p, const T* v, int64_t cp, const PackedForm& va) {
  if (va.nr > 0) {
    p.b_packed = v;
  } else {
    p.b = row_major<T>(v, cp);
  }
}

// The weight gradient with per-slot accumulators (weight_kind): slot sl takes images
// [N sl / slots, N (sl + 1) / slots), a fixed share, so that each dU element is summed in the
// same order on every run (docs/numerics.md, "Determinism"): over its images' tiles in order,
// then over the slots in order. Two parallel phases in all.
template <typename T>
void weight_per_slot(const WinogradKernels<T>& kern, const ConvGeometry& g, const T* x, const T* gy, T* dw,
                     const Buffers<T>& b) {
  const DType dt = dtype_of<T>();
  const WinoShape& s = b.shape;
  const int64_t L = kern.lanes, tpi = s.tiles_per_image(), tb = s.block_tiles();
  const int64_t cp = round_up(g.c, L), kp = round_up(g.k, L);
  const int64_t c_blocks = cp / L, k_blocks = kp / L;
  const int64_t v_stride = skewed<T>(tb * cp), z_stride = skewed<T>(tb * kp), du_stride = skewed<T>(g.k * g.c);
  const int used = static_cast<int>(std::min<int64_t>(b.slots, g.n));
  parallel_for(used, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t sl = s0; sl < s1; ++sl) {
      T* du = b.filters + sl * b.du_slot_stride;
      T* v = b.trans_in[sl];
      T* z = b.trans_out[sl];
      const int64_t first = g.n * sl / used, last = g.n * (sl + 1) / used;
      for (int64_t n0 = first; n0 < last; n0 += s.ipb) {
        const int64_t images = std::min(s.ipb, last - n0), tiles = images * tpi;
        const PackedForm za = z_packed_form(kern, dt, tiles), va = v_packed_form(kern, dt, cp, tiles);
        // V = B^T x B of the input tiles, Z = A gy A^T of the gradient tiles.
        for (int64_t i = 0; i < images; ++i) {
          for (int64_t cb = 0; cb < c_blocks; ++cb)
            transform_image_block(kern, x + (n0 + i) * g.c * g.hw(), g.c, g.h, g.w, g.pt, g.pl, s.in_rows(),
                                  s.in_cols(), s, cb, b.stage_in[sl], v, cp, i * tpi, /*input=*/true, va);
          for (int64_t kb = 0; kb < k_blocks; ++kb)
            transform_image_block(kern, gy + (n0 + i) * g.k * g.hwo(), g.k, g.ho, g.wo, 0, 0, s.out_rows(),
                                  s.out_cols(), s, kb, b.stage_out[sl], z, kp, i * tpi, /*input=*/false, za);
        }
        // dU_sl[xi] [K, C] (+)= Z[xi]^T [K, tiles] x V[xi] [tiles, C] for each point.
        for (int64_t xi = 0; xi < s.points(); ++xi) {
          GemmProblem<T> p(g.k, g.c, tiles);
          set_z_operand(p, z + xi * z_stride, kp, za);
          set_v_operand(p, v + xi * v_stride, cp, va);
          p.beta = n0 == first ? T(0) : T(1);
          p.c = du + xi * du_stride;
          p.ldc = g.c;
          gemm(p, {b.gemm_ws[sl], b.gemm_bytes});
        }
      }
    }
  });
  // dw[k, c] = G^T (sum over slots of dU_sl[., k, c]) G, one output channel per unit: its rows of
  // every slot's dU are added onto slot 0's, in slot order, then transformed.
  for_units(b.slots, g.k, [&](int, int64_t k) {
    for (int sl = 1; sl < used; ++sl) {
      const T* from = b.filters + sl * b.du_slot_stride;
      for (int64_t xi = 0; xi < s.points(); ++xi) {
        T* to = b.filters + xi * du_stride + k * g.c;
        const T* add = from + xi * du_stride + k * g.c;
        for (int64_t c = 0; c < g.c; ++c) to[c] += add[c];
      }
    }
    WinoFilterAdjoint<T> f;
    f.du = b.filters, f.xi_stride = du_stride, f.ld = g.c, f.c = g.c, f.k0 = k, f.k1 = k + 1, f.dw = dw;
    kern.filter_adjoint(f);
  });
}

}  // namespace

template <typename T>
void winograd_backward_weight(const ConvGeometry& g, int m, const T* x, const T* gy, T* dw, void* workspace,
                              size_t workspace_bytes) {
  const DType dt = dtype_of<T>();
  Tensor scratch;
  const Buffers<T> b = bind<T>(Kind::Weight, forward_shape(g, m), dt, workspace, workspace_bytes, scratch);
  const WinoShape& s = b.shape;
  const WinogradKernels<T>& kern = kernels<T>(s.m, s.stride);
  if (b.per_slot) {
    weight_per_slot(kern, g, x, gy, dw, b);
    return;
  }
  const int64_t L = kern.lanes, tpi = s.tiles_per_image(), tb = s.block_tiles();
  const int64_t cp = round_up(g.c, L), kp = round_up(g.k, L);
  const int64_t c_blocks = cp / L, k_blocks = kp / L;
  const int64_t v_stride = skewed<T>(tb * cp), z_stride = skewed<T>(tb * kp), du_stride = skewed<T>(g.k * g.c);
  // Slot sl owns the points [P sl / slots, P (sl + 1) / slots) of dU and goes through every
  // block on its own: it transforms the block's tiles (all points: each slot repeats the
  // transforms, O(C + K) per tile against the products' O(C K)) into its own buffers and runs its
  // points' GEMMs. One parallel phase for all blocks instead of two per block, no slot waits for
  // another, and each dU[xi] is summed over the blocks in order by one slot (the same bits as
  // with one slot).
  const int used = static_cast<int>(std::min<int64_t>(b.slots, s.points()));
  parallel_for(used, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t sl = s0; sl < s1; ++sl) {
      const int64_t xi0 = s.points() * sl / used, xi1 = s.points() * (sl + 1) / used;
      for (int64_t n0 = 0; n0 < g.n; n0 += s.ipb) {
        const int64_t images = std::min(s.ipb, g.n - n0), tiles = images * tpi;
        const PackedForm za = z_packed_form(kern, dt, tiles), va = v_packed_form(kern, dt, cp, tiles);
        // V = B^T x B of the input tiles, Z = A gy A^T of the gradient tiles.
        for (int64_t i = 0; i < images; ++i) {
          for (int64_t cb = 0; cb < c_blocks; ++cb)
            transform_image_block(kern, x + (n0 + i) * g.c * g.hw(), g.c, g.h, g.w, g.pt, g.pl, s.in_rows(),
                                  s.in_cols(), s, cb, b.stage_in[sl], b.trans_in[sl], cp, i * tpi, /*input=*/true,
                                  va);
          for (int64_t kb = 0; kb < k_blocks; ++kb)
            transform_image_block(kern, gy + (n0 + i) * g.k * g.hwo(), g.k, g.ho, g.wo, 0, 0, s.out_rows(),
                                  s.out_cols(), s, kb, b.stage_out[sl], b.trans_out[sl], kp, i * tpi, /*input=*/false,
                                  za);
        }
        // dU[xi] [K, C] (+)= Z[xi]^T [K, tiles] x V[xi] [tiles, C] for the slot's points.
        for (int64_t xi = xi0; xi < xi1; ++xi) {
          GemmProblem<T> p(g.k, g.c, tiles);
          set_z_operand(p, b.trans_out[sl] + xi * z_stride, kp, za);
          set_v_operand(p, b.trans_in[sl] + xi * v_stride, cp, va);
          p.beta = n0 == 0 ? T(0) : T(1);
          p.c = b.filters + xi * du_stride;
          p.ldc = g.c;
          gemm(p, {b.gemm_ws[sl], b.gemm_bytes});
        }
      }
    }
  });
  // dw[k, c] = G^T dU[., k, c] G, one output channel per unit.
  for_units(b.slots, g.k, [&](int, int64_t k) {
    WinoFilterAdjoint<T> f;
    f.du = b.filters, f.xi_stride = du_stride, f.ld = g.c, f.c = g.c, f.k0 = k, f.k1 = k + 1, f.dw = dw;
    kern.filter_adjoint(f);
  });
}

template void winograd_forward<float>(const ConvGeometry&, int, const float*, const float*, const float*, bool, float*,
                                      void*, size_t);
template void winograd_forward<double>(const ConvGeometry&, int, const double*, const double*, const double*, bool,
                                       double*, void*, size_t);
template void winograd_backward_input<float>(const ConvGeometry&, int, const float*, const float*, float*, void*, size_t);
template void winograd_backward_input<double>(const ConvGeometry&, int, const double*, const double*, double*, void*,
                                              size_t);
template void winograd_backward_weight<float>(const ConvGeometry&, int, const float*, const float*, float*, void*, size_t);
template void winograd_backward_weight<double>(const ConvGeometry&, int, const double*, const double*, double*, void*,
                                               size_t);

}  // namespace cpu
}  // namespace glassgrad
