"""torch.permute, transpose, column_stack, dstack, block_diag, cartesian_prod, combinations,
vander, tensordot, chain_matmul, select_scatter, slice_scatter, tril/triu_indices,
unravel_index, searchsorted, bucketize, isin, cov, corrcoef, trapezoid, trapz,
cumulative_trapezoid, pdist, range and ldexp against PyTorch: values, dtypes, shapes and input
gradients. Skipped when torch is not importable (CI never installs it; tools/torch_differential.sh
runs it)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def _pair(*shapes, dtype=np.float64):
    arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    return ([gg.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays])


def _same(got, want, grads=None):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "glassgrad."), (got.dtype, want.dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    if grads is not None:
        gs, ts = grads
        w = RNG.standard_normal(tuple(want.shape))
        (got * gg.tensor(w)).sum().backward()
        (want * torch.tensor(w)).sum().backward()
        for g, t in zip(gs, ts):
            np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


GRAD_CASES = {
    "permute": ([(2, 3, 4)], lambda m, a: m.permute(a, (2, 0, 1))),
    "transpose": ([(2, 3, 4)], lambda m, a: m.transpose(a, 0, 2)),
    "column_stack": ([(3,), (3, 2), (3,)], lambda m, a, b, c: m.column_stack([a, b, c])),
    "dstack": ([(2, 3), (2, 3)], lambda m, a, b: m.dstack((a, b))),
    "block_diag": ([(2, 3), (1,), (), (2, 2)], lambda m, a, b, c, d: m.block_diag(a, b, c, d)),
    "cartesian_prod": ([(3,), (2,), (2,)], lambda m, a, b, c: m.cartesian_prod(a, b, c)),
    "combinations": ([(5,)], lambda m, a: m.combinations(a, 3)),
    "combinations_repl": ([(4,)], lambda m, a: m.combinations(a, 2, with_replacement=True)),
    "tensordot_int": ([(2, 3, 4), (3, 4, 5)], lambda m, a, b: m.tensordot(a, b, 2)),
    "tensordot_lists": ([(2, 3, 4), (4, 2, 5)], lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0]))),
    "tensordot_zero": ([(2, 3), (4,)], lambda m, a, b: m.tensordot(a, b, 0)),
    "chain_matmul": ([(2, 3), (3, 4), (4, 2)], lambda m, a, b, c: m.chain_matmul(a, b, c)),
    "select_scatter": ([(3, 4), (3,)], lambda m, a, b: m.select_scatter(a, b, 1, -1)),
    "slice_scatter": ([(6, 4), (2, 4)], lambda m, a, b: m.slice_scatter(a, b, 0, 1, 6, 3)),
    "slice_scatter_m": ([(3, 8), (3, 4)], lambda m, a, b: a.slice_scatter(b, dim=1, start=None, end=None, step=2)),
    "cov": ([(3, 7)], lambda m, a: m.cov(a)),
    "cov_1d": ([(7,)], lambda m, a: m.cov(a, correction=0)),
    "corrcoef": ([(3, 6)], lambda m, a: m.corrcoef(a)),
    "trapezoid": ([(3, 5)], lambda m, a: m.trapezoid(a)),
    "trapezoid_dx": ([(3, 5)], lambda m, a: m.trapezoid(a, dx=0.5, dim=0)),
    "trapezoid_x": ([(3, 5), (5,)], lambda m, a, x: m.trapezoid(a, x)),
    "trapz_x2d": ([(3, 5), (3, 5)], lambda m, a, x: m.trapz(a, x)),
    "cumulative_trapezoid": ([(3, 5)], lambda m, a: m.cumulative_trapezoid(a, dim=1)),
    "pdist": ([(5, 3)], lambda m, a: m.pdist(a)),
    "pdist_p1": ([(4, 3)], lambda m, a: m.pdist(a, 1)),
    # torch's ldexp gradient is 0 for negative exponents (it raises 2 to them in integers): compared
    # for exponents >= 0 only; the values for negative ones below.
    "ldexp": ([(4,)], lambda m, a: m.ldexp(a, m.tensor([1, 2, 3, 0]))),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_values_and_gradients_match_torch(name):
    shapes, fn = GRAD_CASES[name]
    gs, ts = _pair(*shapes)
    _same(fn(gg, *gs), fn(torch, *ts), (gs, ts))


def test_cov_weights_match_torch():
    x = RNG.standard_normal((3, 6))
    f, a = np.array([1, 2, 1, 3, 1, 2]), RNG.uniform(0.5, 2, 6)
    for kw in (dict(fweights="f"), dict(aweights="a"), dict(fweights="f", aweights="a", correction=0),
               dict(fweights="f", aweights="a", correction=2)):
        g = {k: gg.tensor(f if v == "f" else a) if isinstance(v, str) else v for k, v in kw.items()}
        t = {k: torch.tensor(f if v == "f" else a) if isinstance(v, str) else v for k, v in kw.items()}
        _same(gg.cov(gg.tensor(x), **g), torch.cov(torch.tensor(x), **t))


@pytest.mark.parametrize("right", [False, True])
def test_searching_matches_torch(right):
    seq = np.array([1.0, 2.0, 2.0, 4.0, np.nan])
    vals = np.array([[0.5, 2.0, 3.0], [4.0, 9.0, np.nan]])
    _same(gg.searchsorted(gg.tensor(seq), gg.tensor(vals), right=right),
          torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right))
    rows = np.sort(RNG.standard_normal((2, 6)), 1)
    _same(gg.searchsorted(gg.tensor(rows), gg.tensor(vals), side="right" if right else "left", out_int32=True),
          torch.searchsorted(torch.tensor(rows), torch.tensor(vals), side="right" if right else "left",
                             out_int32=True))
    perm = RNG.permutation(6)
    unsorted = rows[0][perm]
    sorter = np.argsort(unsorted)
    _same(gg.searchsorted(gg.tensor(unsorted), gg.tensor(vals[0]), sorter=gg.tensor(sorter)),
          torch.searchsorted(torch.tensor(unsorted), torch.tensor(vals[0]), sorter=torch.tensor(sorter)))
    _same(gg.bucketize(gg.tensor(vals), gg.tensor(seq[:4]), right=right),
          torch.bucketize(torch.tensor(vals), torch.tensor(seq[:4]), right=right))
    _same(gg.searchsorted(gg.tensor(seq), 2.0, right=right), torch.searchsorted(torch.tensor(seq), 2.0, right=right))


def test_isin_matches_torch():
    a, b = np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9])
    for kw in ({}, {"invert": True}):
        _same(gg.isin(gg.tensor(a), gg.tensor(b), **kw), torch.isin(torch.tensor(a), torch.tensor(b), **kw))
    _same(gg.isin(gg.tensor(a), 5), torch.isin(torch.tensor(a), 5))
    _same(gg.isin(5, gg.tensor(b)), torch.isin(5, torch.tensor(b)))


@pytest.mark.parametrize("args", [(4, 4), (3, 5, 1), (5, 3, -1), (0, 3), (4, 2, 2)])
def test_triangle_indices_match_torch(args):
    _same(gg.tril_indices(*args), torch.tril_indices(*args))
    _same(gg.triu_indices(*args), torch.triu_indices(*args))


def test_unravel_index_range_and_permute_forms_match_torch():
    idx = np.array([0, 5, 23, -1])
    _same(gg.unravel_index(gg.tensor(idx), (2, 3, 4)), torch.unravel_index(torch.tensor(idx), (2, 3, 4)))
    _same(gg.unravel_index(gg.tensor(7), 10), torch.unravel_index(torch.tensor(7), 10))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in ((1, 4), (0, 1, 0.25), (3, -1, -0.5)):
            _same(gg.range(*args), torch.range(*args))
    _same(gg.combinations(gg.tensor([1, 2, 3]), 0), torch.combinations(torch.tensor([1, 2, 3]), 0))
    _same(gg.combinations(gg.tensor([1, 2]), 3), torch.combinations(torch.tensor([1, 2]), 3))
    _same(gg.block_diag(gg.tensor([[1, 2]]), gg.tensor([3.5])), torch.block_diag(torch.tensor([[1, 2]]),
                                                                                 torch.tensor([3.5])))
    _same(gg.vander(gg.tensor([1, 2, 3])), torch.vander(torch.tensor([1, 2, 3])))
    x = RNG.standard_normal(4)
    _same(gg.ldexp(gg.tensor(x), gg.tensor([1, -2, 3, 0])), torch.ldexp(torch.tensor(x), torch.tensor([1, -2, 3, 0])))
    # torch.vander's own backward fails (an in-place cumprod), so its values only
    for n, inc in ((None, False), (5, True), (2, False)):
        _same(gg.vander(gg.tensor(x), N=n, increasing=inc), torch.vander(torch.tensor(x), N=n, increasing=inc))
