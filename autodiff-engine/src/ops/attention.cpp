// Scaled dot-product attention as one op (FlashAttention's formulation: docs/attention.md).
//
//   ScaledDotProductAttention(q, k, v[, mask][, seed]){scale, is_causal, dropout_p, masked}
//       -> (out [*b, L, Ev], lse [*b, L])
//       s = scale * q k^T + mask (-inf above the diagonal when is_causal), p = softmax(s) per row,
//       out = (keep / (1 - dropout_p) * p) v, lse = logsumexp(s) per row (glassgrad/autodiff/
//       attention_geometry.h has the shapes and the broadcasting of the batch axes). The kernels
//       never store p: they walk the keys in tiles with an online softmax, so memory is linear in
//       L and S. lse is what the backward needs to recompute p tile by tile.
//   ScaledDotProductAttentionBackward(g, q, k, v, out, lse[, mask][, seed]){same, mask_grad}
//       -> (dq, dk, dv [*b, ...], dmask [*b, L, S] when mask_grad, else [0])
//       With pd = keep / (1 - p_drop) * p (the dropped probabilities) and D_i = sum_e g_ie out_ie:
//         dv = pd^T g,   dpd = g v^T,   dp = keep / (1 - p_drop) * dpd,
//         ds = p * (dp - D)            (the softmax Jacobian: sum_j p_ij dp_ij = sum_j pd_ij dpd_ij = D_i),
//         dq = scale * ds k,   dk = scale * ds^T q,   dmask = ds.
//       The gradients have the broadcast batch axes; the rule sums them down to each input's
//       shape (reduce_to), as MatMul's does.
//
// The seed is an input, not an attribute: a new dropout mask every step changes data, not the
// plan. lse carries no gradient; the backward op's rule (attention_second_order.cpp: a second
// backward through attention) treats out and lse as the functions of q, k, v they are.
#include "glassgrad/autodiff/attention_geometry.h"
#include "glassgrad/autodiff/family.h"
#include "attention_second_order.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

const char* const kOperandNames[] = {"query", "key", "value"};

// Query, key and value at inputs first..first+2: ranks, dtypes, matching sizes, batch axes.
void check_qkv(const ShapeContext& ctx, int first) {
  const TensorInfo& q = ctx.in(first);
  const TensorInfo& k = ctx.in(first + 1);
  const TensorInfo& v = ctx.in(first + 2);
  auto details = [&](ErrorMessage m) -> ErrorMessage {
    return m.detail("query: " + q.str()).detail("key:   " + k.str()).detail("value: " + v.str());
  };
  for (int i = 0; i < 3; ++i) {
    if (ctx.in(first + i).rank() >= 2) continue;
    ctx.fail(details(ErrorMessage(std::string(kOperandNames[i]) + " must have at least 2 axes [..., rows, features], got " +
                                  shape_str(ctx.in(first + i).shape)))
                 .fix(std::string(kOperandNames[i]) + ".unsqueeze(0) for a single row"));
  }
  if (!is_floating(q.dtype)) ctx.expect_float(first);
  if (q.dtype != k.dtype || q.dtype != v.dtype) {
    ctx.fail(details(ErrorMessage(std::string("query, key and value must have one dtype, got ") + dtype_name(q.dtype) +
                                  ", " + dtype_name(k.dtype) + " and " + dtype_name(v.dtype)))
                 .cause("glassgrad never converts dtypes silently")
                 .fix("convert them to one dtype, e.g. key.float() and value.float()"),
             true);
  }
  if (q.shape.back() != k.shape.back()) {
    ctx.fail(details(ErrorMessage("query has " + std::to_string(q.shape.back()) + " features but key has " +
                                  std::to_string(k.shape.back()) + ": the scores are dot products of their rows"))
                 .fix("project query and key to the same size (the last axis), e.g. with one Linear layer each"));
  }
  const int64_t s = k.shape[k.shape.size() - 2], sv = v.shape[v.shape.size() - 2];
  if (s != sv) {
    ctx.fail(details(ErrorMessage("key has " + std::to_string(s) + " rows but value has " + std::to_string(sv) +
                                  ": every key needs its value"))
                 .fix("give key and value the same sequence length (the second-to-last axis)"));
  }
  Shape qk, all;
  const Shape bq(q.shape.begin(), q.shape.end() - 2), bk(k.shape.begin(), k.shape.end() - 2),
      bv(v.shape.begin(), v.shape.end() - 2);
  if (!broadcast_shapes(bq, bk, qk) || !broadcast_shapes(qk, bv, all)) {
    ctx.fail(details(ErrorMessage("the batch axes " + shape_str(bq) + ", " + shape_str(bk) + " and " + shape_str(bv) +
                                  " of query, key and value cannot be broadcast together"))
                 .detail("the axes before the last two are batch axes (e.g. [batch, heads]); they broadcast like "
                         "numpy.matmul's")
                 .fix("give query, key and value the same leading axes (for grouped-query attention with fewer key "
                      "heads: enable_gqa=True)"));
  }
}

