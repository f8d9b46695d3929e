// CPU kernels: Conv2D, Conv2DBackwardInput, Conv2DBackwardWeight; float32 and float64.
// Inputs dense NCHW (input, grad_out) and KCRS (weight); any stride, padding (implicit zeros:
// index ranges, never a padded copy of the input), dilation, groups and channel counts.
//
// docs/architecture.md's "Convolution formulas", generalized to stride (sh, sw), padding (pt, pl) and
// dilation (dh, dw), for one group (a grouped conv is G of these side by side on channel slices
// of x, w and y: conv_geometry.h's group_slice):
//   forward         y[n,k,i,j]  = b[k] + sum_{c,r,s} x[n, c, i*sh + r*dh - pt, j*sw + s*dw - pl] * w[k,c,r,s]
//   backward input  dx[n,c,h,v] = sum_{k,r,s} gy[n, k, (h + pt - r*dh)/sh, (v + pl - s*dw)/sw] * w[k,c,r,s]
//                                 (only terms whose output index is integral and in range)
//   backward weight dw[k,c,r,s] = sum_{n,i,j} gy[n,k,i,j] * x[n, c, i*sh + r*dh - pt, j*sw + s*dw - pl]
//
// As GEMMs over one image of one group ("unit"), with col = im2col(x[n]) [C*R*S, Ho*Wo]
// (conv_geometry.h):
//   forward         y[n] [K, HoWo]   = w [K, CRS] x col                 (+ b along rows)
//   backward input  cols [CRS, HoWo] = w^T [CRS, K] x gy[n] [K, HoWo];  dx[n] = col2im(cols)
//   backward weight dw [K, CRS]     += gy[n] [K, HoWo] x col^T [HoWo, CRS]   over n
// Transposes are GEMM strides (or column pointers), never copies. Three layouts of the pixel
// axis, picked per call:
//   pointwise  1x1, stride 1, no padding: col is the image itself.
//   flat       stride 1, no padding (any dilation), at most half the pixels surplus (pixel_layout):
//              pixels on the input's row pitch (q = i*W + j), so each
//              col row is one contiguous run of the image, passed to the GEMM as row pointers
//              (forward) or column pointers of col^T (weight gradient); nothing is stored. The
//              surplus columns j >= Wo are computed into a buffer and dropped (forward), or fed
//              zeros through gyv = gy spread onto that pitch (backwards), and col2im is one long
//              vector add per (c, r, s).
//   general    any stride and padding: col is built in a buffer (im2col / col2im in
//              conv_geometry.h): one shifted run per tap when Wo == W at stride 1 ("same"
//              padding), else one segment per output row; the forward of strided convs with
//              short output rows, and of strided 1x1 convs without padding, never stores it,
//              the GEMM's packed panels are gathered from the image (im2col_panels.h).
// A window that covers the whole unpadded input (one output pixel per image) is a fully
// connected layer over the batch: one GEMM a call with the batch on one of its axes (conv_dense.h).
// Few input channels ("direct" paths, no GEMM tiles that would be mostly padding): the forward
// with C*R*S <= 27 and stride 1 along W runs the register-blocked loops of conv_direct.h, and
// the weight gradient with C*R*S no wider than the GEMM's NR-column tile is computed as dot
// products of rows (gemm_dot).
//
// Threads: units (image, group) are spread over slots, each with its own buffers, GEMM packing
// and (weight gradient) dw accumulator, all in the planned workspace. With fewer units than
// threads and GEMMs big enough to split, units run one by one on threaded GEMMs.
#include <algorithm>
#include <vector>

#include "cpu/conv_dense.h"
#include "cpu/conv_direct.h"
#include "cpu/conv_geometry.h"
#include "cpu/conv_pad_classes.h"
#include "cpu/conv_winograd.h"
#include "cpu/gemm/gemm.h"
#include "cpu/im2col_panels.h"
#include "cpu/registration.h"
#include "cpu/rounding.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/conv_algorithm.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/settings.h"

