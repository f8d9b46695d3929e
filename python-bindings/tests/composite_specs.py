"""The second op table: functions and layers composed in Python from kernel-backed ops (no kernel
of their own). Each row gives the composite as a function of glassgrad tensors, a NumPy
reference and valid random float64 inputs; test_composites.py checks the values against the
reference and the gradients with glassgrad.debug.gradcheck (float64 finite differences). The
kernel-backed ops have the first table (op_specs/, checked by test_op_table.py).

A new composite: one row here, next to its code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List

import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F


@dataclass
class Composite:
    name: str
    fn: Callable[..., "gg.Tensor"]          # of glassgrad tensors
    ref: Callable[..., np.ndarray]          # the same of NumPy arrays
    inputs: Callable[[np.random.Generator], List[np.ndarray]]  # float64, away from kinks


def _away_from(v, points, gap=1e-2):
    """v moved off the kinks at `points` by at least gap (finite differences straddle no kink)."""
    for p in points:
        near = np.abs(v - p) < gap
        v = np.where(near, p + np.sign(v - p + 1e-300) * gap * 2, v)
    return v


def _normal(*shape):
    return lambda rng: [rng.standard_normal(shape)]


def _softplus_ref(x, beta, threshold):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# Embedding rows: repeated indices (their gradients add up), bags of 3, 1, 0 (zeros) and 4 indices.
_EMB_IDX = np.array([[0, 3, 3], [6, 1, 3]])
_BAG_IDX = np.array([2, 2, 5, 1, 0, 6, 2, 4])
_BAG_OFF = np.array([0, 3, 4, 4])


def _bag_ref(rows, reduce):
    ends = list(_BAG_OFF[1:]) + [len(_BAG_IDX)]
    return np.stack([reduce(rows[s:e], axis=0) if e > s else np.zeros(rows.shape[1]) for s, e in zip(_BAG_OFF, ends)])


def _reflect_pad_ref(x):
    return np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), mode="reflect")


def _reflect_conv(x, w):
    conv = gg.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect", bias=False).double()
    # The composite's second input as the weight, so its gradient is checked too. A plain tensor
    # cannot replace a registered parameter (TypeError, as in PyTorch): the parameter goes first.
    del conv.weight
    conv.weight = w
    return conv(x)


def _conv_valid_ref(x, w):
    """Unpadded cross-correlation, stride 1."""
    r, s = w.shape[2:]
    ho, wo = x.shape[2] - r + 1, x.shape[3] - s + 1
    windows = np.stack([x[:, :, i:i + ho, j:j + wo] for i in range(r) for j in range(s)], axis=2)
    return np.einsum("nctij,kct->nkij", windows.reshape(x.shape[0], x.shape[1], r * s, ho, wo),
                     w.reshape(w.shape[0], w.shape[1], r * s))


def _conv_transpose_ref(x, w, b, stride, padding, output_padding, groups, dilation):
    """The scatter definition: input pixel (i, j) adds its weighted kernel at (i*sh + r*dh - ph,
    j*sw + c*dw - pw) of the output."""
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
    ho, wo = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1, (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    out = np.zeros((n, cog * groups, ho, wo)) + b.reshape(1, -1, 1, 1)
    cig = cin // groups
    for ci in range(cin):
        g = ci // cig
        for i in range(h):
            for j in range(wd):
                for r in range(kh):
                    for c in range(kw):
                        oi, oj = i * sh + r * dh - ph, j * sw + c * dw - pw
                        if 0 <= oi < ho and 0 <= oj < wo:
                            out[:, g * cog:(g + 1) * cog, oi, oj] += x[:, ci, i, j, None] * w[ci, :, r, c]
    return out


def _bilinear_ref(x):
    """align_corners=True: out[i] samples x at i * (n - 1) / (m - 1), linearly."""
    def matrix(n, m):
        a = np.zeros((m, n))
        for i in range(m):
            src = i * (n - 1) / (m - 1)
            lo = min(int(np.floor(src)), n - 2)
            a[i, lo], a[i, lo + 1] = lo + 1 - src, src - lo
        return a
    ah, aw = matrix(x.shape[2], 7), matrix(x.shape[3], 6)
    return np.einsum("ih,nchw,jw->ncij", ah, x, aw)



_SIGNS = np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
_CLASSES = np.array([2, 0, 3])
_CW = np.array([0.5, 1.0, 2.0, 1.5])


def _smooth_l1_ref(d, beta):
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _pair_away(rng, shape, kinks):
    x = rng.standard_normal(shape)
    return [x, x - _away_from(rng.standard_normal(shape), kinks)]


def _cos_ref(a, b):
    return np.sum(a * b, -1) / np.sqrt((np.sum(a * a, -1) + 1e-12) * (np.sum(b * b, -1) + 1e-12))


def _pdist_ref(a, b):
    return np.sqrt(np.sum((a - b + 1e-6) ** 2, -1))


def _multi_margin_ref(x, p, margin):
    n, c = x.shape
    out = np.zeros(n)
    for i, y in enumerate(_CLASSES):
        for j in range(c):
            if j != y:
                out[i] += _CW[y] * max(0.0, margin - x[i, y] + x[i, j]) ** p
    return np.mean(out / c)


COMPOSITES = [
    Composite("clamp", lambda x: x.clamp(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7),
              lambda rng: [_away_from(rng.standard_normal((4, 6)), (-0.5, 0.7))]),
    Composite("abs", lambda x: x.abs(), np.abs, lambda rng: [_away_from(rng.standard_normal((3, 5)), (0.0,))]),
    Composite("std", lambda x: x.std(dim=1), lambda x: x.std(axis=1, ddof=1), _normal(4, 6)),
    Composite("var-biased", lambda x: x.var(dim=0, unbiased=False), lambda x: x.var(axis=0), _normal(5, 3)),
    Composite("softplus-beta", lambda x: F.softplus(x, beta=2.0, threshold=3.0),
              lambda x: _softplus_ref(x, 2.0, 3.0), lambda rng: [_away_from(2 * rng.standard_normal((4, 5)), (1.5,))]),
    Composite("mse_loss", lambda x, t: F.mse_loss(x, t), lambda x, t: np.mean((x - t) ** 2),
              lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3))]),
    Composite("l1_loss-sum", lambda x, t: F.l1_loss(x, t, reduction="sum"), lambda x, t: np.sum(np.abs(x - t)),
              lambda rng: [x := rng.standard_normal((4, 3)), x + _away_from(rng.standard_normal((4, 3)), (0.0,))]),
    Composite("binary_cross_entropy_with_logits", lambda x, t: F.binary_cross_entropy_with_logits(x, t),
              lambda x, t: np.mean(-(t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x)))),
              lambda rng: [rng.standard_normal((5, 2)), rng.uniform(0, 1, (5, 2))]),
    Composite("binary_cross_entropy", lambda p, t: F.binary_cross_entropy(p, t),
              lambda p, t: np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p))),
              lambda rng: [rng.uniform(0.1, 0.9, (6,)), rng.uniform(0, 1, (6,))]),
    Composite("cross_entropy-probabilities", lambda x, p: F.cross_entropy(x, p),
              lambda x, p: np.mean(-np.sum(p * (x - np.log(np.sum(np.exp(x), 1, keepdims=True))), 1)),
              lambda rng: [rng.standard_normal((4, 3)), rng.dirichlet(np.ones(3), 4)]),
    Composite("pad-reflect", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), _reflect_pad_ref, _normal(2, 2, 4, 5)),
    Composite("pad-replicate", lambda x: F.pad(x, (3, 0, 1, 2), mode="replicate"),
              lambda x: np.pad(x, ((0, 0), (0, 0), (1, 2), (3, 0)), mode="edge"), _normal(2, 3, 4, 5)),
    Composite("pad-circular", lambda x: F.pad(x, (5, 2), mode="circular"),
              lambda x: np.pad(x, ((0, 0), (0, 0), (5, 2)), mode="wrap"), _normal(2, 3, 5)),
    Composite("pad-constant-crop", lambda x: F.pad(x, (-1, 2, 1, -2), value=0.5),
              lambda x: np.pad(x[:, :, :-2, 1:], ((0, 0), (0, 0), (1, 0), (0, 2)), constant_values=0.5),
              _normal(2, 3, 5, 4)),
    Composite("conv2d-padding_mode-reflect", lambda x, w: _reflect_conv(x, w),
              lambda x, w: _conv_valid_ref(np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode="reflect"), w),
              lambda rng: [rng.standard_normal((2, 2, 4, 5)), rng.standard_normal((3, 2, 3, 3))]),
    Composite("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0),
                                                                     output_padding=(1, 2), groups=2, dilation=(1, 2)),
              lambda x, w, b: _conv_transpose_ref(x, w, b, (2, 3), (1, 0), (1, 2), 2, (1, 2)),
              lambda rng: [rng.standard_normal((2, 4, 3, 4)), rng.standard_normal((4, 2, 3, 2)), rng.standard_normal(4)]),
    Composite("conv1d", lambda x, w: F.conv1d(x, w, stride=2, padding=1),
              lambda x, w: _conv_valid_ref(np.pad(x, ((0, 0), (0, 0), (1, 1)))[:, :, None], w[:, :, None])[:, :, 0, ::2],
              lambda rng: [rng.standard_normal((2, 3, 9)), rng.standard_normal((4, 3, 3))]),
    Composite("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2),
              lambda x: x.reshape(2, 2, 2, 2, 3, 5).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 10),
              _normal(2, 8, 3, 5)),
    Composite("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 3),
              lambda x: x.reshape(3, 1, 3, 2, 3).transpose(0, 2, 4, 1, 3).reshape(27, 1, 2), _normal(3, 3, 6)),
    Composite("instance_norm-affine", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
              lambda x, w, b: (x - x.mean(2, keepdims=True)) / np.sqrt(x.var(2, keepdims=True) + 1e-5) *
              w[:, None] + b[:, None],
              lambda rng: [rng.standard_normal((2, 3, 6)), rng.standard_normal(3), rng.standard_normal(3)]),
    Composite("interpolate-bilinear", lambda x: F.interpolate(x, size=(7, 6), mode="bilinear", align_corners=True),
              _bilinear_ref, _normal(1, 2, 3, 4)),
    Composite("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 2),
              lambda x: x.reshape(2, 3, 2, 2, 2, 3).mean(axis=(3, 5)), _normal(2, 3, 4, 6)),
    Composite("cat", lambda a, b: gg.cat([a, b], dim=1), lambda a, b: np.concatenate([a, b], axis=1),
              lambda rng: [rng.standard_normal((2, 3)), rng.standard_normal((2, 4))]),
    Composite("embedding", lambda w: F.embedding(gg.tensor(_EMB_IDX), w), lambda w: w[_EMB_IDX], _normal(7, 5)),
    Composite("embedding_bag-sum-per_sample_weights",
              lambda w, p: F.embedding_bag(gg.tensor(_BAG_IDX), w, gg.tensor(_BAG_OFF), mode="sum", per_sample_weights=p),
              lambda w, p: _bag_ref(w[_BAG_IDX] * p[:, None], np.sum),
              lambda rng: [rng.standard_normal((7, 5)), rng.standard_normal(len(_BAG_IDX))]),
    Composite("embedding_bag-mean", lambda w: F.embedding_bag(gg.tensor(_BAG_IDX), w, gg.tensor(_BAG_OFF)),
              lambda w: _bag_ref(w[_BAG_IDX], np.mean), _normal(7, 5)),
    Composite("embedding_bag-max", lambda w: F.embedding_bag(gg.tensor(_BAG_IDX), w, gg.tensor(_BAG_OFF), mode="max"),
              lambda w: _bag_ref(w[_BAG_IDX], np.max), _normal(7, 5)),
    # ---- PyTorch's tensor surface composed of other ops (glassgrad/_math.py, _reductions.py, ...) ----
    Composite("clamp-tensor-bounds", lambda x, lo, hi: gg.clamp(x, lo, hi), lambda x, lo, hi: np.minimum(
        np.maximum(x, lo), hi), lambda rng: [_away_from(rng.standard_normal((4, 3)), (-0.3, 0.4)), np.full(3, -0.3),
                                              np.full((4, 3), 0.4)]),
    Composite("lerp", lambda a, b, w: gg.lerp(a, b, w), lambda a, b, w: a + w * (b - a),
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0, 1, (4,))]),
    Composite("frac", lambda x: gg.frac(x), lambda x: x - np.trunc(x),
              lambda rng: [_away_from(3 * rng.standard_normal((3, 4)), range(-9, 10))]),
    Composite("hypot", lambda a, b: gg.hypot(a, b), np.hypot, lambda rng: [rng.standard_normal((3, 4)),
                                                                          rng.standard_normal((4,))]),
    Composite("logsumexp", lambda x: gg.logsumexp(x, 1),
              lambda x: np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1), _normal(3, 5)),
    Composite("norm", lambda x: gg.norm(x, dim=0), lambda x: np.sqrt((x ** 2).sum(0)), _normal(4, 3)),
    Composite("norm-p3", lambda x: x.norm(3), lambda x: (np.abs(x) ** 3).sum() ** (1 / 3),
              lambda rng: [_away_from(rng.standard_normal((3, 4)), (0.0,))]),
    Composite("prod", lambda x: gg.prod(x, 1), lambda x: x.prod(1), _normal(3, 7)),
    Composite("prod-all", lambda x: x.prod(), lambda x: x.prod(), _normal(2, 3)),
    Composite("amin", lambda x: gg.amin(x, (0, 2)), lambda x: x.min((0, 2)), _normal(2, 3, 4)),
    Composite("max-dim-values", lambda x: gg.max(x, 1).values, lambda x: x.max(1), _normal(3, 5)),
    Composite("min-dim-values", lambda x: x.min(0)[0], lambda x: x.min(0), _normal(3, 5)),
    Composite("sort-values", lambda x: gg.sort(x, 1, descending=True).values, lambda x: -np.sort(-x, 1),
              _normal(3, 5)),
    Composite("topk-values", lambda x: x.topk(2, dim=0).values, lambda x: -np.sort(-x, 0)[:2], _normal(5, 3)),
    Composite("median-dim", lambda x: gg.median(x, 1).values, lambda x: np.sort(x, 1)[:, 2], _normal(3, 5)),
    Composite("std-correction", lambda x: gg.std(x, 1, correction=0), lambda x: x.std(1), _normal(3, 5)),
    Composite("einsum-batch", lambda a, b: gg.einsum("bij,bkj->bik", a, b),
              lambda a, b: np.einsum("bij,bkj->bik", a, b), lambda rng: [rng.standard_normal((2, 3, 4)),
                                                                       rng.standard_normal((2, 5, 4))]),
    Composite("einsum-diagonal", lambda a: gg.einsum("ii->i", a), lambda a: np.einsum("ii->i", a), _normal(4, 4)),
    Composite("matmul-vector", lambda a, b: gg.matmul(a, b), np.matmul,
              lambda rng: [rng.standard_normal((4,)), rng.standard_normal((2, 4, 3))]),
    Composite("baddbmm", lambda i, a, b: gg.baddbmm(i, a, b, beta=0.5, alpha=2.0),
              lambda i, a, b: 0.5 * i + 2.0 * (a @ b), lambda rng: [rng.standard_normal((2, 3, 5)),
                                                                   rng.standard_normal((2, 3, 4)),
                                                                   rng.standard_normal((2, 4, 5))]),
    Composite("outer", lambda a, b: gg.outer(a, b), np.outer, lambda rng: [rng.standard_normal(3),
                                                                         rng.standard_normal(4)]),
    Composite("diag-embed", lambda x: gg.diag(x, 1), lambda x: np.diag(x, 1), _normal(3)),
    Composite("diagonal", lambda x: gg.diagonal(x, -1), lambda x: np.diagonal(x, -1), _normal(4, 5)),
    Composite("trace", lambda x: gg.trace(x), np.trace, _normal(4, 4)),
    Composite("tril", lambda x: gg.tril(x, 1), lambda x: np.tril(x, 1), _normal(4, 5)),
    Composite("triu", lambda x: x.triu(-1), lambda x: np.triu(x, -1), _normal(4, 5)),
    Composite("flip", lambda x: gg.flip(x, (0, 1)), lambda x: np.flip(x, (0, 1)), _normal(3, 4)),
    Composite("roll", lambda x: gg.roll(x, (1, -2), (0, 1)), lambda x: np.roll(x, (1, -2), (0, 1)), _normal(3, 5)),
    Composite("repeat", lambda x: x.repeat(2, 1, 3), lambda x: np.tile(x, (2, 1, 3)), _normal(2, 3)),
    Composite("repeat_interleave", lambda x: gg.repeat_interleave(x, 3, 1), lambda x: np.repeat(x, 3, 1),
              _normal(2, 3)),
    Composite("stack", lambda a, b: gg.stack([a, b], 1), lambda a, b: np.stack([a, b], 1),
              lambda rng: [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))]),
    Composite("chunk-last", lambda x: gg.chunk(x, 3, 1)[-1], lambda x: x[:, 6:], _normal(2, 8)),
    Composite("movedim", lambda x: gg.movedim(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), _normal(2, 3, 4)),
    Composite("where-scalar", lambda x: gg.where(x > 0, x, 0.5), lambda x: np.where(x > 0, x, 0.5),
              lambda rng: [_away_from(rng.standard_normal((3, 4)), (0.0,))]),
    # ---- issue 31, part 2: the rest of the tensor surface ----
    Composite("addcmul", lambda i, a, b: gg.addcmul(i, a, b, value=0.5), lambda i, a, b: i + 0.5 * a * b,
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((3, 4))]),
    Composite("addcdiv", lambda i, a, b: i.addcdiv(a, b, value=2), lambda i, a, b: i + 2 * a / b,
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0.5, 2, 4)]),
    Composite("logit-eps", lambda x: gg.logit(x, eps=0.1), lambda x: np.log(np.clip(x, .1, .9) / (1 - np.clip(x, .1, .9))),
              lambda rng: [_away_from(rng.uniform(0.02, 0.98, (3, 4)), (0.1, 0.9))]),
    Composite("nan_to_num", lambda x: gg.nan_to_num(x * 2), lambda x: x * 2, _normal(3, 4)),
    Composite("diff", lambda x: gg.diff(x, n=2, dim=0), lambda x: np.diff(x, n=2, axis=0), _normal(5, 3)),
    Composite("cross", lambda a, b: gg.cross(a, b, dim=1), lambda a, b: np.cross(a, b, axis=1),
              lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3))]),
    Composite("dist", lambda a, b: gg.dist(a, b), lambda a, b: np.sqrt(((a - b) ** 2).sum()),
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal(4)]),
    Composite("cdist", lambda a, b: gg.cdist(a, b), lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)),
              lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((5, 3))]),
    Composite("unfold-overlapping", lambda x: x.unfold(1, 3, 1),
              lambda x: np.stack([x[:, i:i + 3] for i in range(4)], 1), _normal(2, 6)),
    Composite("unfold-strided-view", lambda x: x.unfold(0, 2, 3),
              lambda x: np.stack([x[i:i + 2] for i in (0, 3)], 0).transpose(0, 2, 1), _normal(7, 2)),
    Composite("sum_to_size", lambda x: x.sum_to_size(3, 1, 4), lambda x: x.sum((1,), keepdims=True), _normal(3, 2, 4)),
    Composite("logcumsumexp", lambda x: gg.logcumsumexp(x, 1), lambda x: np.logaddexp.accumulate(x, 1), _normal(3, 7)),
    Composite("cummax-values", lambda x: gg.cummax(x, 1).values, lambda x: np.maximum.accumulate(x, 1), _normal(3, 6)),
    Composite("cummin-values", lambda x: x.cummin(0).values, lambda x: np.minimum.accumulate(x, 0), _normal(5, 3)),
    Composite("nanmedian", lambda x: gg.nanmedian(x, 1).values, lambda x: np.sort(x, 1)[:, 2], _normal(3, 6)),
    Composite("quantile", lambda x: gg.quantile(x, 0.3, dim=1), lambda x: np.quantile(x, 0.3, axis=1), _normal(3, 6)),
    Composite("nanquantile-midpoint", lambda x: gg.nanquantile(x, 0.45, interpolation="midpoint"),
              lambda x: np.quantile(x, 0.45, method="midpoint"), _normal(9)),
    Composite("scatter_reduce-sum", lambda x, s: gg.scatter_reduce(x, 0, gg.tensor(_SR_IDX), s, "sum"),
              lambda x, s: _scatter_reduce_ref(x, s, np.add, True), lambda rng: [rng.standard_normal(4),
                                                                                 rng.standard_normal(6)]),
    Composite("scatter_reduce-prod", lambda x, s: gg.scatter_reduce(x, 0, gg.tensor(_SR_IDX), s, "prod"),
              lambda x, s: _scatter_reduce_ref(x, s, np.multiply, True), lambda rng: [rng.standard_normal(4),
                                                                                      rng.standard_normal(6)]),
    Composite("scatter_reduce-mean-exclude",
              lambda x, s: gg.scatter_reduce(x, 0, gg.tensor(_SR_IDX), s, "mean", include_self=False),
              lambda x, s: _scatter_reduce_ref(x, s, None, False), lambda rng: [rng.standard_normal(4),
                                                                                rng.standard_normal(6)]),
    Composite("scatter_reduce-amax", lambda x, s: gg.scatter_reduce(x, 0, gg.tensor(_SR_IDX), s, "amax"),
              lambda x, s: _scatter_reduce_ref(x, s, np.maximum, True), lambda rng: [rng.standard_normal(4),
                                                                                     rng.standard_normal(6)]),
    Composite("scatter_reduce-amin-exclude",
              lambda x, s: gg.scatter_reduce(x, 0, gg.tensor(_SR_IDX), s, "amin", include_self=False),
              lambda x, s: _scatter_reduce_ref(x, s, np.minimum, False), lambda rng: [rng.standard_normal(4),
                                                                                      rng.standard_normal(6)]),
    Composite("index_reduce-prod", lambda x, s: x.index_reduce(0, gg.tensor([0, 2, 0]), s, "prod"),
              lambda x, s: np.stack([x[0] * s[0] * s[2], x[1], x[2] * s[1], x[3]]),
              lambda rng: [rng.standard_normal((4, 2)), rng.standard_normal((3, 2))]),
    Composite("masked_scatter", lambda x, s: x.masked_scatter(gg.tensor(_MASK), s),
              lambda x, s: _masked_scatter_ref(x, s), lambda rng: [rng.standard_normal((3, 4)),
                                                                   rng.standard_normal(8)]),
    Composite("index_copy", lambda x, s: gg.index_copy(x, 1, gg.tensor([3, 0]), s),
              lambda x, s: np.concatenate([s[:, 1:2], x[:, 1:3], s[:, 0:1]], 1),
              lambda rng: [rng.standard_normal((2, 4)), rng.standard_normal((2, 2))]),
    Composite("take", lambda x: gg.take(x, gg.tensor([[0, -1], [5, 5]])), lambda x: x.reshape(-1)[[[0, -1], [5, 5]]],
              _normal(3, 4)),
    Composite("put-accumulate", lambda x, s: x.put(gg.tensor([1, 1, -2]), s, accumulate=True),
              lambda x, s: _put_ref(x, s), lambda rng: [rng.standard_normal((2, 3)), rng.standard_normal(3)]),
    Composite("renorm", lambda x: gg.renorm(x, 2, 0, 1.5),
              lambda x: x * np.where(np.linalg.norm(x, axis=1, keepdims=True) > 1.5,
                                     1.5 / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-7), 1.0),
              lambda rng: [rng.standard_normal((4, 3)) * np.array([[0.2], [3.0], [0.1], [2.0]])]),
    Composite("logaddexp", lambda a, b: gg.logaddexp(a, b), np.logaddexp,
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal(4)]),
    Composite("xlogy", lambda a, b: gg.xlogy(a, b), lambda a, b: a * np.log(b),
              lambda rng: [rng.standard_normal((3, 4)), rng.uniform(0.5, 2, (3, 4))]),
    Composite("sinc", lambda x: gg.sinc(x), np.sinc, _normal(3, 4)),
    Composite("copysign", lambda a: gg.copysign(a, gg.tensor(np.array([1.0, -1.0, -0.0, 2.0]))),
              lambda a: np.copysign(a, np.array([1.0, -1.0, -0.0, 2.0])),
              lambda rng: [_away_from(rng.standard_normal((3, 4)), (0.0,))]),
    Composite("kron", lambda a, b: gg.kron(a, b), np.kron, lambda rng: [rng.standard_normal((2, 3)),
                                                                       rng.standard_normal((3, 2))]),
    Composite("inner", lambda a, b: gg.inner(a, b), np.inner, lambda rng: [rng.standard_normal((2, 3)),
                                                                          rng.standard_normal((4, 3))]),
    Composite("rot90", lambda x: gg.rot90(x, 1, (0, 2)), lambda x: np.rot90(x, 1, (0, 2)), _normal(2, 3, 4)),
    Composite("addr", lambda i, a, b: gg.addr(i, a, b, beta=0.5, alpha=2), lambda i, a, b: 0.5 * i + 2 * np.outer(a, b),
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal(4)]),
    # losses and distances (glassgrad/_regression_losses.py, _margin_losses.py, _distances.py)
    Composite("smooth_l1_loss-beta", lambda x, t: F.smooth_l1_loss(x, t, beta=0.5),
              lambda x, t: np.mean(_smooth_l1_ref(x - t, 0.5)), lambda rng: _pair_away(rng, (4, 3), (-0.5, 0.0, 0.5))),
    Composite("huber_loss-sum", lambda x, t: F.huber_loss(x, t, reduction="sum", delta=0.7),
              lambda x, t: np.sum(0.7 * _smooth_l1_ref(x - t, 0.7)), lambda rng: _pair_away(rng, (5,), (-0.7, 0.0, 0.7))),
    Composite("kl_div-batchmean", lambda x, t: F.kl_div(x, t, reduction="batchmean"),
              lambda x, t: np.sum(t * (np.log(t) - x)) / x.shape[0],
              lambda rng: [rng.standard_normal((3, 4)), rng.uniform(0.1, 1, (3, 4))]),
    Composite("kl_div-log_target", lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True),
              lambda x, t: np.sum(np.exp(t) * (t - x)), lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))]),
    Composite("poisson_nll_loss-full", lambda x, t: F.poisson_nll_loss(x, t, full=True),
              lambda x, t: np.mean(np.exp(x) - t * x + np.where(t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0)),
              lambda rng: [rng.standard_normal((4, 3)), rng.uniform(0.2, 3, (4, 3))]),
    Composite("poisson_nll_loss-rate", lambda x, t: F.poisson_nll_loss(x, t, log_input=False, reduction="sum"),
              lambda x, t: np.sum(x - t * np.log(x + 1e-8)), lambda rng: [rng.uniform(0.5, 2, (5,)), rng.uniform(0, 3, (5,))]),
    Composite("gaussian_nll_loss-homoscedastic", lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True),
              lambda x, t, v: np.mean(0.5 * (np.log(v[:, None]) + (x - t) ** 2 / v[:, None]) + 0.5 * np.log(2 * np.pi)),
              lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.uniform(0.5, 2, (4,))]),
    Composite("soft_margin_loss", lambda x: F.soft_margin_loss(x, gg.tensor(_SIGNS, dtype="float64")),
              lambda x: np.mean(np.log1p(np.exp(-_SIGNS * x))), _normal(2, 3)),
    Composite("margin_ranking_loss", lambda a, b: F.margin_ranking_loss(a, b, gg.tensor(_SIGNS[0], dtype="float64"), 0.3),
              lambda a, b: np.mean(np.maximum(0, -_SIGNS[0] * (a - b) + 0.3)),
              lambda rng: [a := rng.standard_normal(3), a + _away_from(rng.standard_normal(3), (-0.3, 0.3))]),
    Composite("hinge_embedding_loss", lambda x: F.hinge_embedding_loss(x, gg.tensor(_SIGNS, dtype="float64"), 0.5),
              lambda x: np.mean(np.where(_SIGNS == 1, x, np.maximum(0, 0.5 - x))),
              lambda rng: [_away_from(rng.standard_normal((2, 3)), (0.5,))]),
    Composite("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, gg.tensor(_SIGNS[0], dtype="float64"), -0.9),
              lambda a, b: np.mean(np.where(_SIGNS[0] == 1, 1 - _cos_ref(a, b), np.maximum(0, _cos_ref(a, b) + 0.9))),
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))]),
    Composite("triplet_margin_loss-swap", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, swap=True),
              lambda a, p, n: np.mean(np.maximum(0, _pdist_ref(a, p) - np.minimum(_pdist_ref(a, n), _pdist_ref(p, n)) + 3.0)),
              lambda rng: [rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 4))]),
    Composite("multilabel_soft_margin_loss", lambda x: F.multilabel_soft_margin_loss(x, gg.tensor(_SIGNS > 0, dtype="float64")),
              lambda x: np.mean(np.mean(-((_SIGNS > 0) * np.log(_sigmoid(x)) + (_SIGNS < 0) * np.log(_sigmoid(-x))), -1)),
              _normal(2, 3)),
    Composite("multi_margin_loss-p2-weight", lambda x: F.multi_margin_loss(x, gg.tensor(_CLASSES), p=2, margin=0.5,
                                                                          weight=gg.tensor(_CW, dtype="float64")),
              lambda x: _multi_margin_ref(x, 2, 0.5), lambda rng: [rng.standard_normal((3, 4)) * 0.1]),
    Composite("cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=0), lambda a, b: _cos_ref(a.T, b.T),
              lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3))]),
    Composite("normalize-p1", lambda x: F.normalize(x, p=1.0, dim=1),
              lambda x: x / np.sum(np.abs(x), 1, keepdims=True), lambda rng: [_away_from(rng.standard_normal((3, 4)), (0.0,))]),
    Composite("pairwise_distance-p3", lambda a, b: F.pairwise_distance(a, b, p=3.0, keepdim=True),
              lambda a, b: np.sum(np.abs(a - b + 1e-6) ** 3, -1, keepdims=True) ** (1 / 3),
              lambda rng: [a := rng.standard_normal((3, 4)), a + _away_from(rng.standard_normal((3, 4)), (0.0,))]),
    # activations (glassgrad/_extra_activations.py)
    Composite("logsigmoid", F.logsigmoid, lambda x: -np.log1p(np.exp(-x)), _normal(3, 4)),
    Composite("softsign", F.softsign, lambda x: x / (1 + np.abs(x)), lambda rng: [_away_from(rng.standard_normal(7), (0.0,))]),
    Composite("selu", F.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
              lambda rng: [_away_from(rng.standard_normal(7), (0.0,))]),
    Composite("celu", lambda x: F.celu(x, 0.6), lambda x: np.where(x > 0, x, 0.6 * np.expm1(x / 0.6)),
              lambda rng: [_away_from(rng.standard_normal(7), (0.0,))]),
    Composite("glu", lambda x: F.glu(x, 0), lambda x: x[:2] / (1 + np.exp(-x[2:])), _normal(4, 3)),
    Composite("prelu", lambda x, w: F.prelu(x, w), lambda x, w: np.where(x > 0, x, w[None, :, None] * x),
              lambda rng: [_away_from(rng.standard_normal((2, 3, 4)), (0.0,)), rng.uniform(0.1, 0.5, 3)]),
    Composite("rrelu-eval", lambda x: F.rrelu(x, 0.1, 0.3), lambda x: np.where(x > 0, x, 0.2 * x),
              lambda rng: [_away_from(rng.standard_normal(7), (0.0,))]),
    Composite("softmin", lambda x: F.softmin(x, 1), lambda x: np.exp(-x) / np.exp(-x).sum(1, keepdims=True), _normal(3, 4)),
    Composite("threshold", lambda x: F.threshold(x, 0.2, -1.0), lambda x: np.where(x > 0.2, x, -1.0),
              lambda rng: [_away_from(rng.standard_normal(7), (0.2,))]),
    Composite("tanhshrink", F.tanhshrink, lambda x: x - np.tanh(x), _normal(7)),
    Composite("softshrink", lambda x: F.softshrink(x, 0.3), lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0)),
              lambda rng: [_away_from(rng.standard_normal(9), (-0.3, 0.3))]),
    Composite("hardshrink", lambda x: F.hardshrink(x, 0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0),
              lambda rng: [_away_from(rng.standard_normal(9), (-0.3, 0.3))]),
    # 1-D and adaptive max pooling (glassgrad/_pooling_1d.py)
    Composite("max_pool1d", lambda x: F.max_pool1d(x, 3, 2), lambda x: np.stack([x[..., i:i + 3].max(-1) for i in (0, 2, 4)], -1),
              _normal(2, 3, 7)),
    Composite("avg_pool1d", lambda x: F.avg_pool1d(x, 2), lambda x: (x[..., 0:6:2] + x[..., 1:7:2]) / 2, _normal(2, 3, 7)),
    Composite("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3),
              lambda x: np.stack([x[..., 0:3].max(-1), x[..., 2:5].max(-1), x[..., 4:7].max(-1)], -1), _normal(2, 7)),
    Composite("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 1)),
              lambda x: np.stack([x[..., 0:3, :].max((-2, -1)), x[..., 2:5, :].max((-2, -1))], -1)[..., None],
              _normal(2, 5, 3)),
    Composite("rms_norm", lambda x, w: F.rms_norm(x, (4,), w, 1e-3),
              lambda x, w: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-3) * w,
              lambda rng: [rng.standard_normal((2, 3, 4)), rng.standard_normal(4)]),
]

_SR_IDX = np.array([0, 1, 0, 1, 2, 1])
_MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, True, False]])


def _scatter_reduce_ref(x, s, ufunc, include_self):
    out = x.copy()
    for t in range(len(x)):
        vals = list(s[_SR_IDX == t])
        if not vals:
            continue
        if include_self:
            vals = [x[t]] + vals
        out[t] = np.mean(vals) if ufunc is None else ufunc.reduce(np.array(vals))
    return out


def _masked_scatter_ref(x, s):
    out = x.copy()
    out[_MASK] = s[:_MASK.sum()]
    return out


def _put_ref(x, s):
    out = x.copy().reshape(-1)
    np.add.at(out, [1, 1, -2], s)
    return out.reshape(x.shape)