// Attributes and the optional mask and seed; returns the geometry.
AttentionGeometry check_attention(const ShapeContext& ctx, int first) {
  check_qkv(ctx, first);
  if (!ctx.attrs().has("scale")) {
    ctx.fail(ErrorMessage("the scale attribute is missing").fix("scale=1 / math.sqrt(query.shape[-1])"));
  }
  const AttentionGeometry g =
      AttentionGeometry::from(ctx.in(first).shape, ctx.in(first + 1).shape, ctx.in(first + 2).shape, ctx.attrs());
  if (!(g.dropout_p >= 0.0 && g.dropout_p <= 1.0)) {
    ops::bad_attr(ctx, "dropout_p", "in [0, 1]", std::to_string(g.dropout_p), "dropout_p=0.1");
  }
  const int want = (first == 0 ? 3 : 6) + (g.masked ? 1 : 0) + (g.dropout() ? 1 : 0);
  if (ctx.num_inputs() != want) {
    ctx.fail(ErrorMessage("expected " + std::to_string(want) + " inputs (masked=" + (g.masked ? "true" : "false") +
                          ", dropout_p=" + std::to_string(g.dropout_p) + "), got " + std::to_string(ctx.num_inputs()))
                 .detail("the mask follows value when masked; the int64 seed comes last when dropout_p > 0"));
  }
  if (g.masked) {
    const int mi = g.mask_input(first);
    const TensorInfo& m = ctx.in(mi);
    const Shape full = g.scores_shape();
    Shape b;
    if (m.rank() < 2 || !broadcast_shapes(m.shape, full, b) || b != full) {
      ctx.fail(ErrorMessage("attn_mask of shape " + shape_str(m.shape) + " does not broadcast to the scores' shape " +
                            shape_str(full) + " [*batch, L, S]")
                   .detail("query: " + ctx.in(first).str())
                   .detail("key:   " + ctx.in(first + 1).str())
                   .detail("mask:  " + m.str())
                   .fix("an [L, S] = " + shape_str({g.l, g.s}) + " mask serves every batch element and head"));
    }
    if (m.dtype != ctx.in(first).dtype) {
      ctx.fail(ErrorMessage(std::string("an additive attn_mask must have the query's dtype ") +
                            dtype_name(ctx.in(first).dtype) + ", got " + dtype_name(m.dtype))
                   .detail("mask:  " + m.str())
                   .fix("attn_mask.to(query.dtype), or a bool mask (True = attend)"),
               true);
    }
  }
  if (g.dropout()) {
    const TensorInfo& seed = ctx.in(g.seed_input(first));
    if (seed.dtype != DType::Int64 || seed.rank() != 0) {
      ctx.fail(ErrorMessage("the dropout seed must be an int64 scalar, got " + seed.str())
                   .fix("let glassgrad.nn.functional.scaled_dot_product_attention draw it"));
    }
  }
  return g;
}

Attrs backward_attrs(const Attrs& a, bool mask_grad) {
  Attrs out;
  for (const char* k : {"scale", "is_causal", "dropout_p", "masked"}) {
    if (const AttrValue* v = a.find(k)) out.set(k, *v);
  }
  if (mask_grad) out.set("mask_grad", AttrValue(true));
  return out;
}

void attention_gradient(GradContext& c) {
  const ValueId g = c.grad_output(0);
  if (g == kNoValue) return;
  const AttentionGeometry geo =
      AttentionGeometry::from(c.shape(c.input(0)), c.shape(c.input(1)), c.shape(c.input(2)), c.attrs());
  const int mi = geo.mask_input(0), si = geo.seed_input(0);
  const bool mask_grad = mi >= 0 && c.needs_grad(mi);
  if (!c.needs_grad(0) && !c.needs_grad(1) && !c.needs_grad(2) && !mask_grad) return;
  std::vector<ValueId> in{g, c.input(0), c.input(1), c.input(2), c.output(0), c.output(1)};
  if (mi >= 0) in.push_back(c.input(mi));
  if (si >= 0) in.push_back(c.input(si));
  const std::vector<ValueId> d = c.emit_multi("ScaledDotProductAttentionBackward", in, backward_attrs(c.attrs(), mask_grad));
  for (int i = 0; i < 3; ++i) {
    if (c.needs_grad(i)) c.set_grad(i, c.reduce_to(d[static_cast<size_t>(i)], c.shape(c.input(i))));
  }
  if (mask_grad) c.set_grad(mi, c.reduce_to(d[3], c.shape(c.input(mi))));
}

}  // namespace

void scaled_dot_product_attention(OpSchema& s) {
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    const AttentionGeometry g = check_attention(ctx, 0);
    const TensorInfo& q = ctx.in(0);
    return std::vector<TensorInfo>{ops::with_shape(q, g.out_shape()), ops::with_shape(q, g.lse_shape())};
  };
  s.gradient = attention_gradient;
}

void scaled_dot_product_attention_backward(OpSchema& s) {
  s.strided_inputs = true;
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    const AttentionGeometry g = check_attention(ctx, 1);
    const TensorInfo& q = ctx.in(1);
    const std::vector<std::pair<int, Shape>> same{{0, g.out_shape()}, {4, g.out_shape()}, {5, g.lse_shape()}};
    for (const auto& [i, shape] : same) {
      const TensorInfo& t = ctx.in(i);
      if (t.shape != shape || t.dtype != q.dtype) {
        ctx.fail(ErrorMessage(ctx.in(i).str() + " must be " + shape_str(shape) + " " + dtype_name(q.dtype) +
                              " (input " + std::to_string(i) + ")"));
      }
    }
    if (g.mask_grad && !g.masked) ops::bad_attr(ctx, "mask_grad", "false without a mask", "true");
    return std::vector<TensorInfo>{ops::with_shape(q, g.with_tail({g.l, g.e})), ops::with_shape(q, g.with_tail({g.s, g.e})),
                                   ops::with_shape(q, g.with_tail({g.s, g.ev})),
                                   ops::with_shape(q, g.mask_grad ? g.scores_shape() : Shape{0})};
  };
  s.gradient = ops::attention_backward_gradient;
}

void register_attention_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/attention.def"
}

}  // namespace glassgrad