namespace glassgrad {

namespace {

using cpu::ConvGeometry;

using cpu::align_up;
using cpu::kAlign;

enum class ConvOp { Forward, BackwardInput, BackwardWeight };

// The Winograd tile a convolution runs with (docs/numerics.md "How glassgrad chooses"), or 0
// for the GEMM and direct paths. The same for a call and its workspace query, so the planned
// workspace fits. float32: F(2x2, 3x3), whose rounding error stays within the documented bound
// of PyTorch's float32 error, unless conv_fast_winograd() allows F(4x4, 3x3) (measured 7-20x
// PyTorch's error, benchmarks/conv_precision.py); float64 rounds far below any tolerance, so it
// takes F(4x4), the fewest multiplications. cpu::conv_algo() forces a choice (tests, benchmarks).
// At stride 2 the forward and the weight gradient of rows wider than the panels' bound take
// F(2x2, 3x3) at stride 2 (the only tile there, any dtype; its transforms' coefficients are 0
// and +-1) unless "gemm" is forced: 25 multiplications a 2x2 tile and channel pair instead of 36
// (conv_winograd.h). Measured (1 thread, CPU time, batch 32): layer2.0.conv1's 16x16 outputs
// forward 14.6 -> 11.5 ms, weight gradient 14.5 -> 13.5 ms; on rows of 8 or 4 outputs the tap
// groups below measured level (layer3.0.conv1) or faster (layer4.0.conv1: forward 11.0 against
// 12.0 ms, weight gradient 12.9 against 14.7), their transforms and U (25 C K values) weighing
// more against few tiles.
int64_t panels_max_wo(const ConvGeometry& g);
int winograd_tile(const ConvGeometry& g, DType dt, ConvOp op) {
  const std::string forced = cpu::conv_algo();
  if (cpu::winograd_stride2_suits(g) && op != ConvOp::BackwardInput && g.wo > panels_max_wo(g))
    return forced == "gemm" || cpu::conv_dense(g) ? 0 : 2;
  if (!cpu::winograd_suits(g)) return 0;
  if (forced == "gemm") return 0;
  if (forced == "winograd2") return 2;
  if (forced == "winograd4") return 4;
  if (cpu::conv_dense(g)) return 0;  // a 3x3 image: one output pixel, a tile of 2x2 or 4x4 would pad
  return dt == DType::Float64 || conv_fast_winograd() ? 4 : 2;
}

// Largest C*R*S the forward runs by direct loops (conv_direct.h) rather than as a GEMM: for
// 3x3 kernels on 28x28 images the direct loops measured 10-20% faster with 1 to 3 input
// channels and level with the GEMM at 4 (AVX-512; both are then bound by writing y).
constexpr int64_t kDirectMaxTaps = 27;

// Values of the weights' packed copy (for_each_slot) a thread takes at least before a second
// thread shares the packing: smaller copies are over before a sleeping thread would wake.
constexpr int64_t kPackGrainElems = int64_t(1) << 16;

enum class PixelLayout { Pointwise, Flat, General };

// Flat only while at most half of its GEMMs' pixel columns are surplus (flat_pixels against Ho*Wo):
// those cost as much as real ones, W/Wo times the products. A kernel nearly as wide as the image,
// as a text CNN's (k, embedding) window over a [tokens, embedding] plane (Wo = 1 of W = 300),
// would compute hundreds of times the products; the general layout's im2col holds only the real
// pixels (and batches images whose few pixels would leave the GEMM's tiles empty).
PixelLayout pixel_layout(const ConvGeometry& g) {
  if (cpu::pointwise(g)) return PixelLayout::Pointwise;
  const bool flat = g.sh == 1 && g.sw == 1 && g.unpadded() && cpu::flat_pixels(g) <= 2 * g.hwo();
  return flat ? PixelLayout::Flat : PixelLayout::General;
}

// Pixels per image on the GEMM's pixel axis.
int64_t pixels(const ConvGeometry& g, PixelLayout l) { return l == PixelLayout::Flat ? cpu::flat_pixels(g) : g.hwo(); }

// The weight gradient as row dot products when C*R*S is at most one NR-wide tile: measured
// faster for 3x3 kernels up to 4-6 input channels (AVX-512, 28x28 images, K = 16 and 32).
bool weight_by_dots(const ConvGeometry& g, DType dt) { return g.crs() <= cpu::gemm_nr(dt); }

// The weight gradient's GEMM transposed, dw^T [CRS, K] = col [CRS, pixels] x gy^T [pixels, K],
// when K fills the GEMM's NR-wide tiles clearly better than C*R*S does (at least 1/8 fewer
// products in all): ResNet-18's 1x1 stride-2 shortcut of layer2.0 has C*R*S = 64 (two tiles of
// 48, a third of the products on padding) and K = 128 (11%): measured 3.8 -> 2.5 ms, 1 thread.
// layer4.0's (256 -> 288 against 512 -> 528, 8% fewer) measured slower transposed and is not.
// The product lands in a slot buffer and is added to dw transposed (K * CRS values a slot,
// against the GEMM's K * CRS * pixels multiply-adds). Needs col as a strided matrix (the
// pointwise and general layouts; the flat one has only row pointers) and one group.
bool weight_transposed(const ConvGeometry& g, PixelLayout l, int64_t groups, DType dt) {
  if (groups != 1 || weight_by_dots(g, dt) || l == PixelLayout::Flat) return false;
  const int64_t nr = cpu::gemm_nr(dt);
  auto padded = [nr](int64_t n) { return (n + nr - 1) / nr * nr; };
  return 8 * padded(g.k) * g.crs() <= 7 * padded(g.crs()) * g.k;  // products in all, 1/8 fewer
}

// Forward by the direct loops of conv_direct.h: stride 1 along W and few taps.
bool forward_direct(const ConvGeometry& g) { return g.sw == 1 && g.crs() <= kDirectMaxTaps; }

int direct_run_width(DType dt) {
  return dt == DType::Float64 ? cpu::conv_direct_kernel_f64().run_width : cpu::conv_direct_kernel_f32().run_width;
}

// Images one General-layout GEMM covers, side by side on its pixel axis: an image of few output
// pixels (ResNet's 4x4 and 8x8 stride-2 layers) alone would leave most of the GEMM's NR-wide
// tiles empty; about four tiles' worth of columns keep them full. The weight gradient sums
// over the pixel axis (its GEMM depth), so it takes four times more: each GEMM then reads and
// writes the whole dw [K, CRS] fewer times (ResNet's [32,256,8,8] -> 512 stride 2: 25 -> 21 ms).
// Ungrouped convs only (a unit is then an image).
// Where the pixels are the GEMM's N (forward, input gradient), the last NR-wide tile of an
// image count whose columns are not a multiple of NR is computed partly on padding: ResNet's
// 16x16 stride-2 outputs (256 columns) fill 5 1/3 tiles of 48, 11% of the products wasted. Up to
// four times the minimum count, the first that wastes at most 1/32 of the columns is taken
// (256 -> 2 images, 512 columns in 11 tiles, 3% padding), else the minimum.
// The forward by tap groups (by_pad_classes) runs four GEMMs over four pixel ranges of the batch
// (conv_pad_classes.h), each with its own last sliver: there the count is the first whose
// products on the last slivers' padding, the taps of each group times the columns its edge
// sliver computes past the pixels (whole vectors, gemm_impl.h micro_tile), are at most 1/64 of
// all, else the fewest. layer3.0.conv1's 8x8 outputs: 3 images (2.8% on padding) -> 4 (0.6%);
// layer4.0.conv1's 4x4 keep 12 (0.3%).
bool by_pad_classes(ConvOp op, const ConvGeometry& g, int64_t groups, DType dt);

int64_t pad_classes_batch(const ConvGeometry& g, DType dt, int64_t least) {
  const int64_t nr = cpu::gemm_nr(dt);
  const CpuIsa isa = cpu_isa();  // the GEMM's vector width (GG_GEMM_VEC_BYTES of its ISA file)
  const int64_t lanes = (isa == CpuIsa::Avx512 ? 64 : isa == CpuIsa::Avx2 ? 32 : 16) / static_cast<int64_t>(dtype_size(dt));
  auto computed = [&](int64_t n) { return n / nr * nr + (n % nr + lanes - 1) / lanes * lanes; };
  int64_t best = least;
  double best_waste = 1;
  for (int64_t nb = least; nb <= std::min(g.n, 4 * least); ++nb) {
    const cpu::PadClasses pc(g, nb);
    int64_t used = 0, all = 0;
    for (int grp = 0; grp < cpu::PadClasses::kGroups; ++grp) {
      int64_t lo, hi;
      pc.group_pixels(grp, lo, hi);
      used += cpu::PadClasses::group_taps(grp) * (hi - lo);
      all += cpu::PadClasses::group_taps(grp) * computed(hi - lo);
    }
    const double waste = static_cast<double>(all - used) / static_cast<double>(all);
    if (64 * waste <= 1) return nb;
    if (waste < best_waste) best = nb, best_waste = waste;
  }
  return best;
}

int64_t images_per_gemm(ConvOp op, const ConvGeometry& g, PixelLayout l, int64_t groups, DType dt) {
  if (l != PixelLayout::General || groups != 1) return 1;
  const int64_t nr = cpu::gemm_nr(dt), hwo = g.hwo();
  const int64_t columns = (op == ConvOp::BackwardWeight ? 16 : 4) * nr;
  const int64_t least = std::max<int64_t>(1, std::min(g.n, (columns + hwo - 1) / hwo));
  if (op == ConvOp::BackwardWeight) return least;
  if (op == ConvOp::Forward && by_pad_classes(op, g, groups, dt)) return pad_classes_batch(g, dt, least);
  for (int64_t nb = least; nb <= std::min(g.n, 4 * least); ++nb) {
    const int64_t padded = (nb * hwo + nr - 1) / nr * nr;
    if (32 * (padded - nb * hwo) <= padded) return nb;
  }
  return least;
}

// The GEMM each op runs per `batch` images: C [m, n] (+)= A [m, k] x B [k, n] (0s: none).
struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};

// Whether the forward GEMM of this General-layout conv runs on one thread: inside the slots'
// parallel region, or too small to split. Its b_fill (im2col_panels) writes one scratch.
bool forward_gemm_serial(const GemmDims& d, DType dt, int slots) {
  return slots > 1 || in_parallel_region() || cpu::gemm_threads(d.m, d.n, d.k, dt) == 1;
}

// The forward of a strided conv with more than one tap and short output rows (ResNet's 3x3
// stride-2 layers of 8x8 and 4x4 outputs) gathers its im2col straight into the GEMM's packed
// panels, from phase planes (im2col_panels.h), instead of writing the whole matrix (1.8 MB a
// batch of 12 images for [32,256,8,8] -> 512, past the 1 MiB L2) and packing it again
// (docs/cpu-threads.md). Rows of 16 or more outputs keep the stored matrix: im2col moves them in
// 4-wide vector steps already, and layer2.0's 16x16 outputs measured level or 2% slower through
// the panels (1 thread). Kernels of 16 or more taps at stride 2 (DCGAN's 4x4 ones) store R*S/4
// copies of the image in that matrix, against 9/4 for 3x3: they take the panels (and the weight
// gradient the planes, below) up to rows of 32 outputs: [16,16,32,32] -> 32 forward 1.29-1.76 ->
// 0.96-0.98 ms, weight gradient 1.34-1.45 -> 1.18-1.23 ms; [16,1,64,64] -> 16 forward 0.20 ->
// 0.16-0.17 ms (1 thread, CPU time). Only where the GEMM is serial (the panels' scratch is one
// slot's).
int64_t panels_max_wo(const ConvGeometry& g) { return g.r * g.s >= 16 ? 32 : 8; }

bool im2col_panels(const ConvGeometry& g, const GemmDims& d, DType dt, int slots) {
  return d.m > 0 && cpu::im2col_by_planes(g) && g.wo <= panels_max_wo(g) && forward_gemm_serial(d, dt, slots);
}

// The forward of a 1x1 conv at a stride above 1 without padding (ResNet's downsampling
// shortcuts) gathers its panels straight from the image too (cpu::StridedPointwisePanels), one
// strided run per image row: im2col stored the batch's matrix and the GEMM packed it again
// (docs/cpu-threads.md, "The 1x1 stride-2 forward: im2col in the panels"). Any row width, any
// thread count (the fill needs no scratch).
bool strided_pointwise_panels(const ConvGeometry& g, const GemmDims& d) {
  return d.m > 0 && cpu::StridedPointwisePanels<float>::suits(g);
}

// The weight gradient of the same convs stores its im2col matrix (its GEMM reads the rows as the
// columns of B), but builds it from the phase planes too (cpu::im2col_planes), each row written
// left to right across the batch: layer3.0's and layer4.0's im2col of 32 images measured 1.6 ->
// 1.25 ms (1 thread); layer2.0's 16x16 outputs 1.9 -> 2.0 ms, so the same bound on Wo.
bool weight_planes(const ConvGeometry& g) { return cpu::im2col_by_planes(g) && g.wo <= panels_max_wo(g); }

// The input gradient of strided convs with more than one tap runs col2im through the planes
// (cpu::col2im_planes: contiguous adds into zeroed planes, then one strided write-back), for any
// output width: col2im's strided scatter-adds measured 3.00 -> 1.63 ms for layer2.0's 32 images,
// 1.40 -> 1.04 (layer3.0), 1.10 -> 0.95 (layer4.0), 1 thread, the same values to the bit.
bool input_planes(const ConvGeometry& g) { return cpu::im2col_by_planes(g); }

// The forward and weight gradient of the 3x3 stride-2 convs whose padding taps are all at the
// top and left run one GEMM per tap group over only the pixels it reaches (conv_pad_classes.h),
// skipping the padding's zeros, their B gathered element by element into the panels. Measured
// (1 thread, CPU time, batch 32): layer4.0.conv1's 4x4 outputs forward 12.8 -> 11.3 ms, weight
// gradient 15.3 -> 13.3 ms; layer3.0's 8x8 forward 12.7 -> 12.2 ms, weight gradient level. Rows
// of 16 outputs (layer2.0, 4% of the taps in the padding) measured slower (forward 13.6 -> 15.9
// ms, weight gradient 14 -> 24 ms: the element gather against im2col's vector row gather, and
// for the weight gradient across channels a plane apart), so the same bound on Wo as the panels.
// Ungrouped (the shared packed A; one unit is one image).
bool by_pad_classes(ConvOp op, const ConvGeometry& g, int64_t groups, DType dt) {
  if (op == ConvOp::BackwardInput || groups != 1 || !cpu::pad_classes_suit(g) || g.wo > panels_max_wo(g)) return false;
  return op == ConvOp::Forward ? !forward_direct(g) : !weight_by_dots(g, dt);
}

// The forward's tap groups' A (w' [K, |G|*C], conv_pad_classes.h), each packed once a call into the
// shared packed-A area: where group grp starts (elements; each start 64-byte aligned), and with
// grp = 4 the whole area.
int64_t pad_group_packed_at(const ConvGeometry& g, DType dt, int grp) {
  int64_t at = 0;
  for (int G = 0; G < grp; ++G) at += (cpu::gemm_packed_a_elems(g.k, cpu::PadClasses::group_taps(G) * g.c, dt) + 15) / 16 * 16;
  return at;
}

GemmDims image_gemm(ConvOp op, const ConvGeometry& g, PixelLayout l, int64_t groups, DType dt, int64_t batch) {
  const int64_t q = pixels(g, l) * batch;
  switch (op) {
    case ConvOp::Forward:
      if (forward_direct(g)) return {};
      return {g.k, q, g.crs()};
    case ConvOp::BackwardInput: return {g.crs(), q, g.k};
    case ConvOp::BackwardWeight:
      if (weight_by_dots(g, dt)) return {};
      if (weight_transposed(g, l, groups, dt)) return {g.crs(), g.k, q};
      return {g.k, g.crs(), q};
  }
  return {};
}

// How the units (image, group) of one call are spread over threads, and each slot's share of
// the workspace (sized for one group: g is the group slice, `units` = N * groups):
// [buffer 0][buffer 1][dw accumulator][dw^T (weight_transposed)][phase planes (weight_planes,
// input_planes; the forward by tap groups: its split columns)][GEMM packing], each 64-byte aligned.
//   forward:         buffer 0 = staged rows (direct), y on the flat pitch [K, Nq] (flat), or
//                    col [CRS, batch*HoWo] (general), or the phase planes of one channel of the
//                    batch (general, im2col_panels), or none (general, strided_pointwise_panels);
//                    buffer 1 = y of the batch [K, batch*HoWo]
//   backward input:  buffer 0 = cols [CRS, batch*pixels];  buffer 1 = gyv [K, Nq] (flat) or gy
//                    of the batch [K, batch*HoWo] (general)
//   backward weight: buffer 0 = gyv [K, Nq] (flat) or col [CRS, batch*HoWo] (general);
//                    buffer 1 = gy of the batch [K, batch*HoWo] (general)
// (buffer 1 of the general layout only when batch > 1).
// After the slots, shared by them: the GEMMs' A (the weights: w for the forward, w^T for the
// input gradient) packed once a call (gemm_pack_a), which every GEMM of every image batch reads
// in place; it used to be packed again by each GEMM, as many times as there are batches (ResNet's
// [32,256,8,8] -> 512 stride 2: 4.7 MB of weights packed 3 times a call). Ungrouped convs only.
struct ConvPlan {
  int slots = 1;
  int64_t batch = 1;  // images per GEMM (images_per_gemm)
  bool panels = false;  // forward: im2col gathered into the GEMM's panels (im2col_panels)
  bool pointwise_panels = false;  // forward: the same for a strided 1x1 kernel (strided_pointwise_panels)
  bool pad_classes = false;  // by_pad_classes
  size_t buf_bytes[2] = {0, 0};
  size_t partial_bytes = 0, gemm_bytes = 0;
  size_t dwt_bytes = 0;  // weight gradient, weight_transposed: the slot's dw^T [CRS, K]
  size_t planes_bytes = 0;  // weight_planes / input_planes: phase planes of one channel of the batch;
                            // forward, pad_classes: the batch's images with split columns
  int64_t a_m = 0, a_k = 0;  // the shared packed A [a_m, a_k] (0: none)
  size_t a_packed_bytes = 0;
  size_t w_cols_bytes = 0;  // forward, pad_classes: w's column offsets in col's row order, shared (after A)
  size_t slot_bytes() const { return buf_bytes[0] + buf_bytes[1] + partial_bytes + dwt_bytes + planes_bytes + gemm_bytes; }
  size_t total() const { return static_cast<size_t>(slots) * slot_bytes() + a_packed_bytes + w_cols_bytes + kAlign; }
};

ConvPlan plan_conv(ConvOp op, const ConvGeometry& g, int64_t units, DType dt, int threads) {
  ConvPlan p;
  const PixelLayout l = pixel_layout(g);
  p.batch = images_per_gemm(op, g, l, units / g.n, dt);
  const GemmDims d = image_gemm(op, g, l, units / g.n, dt, p.batch);
  const size_t el = dtype_size(dt);
  const int64_t q = pixels(g, l) * p.batch, work = units * g.k * g.crs() * g.hwo();
  const bool batched = p.batch > 1;
  const bool gemm_splits = d.m > 0 && cpu::gemm_threads(d.m, d.n, d.k, dt) > 1;
  if (threads > 1 && units > 1 && work >= cpu::kGemmMinParallelWork && (units >= threads || !gemm_splits)) {
    p.slots = static_cast<int>(std::min<int64_t>(threads, units));
  }
  auto bytes = [&](int64_t elements) { return align_up(static_cast<size_t>(elements) * el); };
  p.pad_classes = by_pad_classes(op, g, units / g.n, dt);
  if (p.pad_classes) {
    // The gather offsets of col's rows and of the batch's pixels (pad_classes_offsets), the
    // batch's y or gy in the class order [K, q]; the weight gradient's dw' [K, 9C] in dwt.
    p.buf_bytes[0] = align_up(static_cast<size_t>(g.crs() + q) * sizeof(int64_t));
    p.buf_bytes[1] = bytes(g.k * q);
    if (op == ConvOp::BackwardWeight) {
      p.dwt_bytes = bytes(g.k * g.crs());
      if (p.slots > 1) p.partial_bytes = bytes(g.k * g.crs());
    } else {
      if (cpu::pad_classes_split_columns(g))  // the batch's images, columns split
        p.planes_bytes = bytes(cpu::split_columns_elems(p.batch * g.c * g.h, g.w));
      p.a_m = d.m, p.a_k = d.k;
      p.a_packed_bytes = bytes(pad_group_packed_at(g, dt, cpu::PadClasses::kGroups));
      p.w_cols_bytes = align_up(static_cast<size_t>(g.crs()) * sizeof(int64_t));
    }
    if (d.m > 0) p.gemm_bytes = align_up(cpu::gemm_workspace_bytes(d.m, d.n, d.k, dt, /*serial=*/p.slots > 1));
    return p;
  }
  switch (op) {
    case ConvOp::Forward:
      if (forward_direct(g)) {
        p.batch = 1;
        p.buf_bytes[0] = bytes(cpu::conv_direct_scratch_elems(g.c, g.r, g.s, g.dw, g.wo, direct_run_width(dt)));
      } else if (l == PixelLayout::Flat) {
        p.buf_bytes[0] = bytes(g.k * q);
      } else if (l == PixelLayout::General) {
        p.panels = im2col_panels(g, d, dt, p.slots);
        p.pointwise_panels = strided_pointwise_panels(g, d);
        if (!p.pointwise_panels) p.buf_bytes[0] = bytes(p.panels ? cpu::Im2colPanels<float>::scratch_elems(g, p.batch) : g.crs() * q);
        if (batched) p.buf_bytes[1] = bytes(g.k * q);
      }
      break;
    case ConvOp::BackwardInput:
      if (l != PixelLayout::Pointwise) p.buf_bytes[0] = bytes(g.crs() * q);
      if (l == PixelLayout::Flat || batched) p.buf_bytes[1] = bytes(g.k * q);
      if (l == PixelLayout::General && input_planes(g)) p.planes_bytes = bytes(cpu::PhasePlanes(g).elems(g) * p.batch);
      break;
    case ConvOp::BackwardWeight:
      if (l == PixelLayout::Flat) p.buf_bytes[0] = bytes(g.k * q);
      if (l == PixelLayout::General) p.buf_bytes[0] = bytes(g.crs() * q);
      if (batched) p.buf_bytes[1] = bytes(g.k * q);
      if (p.slots > 1) p.partial_bytes = bytes(units / g.n * g.k * g.crs());  // every group's dw
      if (weight_transposed(g, l, units / g.n, dt)) p.dwt_bytes = bytes(g.crs() * g.k);
      if (l == PixelLayout::General && weight_planes(g)) p.planes_bytes = bytes(cpu::PhasePlanes(g).elems(g) * p.batch);
      break;
  }
  if (d.m > 0) p.gemm_bytes = align_up(cpu::gemm_workspace_bytes(d.m, d.n, d.k, dt, /*serial=*/p.slots > 1));
  if (d.m > 0 && op != ConvOp::BackwardWeight && units == g.n) {
    p.a_m = d.m, p.a_k = d.k;
    p.a_packed_bytes = align_up(static_cast<size_t>(cpu::gemm_packed_a_elems(d.m, d.k, dt)) * el);
  }
  return p;
}

template <typename T>
const cpu::ConvDirectKernel<T>& direct_kernel();
template <>
const cpu::ConvDirectKernel<float>& direct_kernel<float>() { return cpu::conv_direct_kernel_f32(); }
template <>
const cpu::ConvDirectKernel<double>& direct_kernel<double>() { return cpu::conv_direct_kernel_f64(); }

int64_t units_of(const ConvGeometry& g) { return g.n * g.groups; }

size_t workspace_for(ConvOp op, const ConvGeometry& g, DType dt) {
  return plan_conv(op, cpu::group_slice(g), units_of(g), dt, get_num_threads()).total();
}

// One slot's buffers.
template <typename T>
struct Slot {
  int index = 0;
  int64_t batch = 1;  // images per General-layout GEMM
  bool panels = false;  // forward: ConvPlan::panels
  bool pointwise_panels = false;  // forward: ConvPlan::pointwise_panels
  bool pad_classes = false;  // ConvPlan::pad_classes
  const int64_t* w_col_at = nullptr;  // forward, pad_classes: w' as columns of w (pad_classes_weight_cols)
  T* buf[2] = {nullptr, nullptr};
  T* partial = nullptr;
  T* dwt = nullptr;
  T* planes = nullptr;  // ConvPlan::planes_bytes
  cpu::GemmWorkspace gemm_ws;
  const T* a_packed = nullptr;  // the GEMM's A packed once for all slots (ConvPlan), or null
  int64_t a_packed_m = 0;
  // The GEMM's A: read in place from the shared packed copy when there is one, else `a`.
  void set_a(cpu::GemmProblem<T>& gp, cpu::MatrixView<T> a) const {
    gp.a = a;
    gp.a_packed = a_packed;
    gp.a_packed_m = a_packed_m;
  }
};

// pad_classes: the gather offsets of a batch of nb images (cpu::pad_classes_offsets) written
// into the slot's buf[0]: col's 9C rows, then the batch's pixels in the class order.
template <typename T>
const int64_t* pad_offsets(const Slot<T>& slot, const ConvGeometry& g, int64_t nb, bool channel_major,
                           bool split_columns) {
  int64_t* rows = reinterpret_cast<int64_t*>(slot.buf[0]);
  cpu::pad_classes_offsets(g, nb, g.c * g.hw(), channel_major, split_columns, rows, rows + g.crs());
  return rows;
}

// Runs fn(slot, u_begin, u_end) for each slot's range of units (u = n * groups + group), in
// parallel when the plan has several slots. Uses the planned workspace; if it is short (the
// thread count changed since planning), fewer slots, or a temporary buffer from the CPU
// allocator. g is the whole conv's geometry; `a` is the GEMMs' A [a_m, a_k] (the weights as the
// op reads them), packed once before the slots start when the plan shares it.
template <typename T, typename F>
void for_each_slot(ConvOp op, const ConvGeometry& whole, DType dt, void* workspace, size_t workspace_bytes,
                   cpu::MatrixView<T> a, F&& fn) {
  const ConvGeometry g = cpu::group_slice(whole);
  const int64_t units = units_of(whole);
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  ConvPlan p = plan_conv(op, g, units, dt, threads);
  for (int t = p.slots - 1; t >= 1 && p.total() > workspace_bytes; --t) p = plan_conv(op, g, units, dt, t);
  Tensor scratch;
  char* base = static_cast<char*>(workspace);
  if (p.total() > workspace_bytes || base == nullptr) {
    p = plan_conv(op, g, units, dt, threads);
    scratch = Tensor::empty({static_cast<int64_t>(p.total())}, DType::UInt8, Device::cpu(), "conv workspace");
    base = static_cast<char*>(scratch.data_ptr());
  }
  base = reinterpret_cast<char*>(align_up(reinterpret_cast<uintptr_t>(base)));
  T* a_packed = nullptr;
  int64_t* w_col_at = nullptr;
  if (p.a_packed_bytes > 0) a_packed = reinterpret_cast<T*>(base + static_cast<size_t>(p.slots) * p.slot_bytes());
  if (a_packed != nullptr) {
    // Packed by all threads, a range of MR-row slivers each, before the slots start: for the
    // wide layers the copy is megabytes (layer4.0.conv1's weights: 4.7 MB), which one thread
    // packed while the others waited (docs/cpu-threads.md, "The weights packed once a call").
    const int64_t mr = cpu::gemm_mr(dt);
    const int64_t rows = p.pad_classes ? g.k : p.a_m, depth = p.pad_classes ? g.crs() : p.a_k;
    if (p.pad_classes) {
      w_col_at = reinterpret_cast<int64_t*>(base + static_cast<size_t>(p.slots) * p.slot_bytes() + p.a_packed_bytes);
      cpu::pad_classes_weight_cols(g, w_col_at);
    }
    const int64_t slivers = cpu::ceil_div(rows, mr);
    parallel_for(slivers, std::max<int64_t>(1, kPackGrainElems / (mr * depth)), [&](int64_t s0, int64_t s1) {
      const int64_t r0 = s0 * mr, r1 = std::min(rows, s1 * mr);
      if (!p.pad_classes) {
        cpu::GemmProblem<T> pa(p.a_m, 0, p.a_k);
        pa.a = a;
        cpu::gemm_pack_a_rows(pa, r0, r1 - r0, a_packed);
        return;
      }
      // Each tap group's A (w' [K, |G|*C], conv_pad_classes.h) packed straight from w, a few rows
      // at a time for all four groups, so each row of w is read from memory once while it stays
      // in cache. (Reordering w into w' first, then packing, was 6% of layer4.0.conv1's forward.)
      for (int64_t r = r0; r < r1; r += mr) {
        for (int grp = 0; grp < cpu::PadClasses::kGroups; ++grp) {
          cpu::GemmProblem<T> pa(g.k, 0, cpu::PadClasses::group_taps(grp) * g.c);
          pa.a = cpu::row_major(a.data, g.crs());
          pa.a_col_at = w_col_at + cpu::PadClasses::kGroupTap[grp] * g.c;
          cpu::gemm_pack_a_rows(pa, r, std::min(mr, g.k - r), a_packed + pad_group_packed_at(g, dt, grp));
        }
      }
    });
  }
  auto run = [&](int64_t s) {
    char* sb = base + static_cast<size_t>(s) * p.slot_bytes();
    Slot<T> slot;
    slot.index = static_cast<int>(s);
    slot.batch = p.batch;
    slot.panels = p.panels;
    slot.pointwise_panels = p.pointwise_panels;
    slot.pad_classes = p.pad_classes;
    slot.w_col_at = w_col_at;
    slot.buf[0] = p.buf_bytes[0] ? reinterpret_cast<T*>(sb) : nullptr;
    slot.buf[1] = p.buf_bytes[1] ? reinterpret_cast<T*>(sb + p.buf_bytes[0]) : nullptr;
    sb += p.buf_bytes[0] + p.buf_bytes[1];
    slot.partial = p.partial_bytes ? reinterpret_cast<T*>(sb) : nullptr;
    sb += p.partial_bytes;
    slot.dwt = p.dwt_bytes ? reinterpret_cast<T*>(sb) : nullptr;
    sb += p.dwt_bytes;
    slot.planes = p.planes_bytes ? reinterpret_cast<T*>(sb) : nullptr;
    slot.gemm_ws = {sb + p.planes_bytes, p.gemm_bytes};
    slot.a_packed = a_packed;
    slot.a_packed_m = p.a_m;
    fn(slot, units * s / p.slots, units * (s + 1) / p.slots);
  };
  if (p.slots == 1) {
    run(0);
    return;
  }
  parallel_for(p.slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) run(s);
  });
}

