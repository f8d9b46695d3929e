"""Scaled dot-product attention: ScaledDotProductAttention and its backward. The references
compute the [L, S] probabilities explicitly in float64 (the kernels never do), with a NumPy twin
of the kernels' counter-based dropout (kernels/attention_rules.h), so the same scores are dropped.
Sizes cross the kernels' 64-row tiles, L != S, key rows the causal triangle hides, masks that
hide whole rows, broadcast batch axes and strided views."""
import math

import numpy as np

from glassgrad.testing import OpSpec

_WORD = np.uint64(0xFFFFFFFF)


def philox_words(counter, seed):
    """Philox4x32-10's four words at the 64-bit counters (counter, 0) under the 64-bit seed."""
    x0, x1 = counter & _WORD, counter >> np.uint64(32)
    x2 = np.zeros_like(x0)
    x3 = np.zeros_like(x0)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * x0
        p1 = np.uint64(0xCD9E8D57) * x2
        x0, x1, x2, x3 = ((p1 >> np.uint64(32)) ^ x1 ^ k0, p1 & _WORD, (p0 >> np.uint64(32)) ^ x3 ^ k1, p0 & _WORD)
        k0 = (k0 + np.uint64(0x9E3779B9)) & _WORD
        k1 = (k1 + np.uint64(0xBB67AE85)) & _WORD
    return x0, x1, x2, x3


