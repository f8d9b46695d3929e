"""out= on the random factories, eye, range, bernoulli, multinomial and the linalg functions that
return several tensors or a rank: as PyTorch's, the result is written into out (resized from an
empty one) and out itself comes back; linalg's out must have the result's dtype. Before, these
accepted out= and left it untouched, returning a new tensor."""
import numpy as np
import pytest

import glassgrad as gg

M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]], dtype=np.float32)


def _empty(fw, dtype="float32"):
    return fw.empty(0, dtype=getattr(fw, dtype))


FACTORIES = {
    "eye": (lambda fw, out: fw.eye(2, 3, out=out), "float32"),
    "rand": (lambda fw, out: fw.rand(2, 3, out=out), "float32"),
    "randn": (lambda fw, out: fw.randn(4, out=out), "float32"),
    "randint": (lambda fw, out: fw.randint(3, 5, (6,), out=out), "int64"),
    "randperm": (lambda fw, out: fw.randperm(5, out=out), "int64"),
    "normal": (lambda fw, out: fw.normal(2.0, 0.5, (3,), out=out), "float32"),
    "range": (lambda fw, out: fw.range(1, 4, out=out), "float32"),
    "bernoulli": (lambda fw, out: fw.bernoulli(fw.ones(4), out=out), "float32"),
    "multinomial": (lambda fw, out: fw.multinomial(fw.tensor([0.0, 1.0]), 3, True, out=out), "int64"),
}
SHAPES = {"eye": (2, 3), "rand": (2, 3), "randn": (4,), "randint": (6,), "randperm": (5,), "normal": (3,),
          "range": (4,), "bernoulli": (4,), "multinomial": (3,)}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_writes_out(name):
    call, dtype = FACTORIES[name]
    out = _empty(gg, dtype)
    got = call(gg, out)
    assert got is out
    assert tuple(out.shape) == SHAPES[name]
    assert str(out.dtype).split(".")[-1] == dtype


def test_factory_out_values():
    # values PyTorch documents: the identity, [start, end] by 1, every draw inside its range
    out = _empty(gg)
    gg.eye(2, 3, out=out)
    assert out.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    gg.range(1, 4, out=out)
    assert out.tolist() == [1.0, 2.0, 3.0, 4.0]
    ints = _empty(gg, "int64")
    gg.randint(3, 5, (50,), out=ints)
    assert set(ints.tolist()) <= {3, 4}
    gg.randperm(6, out=ints)
    assert sorted(ints.tolist()) == list(range(6))
    ints = _empty(gg, "int64")
    gg.multinomial(gg.tensor([0.0, 1.0, 0.0]), 4, True, out=ints)
    assert ints.tolist() == [1, 1, 1, 1]
    out = _empty(gg)
    gg.bernoulli(gg.ones(3), out=out)
    assert out.tolist() == [1.0, 1.0, 1.0]
    gg.rand(100, out=out)
    assert 0.0 <= float(out.min()) and float(out.max()) < 1.0


def test_factory_out_reads_out_dtype():
    out = gg.empty(0, dtype=gg.float64)
    gg.rand(3, out=out)
    assert out.dtype == gg.float64
    gg.eye(2, out=out)
    assert out.dtype == gg.float64 and out.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_linalg_out_values():
    A = gg.tensor(M)
    vals = _empty(gg)
    assert gg.linalg.eigvalsh(A, out=vals) is vals
    np.testing.assert_allclose(vals.numpy(), [2.0, 3.5 - 0.5 * 5 ** 0.5, 3.5 + 0.5 * 5 ** 0.5], rtol=1e-5)
    s = _empty(gg)
    assert gg.linalg.svdvals(A, out=s) is s
    np.testing.assert_allclose(s.numpy(), np.sort(vals.numpy())[::-1], rtol=1e-5)  # M is positive definite
    rank = _empty(gg, "int64")
    assert gg.linalg.matrix_rank(A, out=rank) is rank
    assert rank.item() == 3 and rank.shape == ()
    q, r = _empty(gg), _empty(gg)
    res = gg.linalg.qr(A, out=(q, r))
    assert res[0] is q and res[1] is r
    np.testing.assert_allclose((q @ r).numpy(), M, atol=1e-5)
    sign, logabsdet = _empty(gg), _empty(gg)
    gg.linalg.slogdet(A, out=(sign, logabsdet))
    assert sign.item() == 1.0
    np.testing.assert_allclose(logabsdet.item(), np.log(22.0), rtol=1e-5)
    P, L, U = _empty(gg), _empty(gg), _empty(gg)
    gg.linalg.lu(A, out=(P, L, U))
    np.testing.assert_allclose((P @ L @ U).numpy(), M, atol=1e-5)
    u, s3, v = _empty(gg), _empty(gg), _empty(gg)
    got = gg.svd(A, out=(u, s3, v))
    assert got[1] is s3
    np.testing.assert_allclose((u @ s3.diag() @ v.t()).numpy(), M, atol=1e-5)


def test_linalg_out_dtype_must_match():
    # PyTorch's linalg functions take no cast into out: 'Expected out tensor to have dtype float, but got double'
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        gg.linalg.svdvals(gg.tensor(M), out=gg.empty(0, dtype=gg.float64))
    with pytest.raises(TypeError, match="out"):
        gg.linalg.qr(gg.tensor(M), out=gg.empty(0))


def test_linalg_out_refuses_grad():
    A = gg.tensor(M, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        gg.linalg.eigvalsh(A, out=_empty(gg))


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_out_matches_torch(name):
    torch = pytest.importorskip("torch")
    call, dtype = FACTORIES[name]
    theirs, ours = _empty(torch, dtype), _empty(gg, dtype)
    assert call(torch, theirs) is theirs and call(gg, ours) is ours
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    if name in ("eye", "range", "bernoulli", "multinomial"):
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name,call,outs", [
    ("eigvalsh", lambda fw, A, o: fw.linalg.eigvalsh(A, out=o[0]), ["float32"]),
    ("svdvals", lambda fw, A, o: fw.linalg.svdvals(A, out=o[0]), ["float32"]),
    ("matrix_rank", lambda fw, A, o: fw.linalg.matrix_rank(A, out=o[0]), ["int64"]),
    ("slogdet", lambda fw, A, o: fw.linalg.slogdet(A, out=tuple(o)), ["float32", "float32"]),
    ("inv_ex", lambda fw, A, o: fw.linalg.inv_ex(A, out=tuple(o)), ["float32", "int32"]),
    ("cholesky_ex", lambda fw, A, o: fw.linalg.cholesky_ex(A, out=tuple(o)), ["float32", "int32"]),
    ("solve_ex", lambda fw, A, o: fw.linalg.solve_ex(A, A, out=tuple(o)), ["float32", "int32"]),
])
def test_linalg_out_matches_torch(name, call, outs):
    torch = pytest.importorskip("torch")
    results = []
    for fw in (torch, gg):
        o = [_empty(fw, d) for d in outs]
        got = call(fw, fw.tensor(M), o)
        got = got if isinstance(got, tuple) else (got,)
        assert all(g is t for g, t in zip(got, o))
        results.append([t.numpy() for t in o])
    for theirs, ours in zip(*results):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