// gyv [K, Nq] <- gy[n] [K, Ho, Wo] spread onto the input's row pitch W, zeros at j >= Wo.
template <typename T>
void spread_to_flat(const ConvGeometry& g, const T* gy, T* gyv) {
  const int64_t nq = cpu::flat_pixels(g);
  for (int64_t k = 0; k < g.k; ++k) {
    const T* src = gy + k * g.hwo();
    T* dst = gyv + k * nq;
    for (int64_t i = 0; i < g.ho; ++i) {
      std::copy(src + i * g.wo, src + (i + 1) * g.wo, dst + i * g.w);
      if (i + 1 < g.ho) std::fill(dst + i * g.w + g.wo, dst + (i + 1) * g.w, T(0));
    }
  }
}

// Element offsets of one unit u = n * groups + group (image n of one group) in the dense NCHW /
// KCRS tensors of the whole conv: its x (or dx) [C/G, H, W], w [K/G, C/G, R, S], y (or gy)
// [K/G, Ho, Wo] and bias [K/G].
struct UnitPtrs {
  int64_t x, w, y, bias;
  UnitPtrs(const ConvGeometry& whole, int64_t u) {
    const int64_t n = u / whole.groups, grp = u % whole.groups;
    x = (n * whole.c + grp * whole.cg()) * whole.hw();
    y = (n * whole.k + grp * whole.kg()) * whole.hwo();
    w = grp * whole.kg() * whole.crs();
    bias = grp * whole.kg();
  }
};

