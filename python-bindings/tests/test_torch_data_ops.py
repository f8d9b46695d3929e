"""torch.poisson, binomial, asarray, frombuffer, gradient, histogramdd, nuclear_norm, svd_lowrank,
pca_lowrank and the uint16/32/64 names, each against PyTorch (values, gradients, errors) or, for
the draws, against their distributions and PyTorch's gradient rule."""
import array
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from torch_compare import compare

torch = pytest.importorskip("torch")
rng = np.random.default_rng(21)


def test_poisson_draws_and_zero_gradient():
    gg.manual_seed(3)
    rates = gg.tensor(np.array([0.0, 0.5, 3.0, 40.0]), requires_grad=True)
    draws = gtorch.poisson(rates.expand(5000, 4))
    mean = draws.detach().numpy().mean(0)
    np.testing.assert_allclose(mean, [0.0, 0.5, 3.0, 40.0], atol=0.4)
    assert draws.dtype == gg.float64 and np.all(draws.detach().numpy() == np.round(draws.detach().numpy()))
    draws.sum().backward()
    np.testing.assert_array_equal(rates.grad.numpy(), 0.0)  # PyTorch's PoissonBackward0 is zero too
    gg.manual_seed(5)
    a = gtorch.poisson(gg.ones(6) * 4)
    gg.manual_seed(5)
    assert gtorch.poisson(gg.ones(6) * 4).tolist() == a.tolist()


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_poisson_and_binomial_errors(lib):
    with pytest.raises(RuntimeError, match="non-negative"):
        lib.poisson(lib.tensor([-1.0]))
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        lib.binomial(lib.tensor([3]), lib.tensor([0.5]))


def test_binomial_draws_broadcast():
    gg.manual_seed(4)
    count, prob = gg.tensor([[10.0], [40.0]]), gg.tensor([0.1, 0.5, 0.9])
    draws = np.stack([gtorch.binomial(count, prob).numpy() for _ in range(600)])
    assert draws.shape == (600, 2, 3) and draws.min() >= 0 and np.all(draws <= [[10], [40]])
    np.testing.assert_allclose(draws.mean(0), np.array([[10.0], [40.0]]) * [0.1, 0.5, 0.9], rtol=0.08)
    assert tuple(torch.binomial(torch.tensor([[10.0], [40.0]]), torch.tensor([0.1, 0.5, 0.9])).shape) == (2, 3)


def test_asarray_matches_torch():
    x = gg.tensor([1.0, 2.0])
    assert gtorch.asarray(x) is x and torch.asarray(torch.tensor([1.0])).dtype == torch.float32
    y = gtorch.asarray(x, copy=True)
    y.add_(1.0)
    assert x.tolist() == [1.0, 2.0]
    assert gtorch.asarray(x, dtype=gg.float64).dtype == gg.float64
    with pytest.raises(ValueError):
        gtorch.asarray(x, dtype=gg.float64, copy=False)
    buffer = array.array("d", [1, 2])  # a buffer: its bytes read as dtype (the default float)
    for obj in ([1, 2, 3], [[1.5, 2.0]], 3.0, 7, np.arange(6).reshape(2, 3), np.float32(2.5), buffer, bytearray(8)):
        ours, theirs = gtorch.asarray(obj), torch.asarray(obj)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], obj
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    z = gtorch.asarray([1.0, 2.0], requires_grad=True)
    assert z.requires_grad and z.is_leaf
    with pytest.raises(ValueError, match="copy=False"):
        gtorch.asarray(np.ones(2), copy=False)


def test_frombuffer_matches_torch():
    data = bytes(range(1, 33))
    for kwargs in ({"dtype": "int16"}, {"dtype": "float32", "count": 3, "offset": 4}, {"dtype": "uint8", "offset": 31},
                   {"dtype": "int64", "count": 2, "offset": 8}):
        ours = gtorch.frombuffer(data, **{**kwargs, "dtype": getattr(gg, kwargs["dtype"])})
        theirs = torch.frombuffer(bytearray(data), **{**kwargs, "dtype": getattr(torch, kwargs["dtype"])})
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for lib in (gtorch, torch):
        for kwargs in ({"count": 0}, {"offset": 40}, {"offset": 1}, {"count": 40}):
            with pytest.raises(ValueError):
                lib.frombuffer(bytearray(data), dtype=lib.int16, **kwargs)


GRADIENT_CASES = [{}, {"spacing": 2.0}, {"dim": 1}, {"dim": (0, 2), "spacing": [0.5, 3.0]}, {"edge_order": 2},
                  {"dim": -1, "edge_order": 2, "spacing": 0.25}]


@pytest.mark.parametrize("kwargs", GRADIENT_CASES, ids=[str(k) for k in GRADIENT_CASES])
def test_gradient_matches_torch(kwargs):
    a = rng.standard_normal((5, 4, 3))
    n = len(torch.gradient(torch.tensor(a), **kwargs))
    for i in range(n):
        compare(lambda x: gtorch.gradient(x, **kwargs)[i], lambda x: torch.gradient(x, **kwargs)[i], [a], (0,))


