"""Reductions where a sweep against PyTorch found glassgrad differing (tests/torch_fuzz.py; skipped
without torch): all/any over dim=() (no axis reduced), prod of an empty tensor (its zero gradient),
a 0-d input's dim range for prod/cummax/cummin, nanmedian's gradient at ties, mode of bfloat16."""
import numpy as np
import pytest

from torch_fuzz import DTYPES, array, same

torch = pytest.importorskip("torch")
import glassgrad.torch as gt  # noqa: E402

SHAPES = [(), (0,), (0, 3), (3, 4), (2, 3, 4)]


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_all_any_over_no_axis_as_torch(name, dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for shape in SHAPES:
        x = array(rng, dtype, shape, low=-1, high=2)
        for keepdim in (False, True):
            same(lambda lib, x: getattr(lib, name)(x, dim=(), keepdim=keepdim), x, where=f"{name}({dtype}{shape}, ())")
            same(lambda lib, x: getattr(x, name)(()), x, where=f"x.{name}(()) {dtype}{shape}")


@pytest.mark.parametrize("name", ["prod", "cummax", "cummin", "cumsum", "cumprod"])
def test_zero_dim_input_takes_dims_0_and_minus_1_only(name):
    x = np.asarray(1.5)
    for dim in (0, -1, 1, -2, 3):
        same(lambda lib, x: getattr(lib, name)(x, dim), x, where=f"{name}(0-d, {dim})")


def _grads(fn, a):
    out = []
    for lib in (torch, gt):
        x = lib.tensor(a, requires_grad=True)
        r = fn(lib, x)
        r = r[0] if isinstance(r, tuple) else r
        w = lib.tensor(np.random.default_rng(2).standard_normal(tuple(r.shape)))
        (r * w).sum().backward()
        out.append((r.detach().numpy(), r.requires_grad, x.grad.detach().numpy()))
    return out


@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), None), ((0, 3), 0), ((3, 0), 1), ((3, 0), 0)])
def test_prod_of_empty_has_a_zero_gradient_as_torch(shape, dim):
    (tv, tr, tg), (gv, gr, gg_) = _grads(lambda lib, x: x.prod() if dim is None else x.prod(dim), np.ones(shape))
    np.testing.assert_array_equal(gv, tv)
    assert gr == tr
    np.testing.assert_array_equal(gg_, tg)


@pytest.mark.parametrize("seed", range(4))
def test_nanmedian_over_every_element_shares_the_gradient_among_ties_as_torch(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, (4, 5)).astype(np.float64)  # few values: the median is tied
    a[0, 0] = np.nan
    for name in ("median", "nanmedian"):
        (tv, _, tg), (gv, _, g) = _grads(lambda lib, x: getattr(lib, name)(x), a)
        np.testing.assert_array_equal(gv, tv)
        np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_mode_of_half_precision_as_torch(dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, (3, 7)).astype(np.float32)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            same(lambda lib, x: lib.mode(x.to(getattr(lib, dtype)), dim, keepdim), x, where=f"mode({dtype}, {dim})")


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("correction", [0.5, 1.5, 2, 3.5, 5])
def test_fractional_correction_as_torch(name, correction):
    x = np.random.default_rng(4).standard_normal((3, 4))
    for dim in (None, 0, 1, (0, 1)):
        for keepdim in (False, True):
            same(lambda lib, x: getattr(lib, name)(x, dim=dim, correction=correction, keepdim=keepdim), x,
                 where=f"{name}(dim={dim}, correction={correction})")
    if name == "var":
        for dim in (None, 0, 1):
            if (x.size if dim is None else x.shape[dim]) <= correction:
                continue  # no degrees of freedom: PyTorch's gradient divides by N - correction, its value by 0
            (tv, _, tg), (gv, _, g) = _grads(lambda lib, x: lib.var(x, dim=dim, correction=correction), x)
            np.testing.assert_allclose(gv, tv, rtol=1e-12)
            np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [-1, -2, -0.5, float("-inf")])
def test_negative_p_norm_of_empty_raises_as_torch(p):
    for shape, dim in [((0, 4), None), ((0, 4), 0), ((0, 4), 1), ((3, 4), 0)]:
        same(lambda lib, x: lib.norm(x, p=p, dim=dim), np.ones(shape), where=f"norm({shape}, p={p}, dim={dim})")


def test_nuclear_norm_as_torch():
    x = np.random.default_rng(6).standard_normal((2, 3, 4))
    for dim, keepdim in [((0, 1), False), ((1, 2), True), ((-1, -2), False), (None, False)]:
        same(lambda lib, x: lib.norm(x, p="nuc", dim=dim, keepdim=keepdim), x, where=f"nuc {dim}")
    same(lambda lib, x: lib.norm(x, p="nuc"), x[0], where="nuc of a matrix")
    (tv, _, tg), (gv, _, g) = _grads(lambda lib, x: lib.norm(x, p="nuc", dim=(1, 2)), x)
    np.testing.assert_allclose(gv, tv, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-9, atol=1e-12)