// dst [K, batch*HoWo] (image i at column i*HoWo) <- the batch's [K, HoWo] blocks, image_stride apart.
template <typename T>
void gather_batch(const T* src, int64_t k, int64_t hwo, int64_t image_stride, int64_t batch, T* dst) {
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t i = 0; i < batch; ++i)
      std::copy(src + i * image_stride + kk * hwo, src + i * image_stride + (kk + 1) * hwo, dst + (kk * batch + i) * hwo);
}

// Fused activation (attrs "activation" = "relu", set by the fusion pass): applied to the
// finished output in place, so no separate ReLU buffer or step exists.
template <typename T>
void relu_in_place(T* y, int64_t total) {
  parallel_for(total, 65536, [y](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = y[i] > T(0) ? y[i] : T(0);
  });
}

template <typename T>
void conv2d_forward(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const T* bias = c.inputs.size() > 2 ? c.inputs[2].data<T>() : nullptr;
  const ConvGeometry whole = cpu::conv_geometry(x.shape(), w.shape(), c.attrs);
  const ConvGeometry g = cpu::group_slice(whole);
  const T* xp = x.data<T>();
  const T* wp0 = w.data<T>();
  T* yp = c.outputs[0].data<T>();
  if (g.n == 0 || g.k == 0) return;
  const bool relu = fused_relu(c.attrs);
  if (const int m = winograd_tile(whole, x.dtype(), ConvOp::Forward)) {
    cpu::winograd_forward<T>(whole, m, xp, wp0, bias, relu, yp, c.workspace, c.workspace_bytes);
    return;
  }
  if (cpu::conv_dense(whole)) {
    cpu::dense_forward<T>(whole, xp, wp0, bias, yp, c.workspace, c.workspace_bytes);
    if (relu) relu_in_place(yp, c.outputs[0].numel());
    return;
  }
  const PixelLayout layout = pixel_layout(g);
  const int64_t hwo = g.hwo(), crs = g.crs();
  for_each_slot<T>(ConvOp::Forward, whole, x.dtype(), c.workspace, c.workspace_bytes, cpu::row_major(wp0, crs),
                   [&](const Slot<T>& slot, int64_t u0, int64_t u1) {
    std::vector<const T*> rows(layout == PixelLayout::Flat ? static_cast<size_t>(crs) : 0);
    const bool batches = layout == PixelLayout::General && !forward_direct(g);
    for (int64_t u = u0, nb = 1; u < u1; u += nb) {
      nb = batches ? std::min(slot.batch, u1 - u) : 1;  // images u .. u + nb
      const UnitPtrs at(whole, u);
      const T* xn = xp + at.x;
      const T* wp = wp0 + at.w;
      const T* bn = bias ? bias + at.bias : nullptr;
      T* yn = yp + at.y;
      if (forward_direct(g)) {
        cpu::ConvDirectProblem<T> dp;
        dp.c = g.c, dp.h = g.h, dp.w = g.w, dp.k = g.k, dp.r = g.r, dp.s = g.s;
        dp.sh = g.sh, dp.pt = g.pt, dp.pl = g.pl, dp.dh = g.dh, dp.dw = g.dw, dp.ho = g.ho, dp.wo = g.wo;
        dp.x = xn, dp.weight = wp, dp.bias = bn, dp.y = yn, dp.scratch = slot.buf[0];
        direct_kernel<T>().forward(dp);
        continue;
      }
      if (layout == PixelLayout::Flat) {
        // y on the input's pitch into buf[0], then the Wo real columns of each row (+ bias).
        const int64_t nq = cpu::flat_pixels(g);
        T* yv = slot.buf[0];
        for (int64_t p = 0; p < crs; ++p) rows[static_cast<size_t>(p)] = xn + cpu::flat_offset(g, p);
        cpu::GemmProblem<T> gp(g.k, nq, crs);
        slot.set_a(gp, cpu::row_major(wp, crs));
        gp.b_rows = rows.data();
        gp.c = yv;
        gp.ldc = nq;
        cpu::gemm(gp, slot.gemm_ws);
        for (int64_t k = 0; k < g.k; ++k) {
          const T b = bn ? bn[k] : T(0);
          for (int64_t i = 0; i < g.ho; ++i) {
            const T* from = yv + k * nq + i * g.w;
            T* to = yn + k * hwo + i * g.wo;
            for (int64_t j = 0; j < g.wo; ++j) to[j] = from[j] + b;
          }
        }
        continue;
      }
      if (slot.pad_classes) {
        // yc [K, nb*HoWo] (class order) = the tap groups' GEMMs, each over the pixels it reaches
        // (G2, read by all, first: it writes every column), then scattered into y (+ bias). Rows
        // of more than 4 outputs gather from the batch's images with their columns split
        // (slot.planes, cpu::pad_classes_split_columns), where an output row's pixels read one
        // run of the image (cpu::pad_classes_offsets) that the panels copy in blocks.
        const int64_t ld = nb * hwo;
        const cpu::PadClasses pc(g, nb);
        const bool split = cpu::pad_classes_split_columns(g);
        if (split) cpu::split_columns(xn, nb * g.c * g.h, g.w, slot.planes);
        const int64_t* row_at = pad_offsets(slot, g, nb, /*channel_major=*/true, split);
        const int64_t* pixel_at = row_at + crs;
        for (int grp : {2, 1, 3, 0}) {
          int64_t lo, hi;
          pc.group_pixels(grp, lo, hi);
          const int64_t row0 = cpu::PadClasses::kGroupTap[grp] * g.c;
          cpu::GemmProblem<T> gp(g.k, hi - lo, cpu::PadClasses::group_taps(grp) * g.c);
          gp.a = cpu::row_major(wp, crs);
          gp.a_col_at = slot.w_col_at + row0;
          gp.a_packed = slot.a_packed + pad_group_packed_at(g, x.dtype(), grp);
          gp.a_packed_m = g.k;
          const cpu::GatherPanels<T> fill{split ? slot.planes : xn, row_at + row0, pixel_at + lo, split};
          gp.b_fill = &cpu::GatherPanels<T>::fill;
          gp.b_fill_ctx = &fill;
          gp.beta = grp == 2 ? T(0) : T(1);
          gp.c = slot.buf[1] + lo;
          gp.ldc = ld;
          cpu::gemm(gp, slot.gemm_ws);
        }
        cpu::pad_classes_scatter(g, slot.buf[1], ld, nb, bn, yn, g.k * hwo);
        continue;
      }
      // y [K, nb*HoWo] = w x col: straight into y for one image (bias filled in first),
      // through buf[1] for a batch (bias added on the way out).
      const int64_t ld = nb * hwo;
      T* out = nb > 1 ? slot.buf[1] : yn;
      if (bn && nb == 1) {
        for (int64_t k = 0; k < g.k; ++k) std::fill(yn + k * hwo, yn + (k + 1) * hwo, bn[k]);
      }
      cpu::GemmProblem<T> gp(g.k, ld, crs);
      slot.set_a(gp, cpu::row_major(wp, crs));
      cpu::Im2colPanels<T> panels;
      const cpu::StridedPointwisePanels<T> pointwise_panels{&g, xn, g.c * g.hw()};
      if (slot.panels) {  // the GEMM packs B by gathering it from the images (plan_conv)
        panels.g = &g, panels.x = xn, panels.image_stride = g.c * g.hw(), panels.images = nb;
        panels.scratch = slot.buf[0];
        gp.b_fill = &cpu::Im2colPanels<T>::fill;
        gp.b_fill_ctx = &panels;
      } else if (slot.pointwise_panels) {
        gp.b_fill = &cpu::StridedPointwisePanels<T>::fill;
        gp.b_fill_ctx = &pointwise_panels;
      } else if (layout == PixelLayout::General) {
        for (int64_t i = 0; i < nb; ++i) cpu::im2col(g, xn + i * g.c * g.hw(), slot.buf[0] + i * hwo, ld);
        gp.b = cpu::row_major(slot.buf[0], ld);
      } else {
        gp.b = cpu::row_major(xn, ld);  // pointwise: col is the image
      }
      gp.beta = bn && nb == 1 ? T(1) : T(0);
      gp.c = out;
      gp.ldc = ld;
      cpu::gemm(gp, slot.gemm_ws);
      for (int64_t i = 0; i < nb && nb > 1; ++i) {
        for (int64_t k = 0; k < g.k; ++k) {
          const T b = bn ? bn[k] : T(0);
          const T* from = out + k * ld + i * hwo;
          T* to = yn + i * g.k * hwo + k * hwo;
          for (int64_t j = 0; j < hwo; ++j) to[j] = from[j] + b;
        }
      }
    }
  });
  if (relu) relu_in_place(yp, c.outputs[0].numel());
}