def dropout_factors(seed, p, batch, l, s):
    """keep / (1 - p) for every score of [*batch, L, S] (0 where dropped): key j of flat row r
    reads word (j % 32) // 8 at counter r * 8 * ceil(S / 32) + 8 * (j // 32) + j % 8."""
    rows = np.arange(math.prod(batch) * l, dtype=np.uint64)[:, None]
    j = np.arange(s, dtype=np.uint64)[None, :]
    groups = np.uint64((s + 31) // 32)
    counter = rows * np.uint64(8) * groups + np.uint64(8) * (j // np.uint64(32)) + j % np.uint64(8)
    words = philox_words(counter, int(seed))
    word = np.choose(((j % np.uint64(32)) // np.uint64(8)).astype(np.int64) + np.zeros(counter.shape, np.int64), words)
    threshold = min(int(p * 2.0**32 + 0.5), 2**32)
    keep = word >= np.uint64(threshold) if threshold < 2**32 else np.zeros(word.shape, bool)
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return (keep * scale).reshape(tuple(batch) + (l, s))


def _probabilities(q, k, mask, scale, is_causal):
    """float64 scores, probabilities and log-sum-exp; fully masked rows: p = 0, lse = -inf."""
    s = scale * (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2))
    if mask is not None:
        s = s + mask.astype(np.float64)
    l, n = s.shape[-2:]
    if is_causal:
        s = np.where(np.tril(np.ones((l, n), bool)), s, -np.inf)
    m = s.max(axis=-1, keepdims=True) if n else np.full(s.shape[:-1] + (1,), -np.inf)
    finite = np.isfinite(m)
    with np.errstate(invalid="ignore"):
        e = np.where(finite, np.exp(s - np.where(finite, m, 0.0)), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    p = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
    with np.errstate(divide="ignore"):
        lse = np.where(total > 0, m + np.log(np.where(total > 0, total, 1.0)), -np.inf)[..., 0]
    return s, p, lse


def _factors(seed, dropout_p, shape):
    return dropout_factors(seed, dropout_p, shape[:-2], shape[-2], shape[-1]) if dropout_p > 0 else 1.0


def sdpa_ref(q, k, v, *rest, scale, is_causal=False, dropout_p=0.0, masked=False):
    mask = rest[0] if masked else None
    seed = rest[-1] if dropout_p > 0 else None
    _, p, lse = _probabilities(q, k, mask, scale, is_causal)
    f = _factors(seed, dropout_p, p.shape)
    out = (p * f) @ v.astype(np.float64)
    out = np.broadcast_to(out, p.shape[:-1] + (v.shape[-1],))
    return out.astype(q.dtype), lse.astype(q.dtype)


def sdpa_backward_ref(g, q, k, v, out, lse, *rest, scale, is_causal=False, dropout_p=0.0, masked=False,
                      mask_grad=False):
    """dq, dk, dv with the broadcast batch axes, and dmask ([0] unless mask_grad), from the
    given out (for D) and lse (for p), as the kernels read them."""
    mask = rest[0] if masked else None
    seed = rest[-1] if dropout_p > 0 else None
    g64, q64, k64, v64 = (a.astype(np.float64) for a in (g, q, k, v))
    s, _, _ = _probabilities(q, k, mask, scale, is_causal)
    lse64 = lse.astype(np.float64)[..., None]
    with np.errstate(invalid="ignore"):
        p = np.where(np.isfinite(lse64) & np.isfinite(s), np.exp(s - np.where(np.isfinite(lse64), lse64, 0.0)), 0.0)
    f = _factors(seed, dropout_p, p.shape)
    pd = p * f
    dv = np.swapaxes(pd, -1, -2) @ g64
    dp = (g64 @ np.swapaxes(v64, -1, -2)) * f
    d = (g64 * out.astype(np.float64)).sum(axis=-1, keepdims=True)
    ds = p * (dp - d)
    batch = p.shape[:-2]
    dq = np.broadcast_to(scale * ds @ k64, batch + q.shape[-2:])
    dk = np.broadcast_to(scale * np.swapaxes(ds, -1, -2) @ q64, batch + k.shape[-2:])
    dv = np.broadcast_to(dv, batch + v.shape[-2:])
    dmask = ds if mask_grad else np.zeros(0)
    return tuple(a.astype(q.dtype) for a in (dq, dk, dv, dmask))


def _rand(rng, dt, *shape):
    return rng.standard_normal(shape).astype(dt)


def _case(q_shape, k_shape, v_shape, mask_shape=None, hidden_row=False, seed=False):
    """An input generator: q, k, v (shapes as functions of n), an optional additive mask with
    finite entries and some -inf ones (hidden_row: the first query row sees no key), and a seed."""
    def gen(rng, dt, n):
        out = [_rand(rng, dt, *q_shape(n)), _rand(rng, dt, *k_shape(n)), _rand(rng, dt, *v_shape(n))]
        if mask_shape is not None:
            m = rng.standard_normal(mask_shape(n))
            m[rng.random(m.shape) < 0.2] = -np.inf
            if hidden_row and m.shape[-2] > 1:
                m[..., 0, :] = -np.inf
            out.append(m.astype(dt))
        if seed:
            out.append(np.asarray(int(rng.integers(0, 2**62)), dtype=np.int64))
        return out
    return gen


def _backward_inputs(forward_gen, attrs):
    """grad_out, q, k, v, out, lse[, mask][, seed] with out and lse from the reference forward."""
    def gen(rng, dt, n):
        arrays = forward_gen(rng, dt, n)
        a = attrs(n) if callable(attrs) else attrs
        fwd = {k: v for k, v in a.items() if k != "mask_grad"}
        out, lse = sdpa_ref(*arrays, **fwd)
        return [_rand(rng, dt, *out.shape)] + arrays[:3] + [out, lse] + arrays[3:]
    return gen


# (name, q, k, v shapes as functions of n, mask shape or None, attributes, grad inputs, sizes, options)
_CASES = [
    ("plain", lambda n: (2, n, 5), lambda n: (2, n + 2, 5), lambda n: (2, n + 2, 3), None,
     {"scale": 0.7}, (0, 1, 2), {}),
    ("heads-Ev-larger", lambda n: (2, 3, n, 4), lambda n: (2, 3, n + 1, 4), lambda n: (2, 3, n + 1, 6), None,
     {"scale": 0.5}, (0, 1, 2), {}),
    ("causal", lambda n: (2, 2, n, 4), lambda n: (2, 2, n + 2, 4), lambda n: (2, 2, n + 2, 3), None,
     {"scale": 0.5, "is_causal": True}, (0, 1, 2), {}),
    ("causal-more-queries", lambda n: (2, n + 3, 4), lambda n: (2, n, 4), lambda n: (2, n, 3), None,
     {"scale": 0.5, "is_causal": True}, (0, 1, 2), {}),
    ("mask-broadcast", lambda n: (2, 3, n, 4), lambda n: (1, 3, n + 1, 4), lambda n: (2, 1, n + 1, 3),
     lambda n: (n, n + 1), {"scale": 0.6, "masked": True}, (0, 1, 2, 3), {"hidden_row": True}),
    ("mask-per-head", lambda n: (2, 2, n, 3), lambda n: (2, 2, n, 3), lambda n: (2, 2, n, 2),
     lambda n: (2, 1, n, n), {"scale": 0.6, "masked": True}, (0, 1, 2, 3), {}),
    ("mask-key-padding", lambda n: (2, 3, n, 4), lambda n: (2, 3, n + 1, 4), lambda n: (2, 3, n + 1, 3),
     lambda n: (2, 1, 1, n + 1), {"scale": 0.6, "masked": True}, (0, 1, 2, 3), {}),
    ("mask-row-vector", lambda n: (2, n, 4), lambda n: (2, n + 2, 4), lambda n: (2, n + 2, 3),
     lambda n: (1, n + 2), {"scale": 0.6, "masked": True}, (0, 1, 2, 3), {}),
    ("dropout", lambda n: (2, 2, n, 4), lambda n: (2, 2, n + 1, 4), lambda n: (2, 2, n + 1, 3), None,
     {"scale": 0.5, "dropout_p": 0.3}, (0, 1, 2), {}),
    ("dropout-causal-mask", lambda n: (2, n, 4), lambda n: (2, n, 4), lambda n: (2, n, 3), lambda n: (n, n),
     {"scale": 0.5, "dropout_p": 0.25, "is_causal": True, "masked": True}, (0, 1, 2, 3), {}),
    ("unbatched", lambda n: (n, 3), lambda n: (n + 1, 3), lambda n: (n + 1, 2), None, {"scale": 1.0}, (0, 1, 2), {}),
    ("no-keys", lambda n: (2, n, 3), lambda n: (2, n - 1, 3), lambda n: (2, n - 1, 2), None, {"scale": 1.0}, (), {}),
]

# Tiles: the kernels walk 64 query rows and 32 or 64 keys at a time.
_TILE_SIZES = (65, 97)
_TILE_CASES = [
    ("tiles", lambda n: (1, 2, n, 6), lambda n: (1, 2, n + 7, 6), lambda n: (1, 2, n + 7, 5), None,
     {"scale": 0.4}),
    ("tiles-causal-dropout", lambda n: (2, n, 5), lambda n: (2, n - 9, 5), lambda n: (2, n - 9, 3), None,
     {"scale": 0.4, "is_causal": True, "dropout_p": 0.2}),
    ("tiles-mask", lambda n: (2, n, 3), lambda n: (2, n, 3), lambda n: (2, n, 3), lambda n: (n, n),
     {"scale": 0.4, "masked": True}),
]

SPECS = []
for _name, _q, _k, _v, _m, _attrs, _grad, _opts in _CASES:
    _gen = _case(_q, _k, _v, _m, seed=_attrs.get("dropout_p", 0) > 0, **_opts)
    _battrs = dict(_attrs, mask_grad=True) if 3 in _grad else _attrs
    SPECS += [
        OpSpec("ScaledDotProductAttention", sdpa_ref, _gen, attrs=_attrs, grad=_grad, grad_outputs=(0,),
               name=f"ScaledDotProductAttention-{_name}"),
        OpSpec("ScaledDotProductAttentionBackward", sdpa_backward_ref, _backward_inputs(_gen, _battrs), attrs=_battrs,
               name=f"ScaledDotProductAttentionBackward-{_name}"),
    ]
for _name, _q, _k, _v, _m, _attrs in _TILE_CASES:
    _gen = _case(_q, _k, _v, _m, seed=_attrs.get("dropout_p", 0) > 0)
    _battrs = dict(_attrs, mask_grad=True) if _m is not None else _attrs
    SPECS += [
        OpSpec("ScaledDotProductAttention", sdpa_ref, _gen, attrs=_attrs, sizes=_TILE_SIZES,
               name=f"ScaledDotProductAttention-{_name}"),
        OpSpec("ScaledDotProductAttentionBackward", sdpa_backward_ref, _backward_inputs(_gen, _battrs), attrs=_battrs,
               sizes=_TILE_SIZES, name=f"ScaledDotProductAttentionBackward-{_name}"),
    ]
