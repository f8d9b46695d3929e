"""out= on the torch.* reductions, scans, sorts and elementwise functions, as PyTorch's: the
result is written into out (resized from empty) and out comes back; a function of values and
indices (max with dim, sort, topk, kthvalue, mode, median, cummax) takes out=(values, indices)
and returns them as its named tuple. Compared with torch. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.random.default_rng(12).standard_normal((3, 5)).astype(np.float32)

# name: (f(lib, x, **out), out's dtype name, or a pair of them for a (values, indices) result)
_CALLS = {
    "sum": (lambda L, x, **kw: L.sum(x, 1, **kw), "float32"),
    "mean": (lambda L, x, **kw: L.mean(x, 0, keepdim=True, **kw), "float32"),
    "prod": (lambda L, x, **kw: L.prod(x, 1, **kw), "float32"),
    "amax": (lambda L, x, **kw: L.amax(x, -1, **kw), "float32"),
    "std": (lambda L, x, **kw: L.std(x, 1, **kw), "float32"),
    "var": (lambda L, x, **kw: L.var(x, 0, correction=0, **kw), "float32"),
    "logsumexp": (lambda L, x, **kw: L.logsumexp(x, 1, **kw), "float32"),
    "cumsum": (lambda L, x, **kw: L.cumsum(x, 1, **kw), "float32"),
    "argmax": (lambda L, x, **kw: L.argmax(x, 1, **kw), "int64"),
    "any": (lambda L, x, **kw: L.any(x > 0, 1, **kw), "bool"),
    "exp": (lambda L, x, **kw: L.exp(x, **kw), "float32"),
    "sigmoid": (lambda L, x, **kw: L.sigmoid(x, **kw), "float32"),
    "clamp": (lambda L, x, **kw: L.clamp(x, -0.5, 0.5, **kw), "float32"),
    "pow": (lambda L, x, **kw: L.pow(x, 2, **kw), "float32"),
    "eq": (lambda L, x, **kw: L.eq(x, x.abs(), **kw), "bool"),
    "exp into float64": (lambda L, x, **kw: L.exp(x, **kw), "float64"),
    "max with dim": (lambda L, x, **kw: L.max(x, 1, **kw), ("float32", "int64")),
    "min with dim": (lambda L, x, **kw: L.min(x, 0, keepdim=True, **kw), ("float32", "int64")),
    "sort": (lambda L, x, **kw: L.sort(x, 1, descending=True, **kw), ("float32", "int64")),
    "topk": (lambda L, x, **kw: L.topk(x, 2, **kw), ("float32", "int64")),
    "kthvalue": (lambda L, x, **kw: L.kthvalue(x, 2, 1, **kw), ("float32", "int64")),
    "median with dim": (lambda L, x, **kw: L.median(x, 1, **kw), ("float32", "int64")),
    "cummax": (lambda L, x, **kw: L.cummax(x, 1, **kw), ("float32", "int64")),
}


def _call(lib, name):
    f, dtypes = _CALLS[name]
    if isinstance(dtypes, tuple):
        out = tuple(lib.empty(0, dtype=getattr(lib, d)) for d in dtypes)
        got = f(lib, lib.tensor(X), out=out)
        assert all(g is o for g, o in zip(got, out))
        assert got.values is out[0] and got.indices is out[1]  # the named tuple of the outs
        return [(np.asarray(g.numpy()), str(g.dtype).split(".")[-1]) for g in got], len(got)
    out = lib.empty(0, dtype=getattr(lib, dtypes))
    got = f(lib, lib.tensor(X), out=out)
    assert got is out
    return [(np.asarray(got.numpy()), str(got.dtype).split(".")[-1])], None


@pytest.mark.parametrize("name", list(_CALLS))
def test_out_matches_torch(name):
    got, kind = _call(gg, name)
    want, want_kind = _call(torch, name)
    assert kind == want_kind
    for (g, gd), (w, wd) in zip(got, want):
        assert gd == wd and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_a_tuple_result_needs_a_tuple_out():
    with pytest.raises(TypeError, match="out=\\(values, indices\\)"):
        gg.sort(gg.tensor(X), out=gg.empty(0))