template <typename T>
void conv2d_backward_input_kernel(const KernelContext& c) {
  const Tensor& gy = c.inputs[0];
  const Tensor& w = c.inputs[1];
  const ConvGeometry whole = cpu::conv_geometry(c.attrs.ints("input_shape"), w.shape(), c.attrs);
  const ConvGeometry g = cpu::group_slice(whole);
  const T* gyp = gy.data<T>();
  const T* wp0 = w.data<T>();
  T* dxp = c.outputs[0].data<T>();
  if (g.n == 0 || g.c == 0) return;
  if (const int m = winograd_tile(whole, gy.dtype(), ConvOp::BackwardInput)) {
    cpu::winograd_backward_input<T>(whole, m, gyp, wp0, dxp, c.workspace, c.workspace_bytes);
    return;
  }
  if (cpu::conv_dense(whole)) {
    cpu::dense_backward_input<T>(whole, gyp, wp0, dxp, c.workspace, c.workspace_bytes);
    return;
  }
  const PixelLayout layout = pixel_layout(g);
  const int64_t hwo = g.hwo(), crs = g.crs();
  for_each_slot<T>(ConvOp::BackwardInput, whole, gy.dtype(), c.workspace, c.workspace_bytes,
                   cpu::transpose_of(wp0, crs), [&](const Slot<T>& slot, int64_t u0, int64_t u1) {
    for (int64_t u = u0, nb = 1; u < u1; u += nb) {
      nb = layout == PixelLayout::General ? std::min(slot.batch, u1 - u) : 1;  // images u .. u + nb
      const UnitPtrs at(whole, u);
      const T* gyn = gyp + at.y;
      const T* wp = wp0 + at.w;
      T* dxn = dxp + at.x;
      // cols [CRS, pixels] = w^T [CRS, K] x gy[n] [K, pixels]: the weight read transposed
      // through its strides.
      auto backward_gemm = [&](const T* b, int64_t q, T* out) {
        cpu::GemmProblem<T> gp(crs, q, g.k);
        slot.set_a(gp, cpu::transpose_of(wp, crs));
        gp.b = cpu::row_major(b, q);
        gp.c = out;
        gp.ldc = q;
        cpu::gemm(gp, slot.gemm_ws);
      };
      if (layout == PixelLayout::Pointwise) {
        backward_gemm(gyn, hwo, dxn);
      } else if (layout == PixelLayout::Flat) {
        // cols [CRS, Nq] = w^T x gyv; col2im on the flat pitch is a long add per (c, r, s)
        // (surplus columns of cols are exactly 0, since gyv is 0 there).
        const int64_t nq = cpu::flat_pixels(g);
        T* cols = slot.buf[0];
        T* gyv = slot.buf[1];
        spread_to_flat(g, gyn, gyv);
        backward_gemm(gyv, nq, cols);
        std::fill(dxn, dxn + g.c * g.hw(), T(0));
        for (int64_t p = 0; p < crs; ++p) {
          T* to = dxn + cpu::flat_offset(g, p);
          const T* from = cols + p * nq;
          for (int64_t q = 0; q < nq; ++q) to[q] += from[q];
        }
      } else {
        // cols [CRS, nb*HoWo] from gy of the batch side by side, then col2im per image.
        const int64_t ld = nb * hwo;
        const T* b = gyn;
        if (nb > 1) {
          gather_batch(gyn, g.k, hwo, g.k * hwo, nb, slot.buf[1]);
          b = slot.buf[1];
        }
        T* cols = slot.buf[0];
        backward_gemm(b, ld, cols);
        if (slot.planes != nullptr) {
          cpu::col2im_planes(g, cols, ld, nb, dxn, g.c * g.hw(), slot.planes);
        } else {
          for (int64_t i = 0; i < nb; ++i) cpu::col2im(g, cols + i * hwo, dxn + i * g.c * g.hw(), ld);
        }
      }
    }
  });
}

