// Geometry of scaled dot-product attention: the single definition that the
// ScaledDotProductAttention schemas (shape rules), the CPU kernels and the CUDA launchers read.
// PyTorch's F.scaled_dot_product_attention semantics (docs/attention.md derives the rest):
//
//   query [*bq, L, E], key [*bk, S, E], value [*bv, S, Ev], mask [*bm, L|1, S|1] (additive)
//   batch = broadcast(bq, bk, bv, bm)                     (NumPy rules, like MatMul's batch axes)
//   s[z, i, j] = scale * <q[z, i, :], k[z, j, :]> + mask[z, i, j]   (-inf where is_causal and j > i)
//   p[z, i, :] = softmax(s[z, i, :]),  lse[z, i] = log(sum_j exp(s[z, i, j]))
//   out[z, i, :] = sum_j keep(z, i, j) / (1 - dropout_p) * p[z, i, j] * v[z, j, :]
//
// A row whose every score is -inf (masked out entirely) has out = 0 and lse = -inf, as
// PyTorch's math path gives since 2.5 (no NaN). is_causal aligns the causal triangle at the top
// left (key j is visible to query i when j <= i), also when L != S.
//
// Attributes (the rules validate them; from() trusts them):
//   scale      float, required (the Python function passes 1/sqrt(E) when scale=None)
//   is_causal  bool, default false
//   dropout_p  float in [0, 1], default 0; keep() is counter-based (kernels/attention_rules.h),
//              so the backward regenerates the forward's mask from the seed input
//   masked     bool, default false: the additive mask is an input (after value)
//   mask_grad  bool, default false (backward only): the op also returns d(mask) = d(scores)
//
// Inputs: ScaledDotProductAttention(query, key, value[, mask][, seed]),
//         ScaledDotProductAttentionBackward(grad_out, query, key, value, out, lse[, mask][, seed]);
// the mask is present when `masked`, the seed (an int64 scalar) when dropout_p > 0.
#pragma once
#include <cstdint>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct AttentionGeometry {
  Shape batch;                 // the broadcast batch axes of every operand
  int64_t l = 0, s = 0;        // query rows, key rows
  int64_t e = 0, ev = 0;       // query/key features, value features
  double scale = 1.0;
  bool causal = false;
  double dropout_p = 0.0;
  bool masked = false;
  bool mask_grad = false;

  int64_t batch_count() const { return numel(batch); }
  bool dropout() const { return dropout_p > 0.0; }
  // Where the optional inputs sit, counted from the forward's query (first = 0 in the forward,
  // 1 in the backward, whose input 0 is grad_out); -1 when absent.
  int mask_input(int first) const { return masked ? first + (first == 0 ? 3 : 5) : -1; }
  int seed_input(int first) const { return dropout() ? first + (first == 0 ? 3 : 5) + (masked ? 1 : 0) : -1; }
  // The output shapes: out [*batch, L, Ev], lse [*batch, L], the scores' [*batch, L, S].
  Shape out_shape() const { return with_tail({l, ev}); }
  Shape lse_shape() const { return with_tail({l}); }
  Shape scores_shape() const { return with_tail({l, s}); }
  Shape with_tail(const Shape& tail) const {
    Shape r = batch;
    r.insert(r.end(), tail.begin(), tail.end());
    return r;
  }

  // From the query, key and value shapes (rank >= 2, already validated) and the attributes.
  static AttentionGeometry from(const Shape& query, const Shape& key, const Shape& value, const Attrs& attrs) {
    AttentionGeometry g;
    const size_t rq = query.size(), rk = key.size(), rv = value.size();
    g.l = query[rq - 2];
    g.e = query[rq - 1];
    g.s = key[rk - 2];
    g.ev = value[rv - 1];
    Shape qk;
    broadcast_shapes(Shape(query.begin(), query.end() - 2), Shape(key.begin(), key.end() - 2), qk);
    broadcast_shapes(qk, Shape(value.begin(), value.end() - 2), g.batch);
    g.scale = attrs.f("scale");
    g.causal = attrs.b("is_causal", false);
    g.dropout_p = attrs.f("dropout_p", 0.0);
    g.masked = attrs.b("masked", false);
    g.mask_grad = attrs.b("mask_grad", false);
    return g;
  }
};

}  // namespace glassgrad
