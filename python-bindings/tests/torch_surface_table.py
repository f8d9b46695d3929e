"""One table of calls of PyTorch's tensor surface, written once for both libraries: each case is a
function of the module (`glassgrad` or `torch`) and the input tensors, so the same code runs in
glassgrad and in PyTorch, as a ported script does. test_torch_surface.py runs every case in
both and compares the results (values, dtypes, shapes, and the gradients of every float input).

Inputs are drawn by kind: "normal", "positive" (in [0.5, 2]), "unit" (in (-0.9, 0.9)), "int"
(small integers), "bool", or given as arrays (the kinks and ties where subgradients matter).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np


@dataclass(frozen=True)
class In:
    shape: Tuple[int, ...]
    kind: str = "normal"
    dtype: str = "float64"
    values: Optional[tuple] = None  # explicit values (nested tuples), instead of a draw


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: Tuple[In, ...]
    grad: bool = True        # compare the gradients of the float inputs
    rtol: float = 1e-9


def draw(spec: In, rng: np.random.Generator) -> np.ndarray:
    if spec.values is not None:
        return np.array(spec.values, dtype=spec.dtype)
    if spec.kind == "normal":
        a = rng.standard_normal(spec.shape)
    elif spec.kind == "positive":
        a = rng.uniform(0.5, 2.0, spec.shape)
    elif spec.kind == "unit":
        a = rng.uniform(-0.9, 0.9, spec.shape)
    elif spec.kind == "int":
        a = rng.integers(-4, 5, spec.shape)
    elif spec.kind == "bool":
        a = rng.random(spec.shape) > 0.5
    else:
        raise ValueError(spec.kind)
    return np.asarray(a).astype(spec.dtype)


def N(*shape, dtype="float64"):
    return In(shape, "normal", dtype)


def P(*shape, dtype="float64"):
    return In(shape, "positive", dtype)


def U(*shape, dtype="float64"):
    return In(shape, "unit", dtype)


def I(*shape, dtype="int64"):  # noqa: E743
    return In(shape, "int", dtype)


def B(*shape):
    return In(shape, "bool", "bool")


def V(values, dtype="float64"):
    return In(np.shape(values), dtype=dtype, values=values)


A, M, S3 = (4, 5), (5,), (2, 3, 4)

CASES = [
    # ---- elementwise math, function and method forms ----
    Case("abs", lambda t, x: t.abs(x), (N(*A),)),
    Case("x.abs()", lambda t, x: x.abs(), (N(*A),)),
    Case("sign", lambda t, x: t.sign(x), (N(*A),)),
    Case("neg", lambda t, x: t.neg(x), (N(*A),)),
    Case("negative", lambda t, x: t.negative(x), (N(*A),)),
    Case("sin", lambda t, x: t.sin(x), (N(*A),)),
    Case("x.cos()", lambda t, x: x.cos(), (N(*A),)),
    Case("tan", lambda t, x: t.tan(x), (U(*A),)),
    Case("asin", lambda t, x: t.asin(x), (U(*A),)),
    Case("acos", lambda t, x: x.acos(), (U(*A),)),
    Case("atan", lambda t, x: t.atan(x), (N(*A),)),
    Case("arcsin", lambda t, x: t.arcsin(x), (U(*A),)),
    Case("arccos", lambda t, x: t.arccos(x), (U(*A),)),
    Case("arctan", lambda t, x: t.arctan(x), (N(*A),)),
    Case("sinh", lambda t, x: t.sinh(x), (N(*A),)),
    Case("cosh", lambda t, x: x.cosh(), (N(*A),)),
    Case("tanh", lambda t, x: t.tanh(x), (N(*A),)),
    Case("asinh", lambda t, x: t.asinh(x), (N(*A),)),
    Case("acosh", lambda t, x: t.acosh(x + 1.5), (P(*A),)),
    Case("atanh", lambda t, x: t.atanh(x), (U(*A),)),
    Case("exp2", lambda t, x: t.exp2(x), (N(*A),)),
    Case("log2", lambda t, x: t.log2(x), (P(*A),)),
    Case("log10", lambda t, x: x.log10(), (P(*A),)),
    Case("log1p", lambda t, x: t.log1p(x), (U(*A),)),
    Case("expm1", lambda t, x: t.expm1(x), (N(*A),)),
    Case("erf", lambda t, x: t.erf(x), (N(*A),)),
    Case("rsqrt", lambda t, x: t.rsqrt(x), (P(*A),)),
    Case("reciprocal", lambda t, x: t.reciprocal(x), (P(*A),)),
    Case("square", lambda t, x: t.square(x), (N(*A),)),
    Case("sqrt", lambda t, x: x.sqrt(), (P(*A),)),
    Case("exp", lambda t, x: t.exp(x), (N(*A),)),
    Case("log", lambda t, x: t.log(x), (P(*A),)),
    Case("sigmoid", lambda t, x: t.sigmoid(x), (N(*A),)),
    Case("floor", lambda t, x: t.floor(x * 3), (N(*A),)),
    Case("ceil", lambda t, x: x.mul(3).ceil(), (N(*A),)),
    Case("round", lambda t, x: t.round(x * 3), (N(*A),)),
    Case("round-halves", lambda t, x: t.round(x), (V((0.5, 1.5, 2.5, -0.5, -1.5, 0.49)),)),
    Case("round-decimals", lambda t, x: t.round(x, decimals=2), (N(*A),)),
    Case("round-negative-decimals", lambda t, x: t.round(x * 1000, decimals=-2), (N(*A),)),
    Case("trunc", lambda t, x: t.trunc(x * 3), (N(*A),)),
    Case("fix", lambda t, x: t.fix(x * 3), (N(*A),)),
    Case("frac", lambda t, x: t.frac(x * 3), (N(*A),)),
    Case("pow-scalar", lambda t, x: t.pow(x, 3), (N(*A),)),
    Case("x.pow(2)", lambda t, x: x.pow(2), (N(*A),)),
    Case("pow-tensor", lambda t, x, y: t.pow(x, y), (P(*A), N(*M))),
    Case("x ** y", lambda t, x, y: x ** y, (P(*A), N(*A))),
    Case("2 ** x", lambda t, x: 2 ** x, (N(*A),)),
    Case("2.5 ** x", lambda t, x: 2.5 ** x, (N(*A),)),
    Case("atan2", lambda t, x, y: t.atan2(x, y), (N(*A), N(*M))),
    Case("arctan2", lambda t, x, y: t.arctan2(x, y), (N(*A), N(*A))),
    Case("hypot", lambda t, x, y: t.hypot(x, y), (N(*A), N(*A))),
    Case("remainder", lambda t, x, y: t.remainder(x * 4, y + 2.5), (N(*A), P(*M))),
    Case("x % 1.5", lambda t, x: (x * 4) % 1.5, (N(*A),)),
    Case("fmod", lambda t, x, y: t.fmod(x * 4, -(y + 0.5)), (N(*A), P(*M))),
    Case("floor_divide", lambda t, x: t.floor_divide(x * 4, 1.5), (N(*A),), grad=False),
    Case("x // y", lambda t, x, y: (x * 4) // y, (N(*A), P(*A)), grad=False),
    Case("div-trunc", lambda t, x, y: t.div(x * 4, y, rounding_mode="trunc"), (N(*A), P(*A)), grad=False),
    Case("div-floor", lambda t, x, y: t.div(x * 4, y, rounding_mode="floor"), (N(*A), P(*A)), grad=False),
    Case("true_divide", lambda t, x, y: t.true_divide(x, y), (N(*A), P(*A))),
    Case("add-alpha", lambda t, x, y: t.add(x, y, alpha=2.5), (N(*A), N(*M))),
    Case("sub-alpha", lambda t, x, y: t.sub(x, y, alpha=-2), (N(*A), N(*M))),
    Case("mul", lambda t, x, y: t.mul(x, y), (N(*A), N(*M))),
    Case("lerp-scalar", lambda t, x, y: t.lerp(x, y, 0.3), (N(*A), N(*A))),
    Case("lerp-tensor", lambda t, x, y, w: t.lerp(x, y, w), (N(*A), N(*A), U(*A))),
    Case("clamp", lambda t, x: t.clamp(x, -0.5, 0.5), (N(*A),)),
    Case("clamp-min", lambda t, x: x.clamp(min=0.1), (N(*A),)),
    Case("clip", lambda t, x: t.clip(x, max=0.2), (N(*A),)),
    Case("clamp-tensor-bounds", lambda t, x, lo, hi: t.clamp(x, lo, hi + 1), (N(*A), N(*M), P(*A))),
    Case("maximum", lambda t, x, y: t.maximum(x, y), (N(*A), N(*M))),
    Case("minimum", lambda t, x, y: t.minimum(x, y), (N(*A), N(*A))),
    Case("max-of-two", lambda t, x, y: t.max(x, y), (N(*A), N(*A))),
    Case("min-of-two", lambda t, x, y: t.min(x, y), (N(*A), N(*A))),
    # ---- comparisons and logic ----
    Case("eq", lambda t, x, y: t.eq(x, y), (I(*A), I(*M)), grad=False),
    Case("x.eq(y.view_as(x))", lambda t, x, y: x.eq(y.view_as(x)), (I(4, 1), I(4)), grad=False),
    Case("ne", lambda t, x, y: x.ne(y), (I(*A), I(*A)), grad=False),
    Case("lt", lambda t, x, y: t.lt(x, y), (N(*A), N(*A)), grad=False),
    Case("le", lambda t, x: x.le(0.5), (N(*A),), grad=False),
    Case("gt", lambda t, x: t.gt(x, 0), (N(*A),), grad=False),
    Case("ge", lambda t, x, y: x.ge(y), (I(*A), I(*A)), grad=False),
    Case("greater", lambda t, x, y: t.greater(x, y), (N(*A), N(*A)), grad=False),
    Case("greater_equal", lambda t, x, y: t.greater_equal(x, y), (I(*A), I(*A)), grad=False),
    Case("less", lambda t, x, y: t.less(x, y), (N(*A), N(*A)), grad=False),
    Case("less_equal", lambda t, x, y: t.less_equal(x, y), (I(*A), I(*A)), grad=False),
    Case("not_equal", lambda t, x, y: t.not_equal(x, y), (I(*A), I(*A)), grad=False),
    Case("logical_and", lambda t, x, y: t.logical_and(x, y), (I(*A), B(*A)), grad=False),
    Case("logical_or", lambda t, x, y: x.logical_or(y), (B(*A), B(*A)), grad=False),
    Case("logical_xor", lambda t, x, y: t.logical_xor(x, y), (N(*A), I(*A)), grad=False),
    Case("logical_not", lambda t, x: t.logical_not(x), (I(*A),), grad=False),
    Case("bool & | ^ ~", lambda t, x, y: ((x & y) | ~x) ^ y, (B(*A), B(*A)), grad=False),
    Case("isnan/isinf/isfinite", lambda t, x: (t.isnan(x), t.isinf(x), t.isfinite(x), t.isposinf(x),
                                               t.isneginf(x)),
         (V((0.0, float("nan"), float("inf"), -float("inf"), 1.5)),), grad=False),
    Case("isfinite-int", lambda t, x: t.isfinite(x), (I(*A),), grad=False),
    Case("isclose", lambda t, x, y: t.isclose(x, x + y * 1e-6), (N(*A), N(*A)), grad=False),
    Case("isclose-special", lambda t, x, y: (t.isclose(x, y), t.isclose(x, y, equal_nan=True)),
         (V((1.0, float("inf"), float("nan"), -float("inf"))), V((1.0, float("inf"), float("nan"), float("inf")))),
         grad=False),
    Case("allclose", lambda t, x, y: t.allclose(x, x + y * 1e-9), (N(*A), N(*A)), grad=False),
    Case("equal", lambda t, x: (t.equal(x, x), t.equal(x, x + 1)), (N(*A),), grad=False),
    # ---- the *_as methods ----
    Case("view_as", lambda t, x, y: x.view_as(y), (N(4, 6), N(2, 12))),
    Case("reshape_as", lambda t, x, y: x.reshape_as(y), (N(4, 6), N(3, 8))),
    Case("expand_as", lambda t, x, y: x.expand_as(y), (N(4, 1), N(4, 6))),
    Case("type_as", lambda t, x, y: x.type_as(y), (I(4, 6), N(2,)), grad=False),
    # ---- reductions ----
    Case("sum-dim", lambda t, x: t.sum(x, 1), (N(*S3),)),
    Case("sum-dims-keepdim", lambda t, x: x.sum((0, 2), keepdim=True), (N(*S3),)),
    Case("sum-dtype", lambda t, x: t.sum(x, dtype=t.float64), (I(*A),), grad=False),
    Case("sum-bool", lambda t, x: x.sum(), (B(*A),), grad=False),
    Case("sum-int", lambda t, x: x.sum(0), (I(*A),), grad=False),
    Case("(pred == y).sum()", lambda t, x, y: (x.argmax(1) == y).sum(), (N(8, 3), I(8)), grad=False),
    Case("mean-dim", lambda t, x: t.mean(x, -1), (N(*S3),)),
    Case("mean-dtype", lambda t, x: x.mean(dtype=t.float64), (I(*A),), grad=False),
    Case("prod", lambda t, x: t.prod(x), (N(2, 3),)),
    Case("prod-dim", lambda t, x: x.prod(1), (N(*S3),)),
    Case("prod-dim-keepdim", lambda t, x: x.prod(0, keepdim=True), (N(5, 3),)),
    Case("prod-with-zeros", lambda t, x: x.prod(1), (V(((1.5, 0.0, -2.0, 3.0), (0.0, 2.0, 0.0, 1.0))),)),
    Case("prod-int", lambda t, x: x.prod(1), (I(*A),), grad=False),
    Case("cumsum", lambda t, x: t.cumsum(x, 1), (N(*S3),)),
    Case("cumsum-int", lambda t, x: x.cumsum(0), (I(*A),), grad=False),
    Case("cumsum-bool", lambda t, x: x.cumsum(-1), (B(*A),), grad=False),
    Case("cumprod", lambda t, x: t.cumprod(x, -1), (N(*S3),)),
    Case("cumprod-with-zeros", lambda t, x: x.cumprod(1), (V(((1.5, 0.0, -2.0, 3.0), (0.0, 2.0, 0.0, 1.0))),)),
    Case("logsumexp", lambda t, x: t.logsumexp(x, 1), (N(*S3),)),
    Case("logsumexp-keepdim", lambda t, x: x.logsumexp((0, 2), keepdim=True), (N(*S3),)),
    Case("norm", lambda t, x: t.norm(x), (N(*A),)),
    Case("norm-dim", lambda t, x: x.norm(dim=1), (N(*A),)),
    Case("norm-p1", lambda t, x: t.norm(x, p=1, dim=0), (N(*A),)),
    Case("norm-p3", lambda t, x: t.norm(x, 3), (N(*A),)),
    Case("norm-inf", lambda t, x: x.norm(float("inf")), (N(*A),)),
    Case("amax", lambda t, x: t.amax(x, 1), (N(*S3),)),
    Case("amin", lambda t, x: x.amin((0, 1)), (N(*S3),)),
    Case("max", lambda t, x: t.max(x), (N(*A),)),
    Case("max-dim", lambda t, x: t.max(x, 1), (N(*S3),)),
    Case("x.max(dim, keepdim)", lambda t, x: x.max(-1, keepdim=True), (N(*S3),)),
    Case("min-dim", lambda t, x: t.min(x, 0), (N(*A),)),
    Case("max-dim-values", lambda t, x: x.max(dim=1).values, (N(*A),)),
    Case("max-dim-indices", lambda t, x: x.max(dim=1)[1], (N(*A),), grad=False),
    Case("argmax", lambda t, x: t.argmax(x, 1), (N(*S3),), grad=False),
    Case("argmin", lambda t, x: t.argmin(x), (N(*S3),), grad=False),
    Case("argmin-dim-keepdim", lambda t, x: x.argmin(0, keepdim=True), (I(*A),), grad=False),
    Case("std", lambda t, x: t.std(x, 1), (N(*S3),)),
    Case("std-correction", lambda t, x: x.std(dim=0, correction=0), (N(*A),)),
    Case("var-correction", lambda t, x: t.var(x, 1, correction=2, keepdim=True), (N(*S3),)),
    Case("var-unbiased-false", lambda t, x: x.var(0, unbiased=False), (N(*A),)),
    Case("std_mean", lambda t, x: t.std_mean(x, 1), (N(*A),)),
    Case("var_mean", lambda t, x: t.var_mean(x, 0, correction=0), (N(*A),)),
    Case("median", lambda t, x: t.median(x), (N(5, 3),)),
    Case("median-dim", lambda t, x: x.median(1), (N(4, 5),)),
    Case("all", lambda t, x: (t.all(x), x.all(1)), (I(*A),), grad=False),
    Case("any", lambda t, x: (t.any(x > 0, 0), x.any()), (N(*A),), grad=False),
    Case("count_nonzero", lambda t, x: (t.count_nonzero(x), t.count_nonzero(x, 1)), (I(*A),), grad=False),
    Case("nansum", lambda t, x: t.nansum(x), (V((1.0, float("nan"), 2.0)),)),
    # ---- sorting ----
    Case("sort", lambda t, x: t.sort(x, 1), (N(*S3),)),
    Case("sort-descending", lambda t, x: x.sort(dim=0, descending=True), (N(*A),)),
    Case("argsort", lambda t, x: t.argsort(x, -1), (N(*A),), grad=False),
    Case("topk", lambda t, x: t.topk(x, 3), (N(*A),)),
    Case("topk-smallest", lambda t, x: x.topk(2, dim=0, largest=False), (N(*A),)),
    Case("kthvalue", lambda t, x: t.kthvalue(x, 2, 1), (N(*A),)),
    Case("msort", lambda t, x: t.msort(x), (N(*A),)),
    # ---- shapes ----
    Case("flatten", lambda t, x: t.flatten(x, 1), (N(*S3),)),
    Case("stack", lambda t, x, y: t.stack([x, y], 1), (N(*A), N(*A))),
    Case("hstack", lambda t, x, y: t.hstack([x, y]), (N(*A), N(*A))),
    Case("vstack", lambda t, x, y: t.vstack([x, y]), (N(*A), N(*A))),
    Case("cat", lambda t, x, y: t.cat([x, y], -1), (N(*A), N(4, 2))),
    Case("chunk", lambda t, x: t.chunk(x, 3, 1), (N(4, 7),)),
    Case("x.chunk", lambda t, x: x.chunk(2), (N(5, 3),)),
    Case("split-size", lambda t, x: t.split(x, 2, 1), (N(4, 7),)),
    Case("split-sections", lambda t, x: x.split([1, 4, 2], dim=1), (N(4, 7),)),
    Case("tensor_split", lambda t, x: t.tensor_split(x, 3, 1), (N(4, 7),)),
    Case("unbind", lambda t, x: t.unbind(x, 1), (N(*S3),)),
    Case("narrow", lambda t, x: t.narrow(x, 1, 1, 2), (N(*S3),)),
    Case("select", lambda t, x: x.select(2, -1), (N(*S3),)),
    Case("repeat", lambda t, x: x.repeat(2, 1, 3), (N(*S3),)),
    Case("repeat-new-dims", lambda t, x: x.repeat(2, 3, 1), (N(3, 2),)),
    Case("tile", lambda t, x: t.tile(x, (2,)), (N(*A),)),
    Case("repeat_interleave", lambda t, x: t.repeat_interleave(x, 2, 1), (N(*A),)),
    Case("repeat_interleave-flat", lambda t, x: x.repeat_interleave(3), (N(2, 2),)),
    Case("repeat_interleave-tensor", lambda t, x, r: t.repeat_interleave(x, r, 0), (N(3, 2), V((1, 0, 2), "int64"))),
    Case("flip", lambda t, x: t.flip(x, (0, 2)), (N(*S3),)),
    Case("x.flip", lambda t, x: x.flip(-1), (I(*A),), grad=False),
    Case("fliplr/flipud", lambda t, x: (t.fliplr(x), t.flipud(x)), (N(*A),)),
    Case("roll", lambda t, x: t.roll(x, 2, 1), (N(*A),)),
    Case("roll-dims", lambda t, x: x.roll((1, -2), (0, 2)), (N(*S3),)),
    Case("roll-flat", lambda t, x: t.roll(x, 3), (N(*A),)),
    Case("tril", lambda t, x: t.tril(x), (N(*A),)),
    Case("triu-offset", lambda t, x: x.triu(1), (N(*S3),)),
    Case("tril-negative", lambda t, x: t.tril(x, -1), (N(5, 4),)),
    Case("diag-vector", lambda t, x: t.diag(x), (N(4),)),
    Case("diag-vector-offset", lambda t, x: t.diag(x, 2), (N(3),)),
    Case("diag-vector-negative", lambda t, x: t.diag(x, -1), (N(3),)),
    Case("diag-matrix", lambda t, x: t.diag(x), (N(*A),)),
    Case("diag-matrix-offset", lambda t, x: x.diag(-2), (N(*A),)),
    Case("diagonal", lambda t, x: t.diagonal(x, 1, 0, 2), (N(3, 2, 4),)),
    Case("diag_embed", lambda t, x: t.diag_embed(x), (N(2, 3),)),
    Case("trace", lambda t, x: t.trace(x), (N(*A),)),
    Case("outer", lambda t, x, y: t.outer(x, y), (N(4), N(3))),
    Case("mm", lambda t, x, y: t.mm(x, y), (N(*A), N(5, 2))),
    Case("bmm", lambda t, x, y: t.bmm(x, y), (N(2, 3, 4), N(2, 4, 5))),
    Case("x.bmm", lambda t, x, y: x.bmm(y), (N(2, 3, 4), N(2, 4, 5))),
    Case("baddbmm", lambda t, i, x, y: t.baddbmm(i, x, y, beta=0.5, alpha=2), (N(2, 3, 5), N(2, 3, 4), N(2, 4, 5))),
    Case("addmm", lambda t, i, x, y: t.addmm(i, x, y), (N(5,), N(3, 4), N(4, 5))),
    Case("mv", lambda t, x, y: t.mv(x, y), (N(*A), N(5))),
    Case("dot", lambda t, x, y: t.dot(x, y), (N(5), N(5))),
    Case("matmul-batch-broadcast", lambda t, x, y: t.matmul(x, y), (N(2, 1, 3, 4), N(5, 4, 2))),
    Case("matmul-vector-right", lambda t, x, y: x @ y, (N(2, 3, 4), N(4))),
    Case("matmul-vector-left", lambda t, x, y: t.matmul(x, y), (N(4), N(2, 4, 3))),
    Case("matmul-vectors", lambda t, x, y: t.matmul(x, y), (N(4), N(4))),
    Case("einsum-matmul", lambda t, x, y: t.einsum("ij,jk->ik", x, y), (N(*A), N(5, 2))),
    Case("einsum-batch", lambda t, x, y: t.einsum("bij,bjk->bik", x, y), (N(2, 3, 4), N(2, 4, 5))),
    Case("einsum-implicit", lambda t, x, y: t.einsum("ij,kj", x, y), (N(*A), N(3, 5))),
    Case("einsum-trace", lambda t, x: t.einsum("ii", x), (N(4, 4),)),
    Case("einsum-diagonal", lambda t, x: t.einsum("ii->i", x), (N(4, 4),)),
    Case("einsum-sum-out", lambda t, x: t.einsum("ijk->j", x), (N(*S3),)),
    Case("einsum-ellipsis", lambda t, x, y: t.einsum("...ij,...jk->...ik", x, y), (N(2, 3, 4), N(2, 4, 5))),
    Case("einsum-three", lambda t, x, y, z: t.einsum("ij,jk,kl->il", x, y, z), (N(2, 3), N(3, 4), N(4, 2))),
    Case("einsum-outer", lambda t, x, y: t.einsum("i,j->ij", x, y), (N(3), N(4))),
    Case("einsum-list", lambda t, x, y: t.einsum("bhqd,bhkd->bhqk", [x, y]), (N(2, 2, 3, 4), N(2, 2, 5, 4))),
    Case("squeeze-dims", lambda t, x: t.squeeze(x, (0, 2)), (N(1, 3, 1, 2),)),
    Case("unsqueeze", lambda t, x: x.unsqueeze(-1), (N(*A),)),
    Case("movedim", lambda t, x: t.movedim(x, 0, 2), (N(*S3),)),
    Case("movedim-list", lambda t, x: x.movedim((0, 1), (2, 0)), (N(*S3),)),
    Case("swapaxes", lambda t, x: t.swapaxes(x, 0, 2), (N(*S3),)),
    Case("swapdims", lambda t, x: x.swapdims(1, 2), (N(*S3),)),
    Case("t", lambda t, x: x.t(), (N(*A),)),
    Case("mT", lambda t, x: x.mT, (N(*S3),)),
    Case("unflatten", lambda t, x: x.unflatten(1, (2, 2)), (N(3, 4),)),
    Case("ravel", lambda t, x: t.ravel(x), (N(*S3),)),
    Case("broadcast_to", lambda t, x: t.broadcast_to(x, (3, 4, 5)), (N(4, 1),)),
    Case("broadcast_tensors", lambda t, x, y: t.broadcast_tensors(x, y), (N(4, 1), N(5))),
    Case("meshgrid", lambda t, x, y: t.meshgrid(x, y, indexing="ij"), (N(3), N(4))),
    Case("meshgrid-xy", lambda t, x, y: t.meshgrid(x, y, indexing="xy"), (N(3), N(4))),
    Case("atleast_2d", lambda t, x: t.atleast_2d(x), (N(3),)),
    Case("where", lambda t, c, x, y: t.where(c, x, y), (B(*A), N(*A), N(*M))),
    Case("where-scalar", lambda t, c, x: t.where(c, x, 0.0), (B(*A), N(*A))),
    Case("where-int-float", lambda t, c, x: t.where(c, x, 1.5), (B(*A), I(*A)), grad=False),
    Case("nonzero", lambda t, x: t.nonzero(x), (I(*A),), grad=False),
    Case("nonzero-tuple", lambda t, x: t.nonzero(x, as_tuple=True), (I(*A),), grad=False),
    Case("argwhere", lambda t, x: t.argwhere(x), (I(*A),), grad=False),
    # ---- factories ----
    Case("arange", lambda t: (t.arange(5), t.arange(1, 7, 2), t.arange(0, 1, 0.25), t.arange(5, dtype=t.float64)),
         (), grad=False),
    Case("arange-negative-step", lambda t: t.arange(5, -3, -2), (), grad=False),
    Case("linspace", lambda t: (t.linspace(0, 1, 7), t.linspace(-2, 3, 1), t.linspace(1, 5, 4, dtype=t.float64)), (),
         grad=False, rtol=1e-6),
    Case("logspace", lambda t: t.logspace(0, 2, 5, dtype=t.float64), (), grad=False),
    Case("eye", lambda t: (t.eye(3), t.eye(2, 4), t.eye(3, dtype=t.int64)), (), grad=False),
    Case("full-inference", lambda t: (t.full((2,), 1), t.full((2,), True), t.full((2,), 1.5), t.full((2, 2), 3,
                                                                                                      dtype=t.float64)),
         (), grad=False),
    Case("zeros/ones/empty", lambda t: (t.zeros(2, 3), t.ones((2,), dtype=t.int64), t.empty(2).shape), (),
         grad=False),
    Case("*_like", lambda t, x: (t.zeros_like(x), t.ones_like(x, dtype=t.int64), t.full_like(x, 7),
                                 t.empty_like(x).shape, t.rand_like(x).shape, t.randn_like(x).dtype,
                                 t.randint_like(x, 3).shape), (N(*A),), grad=False),
    Case("new_*", lambda t, x: (x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2,), 4.0), x.new_tensor([1, 2]),
                                x.new_empty(3).shape), (N(*A),), grad=False),
    Case("tensor-inference", lambda t: (t.tensor([1, 2]), t.tensor([1.5]), t.tensor([True, False]), t.tensor(3),
                                        t.tensor([[1, 2]], dtype=t.float64)), (), grad=False),
    Case("randint/randperm shapes and dtypes", lambda t: (t.randint(0, 10, (3, 4)).shape, t.randint(5, (2,)).dtype,
                                                          t.randperm(6).sort().values, t.rand(2, 3).dtype),
         (), grad=False),
    Case("from_numpy", lambda t: t.from_numpy(np.arange(6, dtype=np.int64).reshape(2, 3)), (), grad=False),
    # ---- attributes ----
    Case("size/shape", lambda t, x: (x.size(), x.size(1), x.shape, x.dim(), x.ndimension(), x.nelement(),
                                     x.numel(), x.element_size(), x.is_cuda, x.is_floating_point()),
         (N(*S3),), grad=False),
    Case("tolist", lambda t, x: x.tolist(), (I(*A),), grad=False),
]