template <typename T>
void conv2d_backward_weight_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& gy = c.inputs[1];
  const ConvGeometry whole = cpu::conv_geometry(x.shape(), c.attrs.ints("weight_shape"), c.attrs);
  const ConvGeometry g = cpu::group_slice(whole);
  const T* xp = x.data<T>();
  const T* gyp = gy.data<T>();
  T* dwp = c.outputs[0].data<T>();
  const int64_t hwo = g.hwo(), crs = g.crs(), dw_size = whole.k * crs;
  if (g.n > 0) {
    if (const int m = winograd_tile(whole, x.dtype(), ConvOp::BackwardWeight)) {
      cpu::winograd_backward_weight<T>(whole, m, xp, gyp, dwp, c.workspace, c.workspace_bytes);
      return;
    }
    if (cpu::conv_dense(whole)) {
      cpu::dense_backward_weight<T>(whole, xp, gyp, dwp, c.workspace, c.workspace_bytes);
      return;
    }
  }
  std::fill(dwp, dwp + dw_size, T(0));
  if (g.n == 0) return;
  const PixelLayout layout = pixel_layout(g);
  const bool dots = weight_by_dots(g, x.dtype());
  // Accumulators of slots other than the first (a slot never outnumbers the threads).
  std::vector<const T*> partials(static_cast<size_t>(std::max(get_num_threads(), 1)), nullptr);
  for_each_slot<T>(ConvOp::BackwardWeight, whole, x.dtype(), c.workspace, c.workspace_bytes, cpu::MatrixView<T>{},
                   [&](const Slot<T>& slot, int64_t u0, int64_t u1) {
    // Slot 0 accumulates straight into dw (zeroed above); the others into their own zeroed
    // buffer, summed below. Every unit adds onto its group's rows of the accumulator.
    T* acc = slot.index == 0 ? dwp : slot.partial;
    if (slot.index > 0) {
      partials[static_cast<size_t>(slot.index)] = acc;
      std::fill(acc, acc + dw_size, T(0));
    }
    std::vector<const T*> rows(static_cast<size_t>(crs));  // the col rows of one unit (or batch)
    std::vector<const T*> gy_rows(slot.dwt != nullptr ? static_cast<size_t>(g.k) : 0);
    for (int64_t u = u0, nb = 1; u < u1; u += nb) {
      nb = layout == PixelLayout::General ? std::min(slot.batch, u1 - u) : 1;  // images u .. u + nb
      const UnitPtrs at(whole, u);
      const T* xn = xp + at.x;
      const T* gyn = gyp + at.y;
      T* accu = acc + at.w;
      if (slot.pad_classes) {
        // dw' [K, 9C] (+)= the tap groups' GEMMs gy' x col^T, each over the pixels it reaches
        // (conv_pad_classes.h), over the slot's units; added to dw below.
        const int64_t q = nb * hwo;
        const cpu::PadClasses pc(g, nb);
        const int64_t* row_at = pad_offsets(slot, g, nb, /*channel_major=*/false, /*split_columns=*/false);
        const int64_t* pixel_at = row_at + crs;
        cpu::pad_classes_gather(g, gyn, g.k * hwo, nb, slot.buf[1], q);
        for (int grp = 0; grp < cpu::PadClasses::kGroups; ++grp) {
          int64_t lo, hi;
          pc.group_pixels(grp, lo, hi);
          const int64_t row0 = cpu::PadClasses::kGroupTap[grp] * g.c;
          cpu::GemmProblem<T> gp(g.k, cpu::PadClasses::group_taps(grp) * g.c, hi - lo);
          gp.a = cpu::row_major(slot.buf[1] + lo, q);
          const cpu::GatherPanels<T> fill{xn, pixel_at + lo, row_at + row0};  // col^T [pixels, rows]
          gp.b_fill = &cpu::GatherPanels<T>::fill;
          gp.b_fill_ctx = &fill;
          gp.beta = u == u0 ? T(0) : T(1);
          gp.c = slot.dwt + row0;
          gp.ldc = crs;
          cpu::gemm(gp, slot.gemm_ws);
        }
        continue;
      }
      // dw += A x col^T with A = gy[n] [K, pixels]: col^T's columns are the col rows, each a
      // contiguous run (of the image itself, or of an im2col buffer for the general layout).
      const T* a = gyn;
      int64_t q = hwo;
      if (layout == PixelLayout::Flat) {
        q = cpu::flat_pixels(g);
        spread_to_flat(g, gyn, slot.buf[0]);
        a = slot.buf[0];
      } else if (layout == PixelLayout::General) {
        // col [CRS, nb*HoWo] and gy [K, nb*HoWo] of the batch side by side.
        q = nb * hwo;
        if (slot.planes != nullptr) {
          cpu::im2col_planes(g, xn, g.c * g.hw(), nb, slot.buf[0], q, slot.planes);
        } else {
          for (int64_t i = 0; i < nb; ++i) cpu::im2col(g, xn + i * g.c * g.hw(), slot.buf[0] + i * hwo, q);
        }
        if (nb > 1) {
          gather_batch(gyn, g.k, hwo, g.k * hwo, nb, slot.buf[1]);
          a = slot.buf[1];
        }
      }
      for (int64_t p = 0; p < crs; ++p) {
        rows[static_cast<size_t>(p)] = layout == PixelLayout::Flat      ? xn + cpu::flat_offset(g, p)
                                       : layout == PixelLayout::Pointwise ? xn + p * g.hw()
                                                                          : slot.buf[0] + p * q;
      }
      if (dots) {
        cpu::GemmDotProblem<T> dp(g.k, crs, q);
        dp.a = a;
        dp.lda = q;
        dp.b_rows = rows.data();
        dp.beta = T(1);
        dp.c = accu;
        dp.ldc = crs;
        cpu::gemm_dot(dp);
      } else if (slot.dwt != nullptr) {
        // weight_transposed: dw^T [CRS, K] (+)= col [CRS, q] x gy^T [q, K] over the slot's
        // units (col rows q apart in both layouts it is used with), added to dw below. gy^T's
        // columns are gy's rows, handed over as column pointers (packed by register transposes).
        for (int64_t k = 0; k < g.k; ++k) gy_rows[static_cast<size_t>(k)] = a + k * q;
        cpu::GemmProblem<T> gp(crs, g.k, q);
        gp.a = cpu::row_major(rows[0], q);
        gp.b_cols = gy_rows.data();
        gp.beta = u == u0 ? T(0) : T(1);
        gp.c = slot.dwt;
        gp.ldc = g.k;
        cpu::gemm(gp, slot.gemm_ws);
      } else {
        cpu::GemmProblem<T> gp(g.k, crs, q);
        gp.a = cpu::row_major(a, q);
        gp.b_cols = rows.data();
        gp.beta = T(1);
        gp.c = accu;
        gp.ldc = crs;
        cpu::gemm(gp, slot.gemm_ws);
      }
    }
    if (slot.pad_classes && u1 > u0) {
      cpu::pad_classes_add_weight_grad(g, slot.dwt, acc);
    } else if (slot.dwt != nullptr && u1 > u0) {  // one group: its dw is the whole accumulator
      for (int64_t k = 0; k < g.k; ++k)
        for (int64_t p = 0; p < crs; ++p) acc[k * crs + p] += slot.dwt[p * g.k + k];
    }
  });
  for (const T* part : partials) {
    if (part == nullptr) continue;
    for (int64_t i = 0; i < dw_size; ++i) dwp[i] += part[i];
  }
}