def test_gradient_at_uneven_coordinates():
    a = rng.standard_normal((5, 3))
    coords = np.array([0.0, 1.0, 3.0, 4.5, 7.25])
    for order in (1, 2):
        ours = gtorch.gradient(gg.tensor(a), spacing=(gg.tensor(coords),), dim=0, edge_order=order)[0]
        theirs = torch.gradient(torch.tensor(a), spacing=(torch.tensor(coords),), dim=0, edge_order=order)[0]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
        np.testing.assert_allclose(ours.numpy(), np.gradient(a, coords, axis=0, edge_order=order), rtol=1e-12)
    assert gtorch.gradient(gg.tensor([1, 4, 9, 16]))[0].tolist() == [3.0, 4.0, 6.0, 7.0]
    assert gtorch.gradient(gg.tensor([1.0, 3.0]))[0].tolist() == [2.0, 2.0]


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_gradient_errors(lib):
    with pytest.raises(RuntimeError, match="edge_order"):
        lib.gradient(lib.tensor([1.0, 2.0]), edge_order=2)
    with pytest.raises(RuntimeError, match="edge_order"):
        lib.gradient(lib.tensor([1.0, 2.0, 3.0]), edge_order=3)
    with pytest.raises(RuntimeError, match="same length"):
        lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0], dim=1)


def test_histogramdd_matches_torch():
    x, w = rng.standard_normal((9, 2)), rng.uniform(0.1, 1, 9)
    edges = [np.array([-3.0, 0.0, 0.5, 3.0]), np.array([-1.0, 0.0, 1.0])]
    for kwargs in ({"bins": [3, 4]}, {"bins": 3, "range": [-1.0, 1.0, -2.0, 2.0], "density": True},
                   {"bins": "edges", "weight": w}, {"bins": 2, "weight": w, "density": True}):
        def call(lib, make):
            kw = dict(kwargs)
            if kw["bins"] == "edges":
                kw["bins"] = [make(e) for e in edges]
            if "weight" in kw:
                kw["weight"] = make(kw["weight"])
            return lib.histogramdd(make(x), **kw)
        ours, theirs = call(gtorch, gg.tensor), call(torch, torch.tensor)
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-12)
        assert len(ours.bin_edges) == 2 and isinstance(ours.bin_edges, tuple)
        for o, t in zip(ours.bin_edges, theirs.bin_edges):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)
    assert tuple(gtorch.histogramdd(gg.randn(4, 3, 2), bins=2).hist.shape) == (2, 2)
    assert not hasattr(gg.Tensor, "histogramdd")  # no method, as torch's


def test_nuclear_norm_matches_torch():
    a = rng.standard_normal((3, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda x: gtorch.nuclear_norm(x), lambda x: torch.nuclear_norm(x), [a[0]], (0,))
        compare(lambda x: gtorch.nuclear_norm(x, (0, 2), True), lambda x: torch.nuclear_norm(x, (0, 2), True), [a],
                (0,), rtol=1e-8)
        compare(lambda x: gtorch.nuclear_norm(x, True), lambda x: torch.nuclear_norm(x, True), [a[1]], (0,))
    with pytest.warns(UserWarning, match="deprecated"):
        gtorch.nuclear_norm(gg.ones(2, 2))


def test_svd_and_pca_lowrank():
    a = rng.standard_normal((2, 9, 7))
    m = rng.standard_normal((1, 7))
    for q in (3, 6, 10):
        U, S, V = gtorch.svd_lowrank(gg.tensor(a), q=q, M=gg.tensor(m))
        k = min(q, 7)
        assert tuple(U.shape) == (2, 9, k) and tuple(S.shape) == (2, k) and tuple(V.shape) == (2, 7, k)
        exact = np.linalg.svd(a - m, compute_uv=False)[..., :k]
        np.testing.assert_allclose(S.numpy(), exact, rtol=1e-10)
        _, s, _ = torch.svd_lowrank(torch.tensor(a), q=q, niter=30, M=torch.tensor(m))
        np.testing.assert_allclose(S.numpy(), s.numpy(), rtol=1e-4)  # torch's is randomized
    U, S, V = gtorch.pca_lowrank(gg.tensor(a[0]))
    _, s, v = torch.pca_lowrank(torch.tensor(a[0]), niter=30)
    np.testing.assert_allclose(S.numpy(), s.numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.abs(V.numpy()), np.abs(v.numpy()), atol=1e-6)  # columns up to sign
    U, S, V = gtorch.pca_lowrank(gg.tensor(a[0]), q=4, center=False)
    approx = (U * S.unsqueeze(-2)) @ V.mT
    best = np.linalg.svd(a[0])
    np.testing.assert_allclose(approx.numpy(), (best[0][:, :4] * best[1][:4]) @ best[2][:4], atol=1e-10)
    for lib in (gtorch, torch):
        with pytest.raises(ValueError):
            lib.pca_lowrank(lib.ones(5, 4), q=7)


def test_unsigned_wide_dtypes_are_a_clear_error():
    for name in ("uint16", "uint32", "uint64"):
        assert hasattr(torch, name) and not hasattr(gtorch, name)
        with pytest.raises(AttributeError, match=f"no {name} dtype.*\n  fix: torch.int"):
            getattr(gtorch, name)


def test_fill_frobenius_and_norm_except_dim_match_torch():
    a = rng.standard_normal((3, 4, 5))
    compare(lambda x: gtorch.fill(x, 2.5), lambda x: torch.fill(x, 2.5), [a])
    v = rng.standard_normal(())
    compare(lambda x, s: gtorch.fill(x, s), lambda x, s: torch.fill(x, s), [a, v], (1,))
    for dim, keepdim in (((0, 1), False), ((2,), True), ((-1, 0), True)):
        compare(lambda x: gtorch.frobenius_norm(x, dim, keepdim), lambda x: torch.frobenius_norm(x, dim, keepdim),
                [a], (0,))
    for p, d in ((2, 0), (3, 1), (2, 2), (2, -1)):
        compare(lambda x: gtorch.norm_except_dim(x, p, d), lambda x: torch.norm_except_dim(x, p, d), [a], (0,))