size_t forward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const ConvGeometry g = cpu::conv_geometry(in[0].shape, in[1].shape, a);
  if (const int m = winograd_tile(g, in[0].dtype, ConvOp::Forward)) return cpu::winograd_forward_workspace(g, m, in[0].dtype);
  if (cpu::conv_dense(g)) return cpu::dense_forward_workspace(g, in[0].dtype);
  return workspace_for(ConvOp::Forward, g, in[0].dtype);
}

size_t backward_input_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const ConvGeometry g = cpu::conv_geometry(a.ints("input_shape"), in[1].shape, a);
  if (const int m = winograd_tile(g, in[0].dtype, ConvOp::BackwardInput))
    return cpu::winograd_backward_input_workspace(g, m, in[0].dtype);
  if (cpu::conv_dense(g)) return cpu::dense_backward_input_workspace(g, in[0].dtype);
  return workspace_for(ConvOp::BackwardInput, g, in[0].dtype);
}

size_t backward_weight_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>&, const Attrs& a) {
  const ConvGeometry g = cpu::conv_geometry(in[0].shape, a.ints("weight_shape"), a);
  if (const int m = winograd_tile(g, in[0].dtype, ConvOp::BackwardWeight))
    return cpu::winograd_backward_weight_workspace(g, m, in[0].dtype);
  if (cpu::conv_dense(g)) return cpu::dense_backward_weight_workspace(g, in[0].dtype);
  return workspace_for(ConvOp::BackwardWeight, g, in[0].dtype);
}

}  // namespace

std::string cpu::conv_algorithm(const std::string& op, const Shape& input_shape, const Shape& weight_shape,
                                const Attrs& attrs, DType dtype) {
  const ConvGeometry whole = cpu::conv_geometry(input_shape, weight_shape, attrs);
  const ConvOp cop = op == "Conv2D" ? ConvOp::Forward
                    : op == "Conv2DBackwardInput" ? ConvOp::BackwardInput : ConvOp::BackwardWeight;
  if (const int m = winograd_tile(whole, dtype, cop)) return "winograd" + std::to_string(m) + (whole.sh == 2 ? "s2" : "");
  if (cpu::conv_dense(whole)) return "dense";
  const ConvGeometry g = cpu::group_slice(whole);
  if (op == "Conv2D" && forward_direct(g)) return "direct";
  if (op == "Conv2DBackwardWeight" && weight_by_dots(g, dtype)) return "dots";
  return "gemm";
}

// The rows' kernel symbols (families/conv.def): each kernel with its workspace function.
template <typename T>
constexpr KernelEntry conv2d{conv2d_forward<T>, forward_workspace, nullptr};
template <typename T>
constexpr KernelEntry conv2d_backward_input{conv2d_backward_input_kernel<T>, backward_input_workspace, nullptr};
template <typename T>
constexpr KernelEntry conv2d_backward_weight{conv2d_backward_weight_kernel<T>, backward_weight_workspace, nullptr};

void register_cpu_conv_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/conv.def"
}

}  // namespace glassgrad
