"""Reduction behaviours PyTorch documents, checked against NumPy without torch: all/any over dim=()
reduce no axis (np.all(axis=()) too), the empty product is 1 with a zero gradient, a 0-d input
takes dim 0 or -1 only, median and nanmedian over every element share the gradient evenly among
the elements equal to the result, mode of bfloat16 matches its float32 values."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32"])
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_over_no_axis(name, dtype):
    a = np.random.default_rng(1).integers(-1, 2, (3, 4)).astype(dtype)
    got = getattr(gg, name)(gg.tensor(a), dim=())
    want = getattr(np, name)(a, axis=())
    assert tuple(got.shape) == want.shape
    assert got.dtype == (gg.uint8 if dtype == "uint8" else gg.bool)
    np.testing.assert_array_equal(got.numpy().astype(bool), want)


@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), 0), ((3, 0), 1)])
def test_empty_product_gradient_is_zero(shape, dim):
    x = gg.tensor(np.ones(shape), requires_grad=True)
    out = x.prod() if dim is None else x.prod(dim)
    assert out.requires_grad
    np.testing.assert_array_equal(out.detach().numpy(), np.prod(np.ones(shape), axis=dim))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape))


@pytest.mark.parametrize("name", ["prod", "cummax", "cummin"])
def test_zero_dim_input_dim_range(name):
    x = gg.tensor(2.5)
    for dim in (0, -1):
        out = getattr(gg, name)(x, dim)
        out = out[0] if isinstance(out, tuple) else out
        assert float(out) == 2.5
    for dim in (1, -2):
        with pytest.raises(IndexError):
            getattr(gg, name)(x, dim)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_gradient_shared_among_ties(name):
    a = np.array([3.0, 1.0, 2.0, 2.0, 5.0, 2.0, 0.5, np.nan if name == "nanmedian" else 7.0])
    x = gg.tensor(a, requires_grad=True)
    out = getattr(gg, name)(x)
    finite = a[~np.isnan(a)]
    assert float(out) == np.sort(finite)[(finite.size - 1) // 2] == 2.0
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(a == 2.0, 1.0 / 3.0, 0.0), rtol=1e-15)


def test_mode_of_bfloat16_as_its_float32_values():
    a = np.random.default_rng(5).integers(-2, 3, (4, 9)).astype(np.float32)
    half = gg.mode(gg.tensor(a).bfloat16(), 1)
    full = gg.mode(gg.tensor(a), 1)
    assert half.values.dtype == gg.bfloat16
    np.testing.assert_array_equal(half.values.float().numpy(), full.values.numpy())
    np.testing.assert_array_equal(half.indices.numpy(), full.indices.numpy())


@pytest.mark.parametrize("correction", [0.5, 1.5, 2.5])
def test_fractional_correction_as_numpy_ddof(correction):
    a = np.random.default_rng(8).standard_normal((3, 5))
    for dim in (None, 0, 1):
        got = gg.var(gg.tensor(a), dim=dim, correction=correction)
        np.testing.assert_allclose(got.numpy(), np.var(a, axis=dim, ddof=correction), rtol=1e-12)
        got = gg.std(gg.tensor(a), dim=dim, correction=correction)
        np.testing.assert_allclose(got.numpy(), np.std(a, axis=dim, ddof=correction), rtol=1e-12)
    x = gg.tensor(a, requires_grad=True)
    gg.var(x, dim=1, correction=correction).sum().backward()
    want = 2 * (a - a.mean(1, keepdims=True)) / (a.shape[1] - correction)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


def test_nuclear_norm_as_numpy():
    a = np.random.default_rng(9).standard_normal((4, 3))
    np.testing.assert_allclose(float(gg.norm(gg.tensor(a), p="nuc")), np.linalg.norm(a, "nuc"), rtol=1e-12)
    with pytest.raises(ValueError, match="2-tuple"):
        gg.norm(gg.tensor(np.ones((2, 3, 4))), p="nuc")


def test_negative_p_norm_of_empty_raises():
    with pytest.raises(ValueError, match="does not have an identity"):
        gg.norm(gg.ones(0, 3), p=-1)
    with pytest.raises(ValueError, match="does not have an identity"):
        gg.norm(gg.ones(0, 3), p=-2, dim=0)
    np.testing.assert_array_equal(gg.norm(gg.ones(0, 3), p=-1, dim=1).numpy(), np.zeros(0))


@pytest.mark.parametrize("shape,dim", [((0, 3), 0), ((0,), -1), ((2, 0), 1)])
def test_mode_over_an_empty_dim_raises_index_error(shape, dim):
    # PyTorch: "mode(): Expected reduction dim 0 to have non-zero size." (an IndexError)
    with pytest.raises(IndexError, match=f"mode\\(\\): Expected reduction dim {dim % len(shape)} to have non-zero"):
        gg.zeros(*shape).mode(dim)
    values, indices = gg.zeros(0, 3).mode(1)  # the other dims may be empty: an empty result
    assert tuple(values.shape) == (0,) and tuple(indices.shape) == (0,)


def test_std_gradient_is_zero_where_the_std_is_zero():
    # PyTorch's std_backward gives 0 there (a constant row), not sqrt's 0 * inf = nan
    x = gg.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], dtype=gg.float64, requires_grad=True)
    x.std(1).sum().backward()
    a = np.array([1.0, 2.0, 4.0])
    want = (a - a.mean()) / (a.std(ddof=1) * (len(a) - 1))
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0, 0.0], want], rtol=1e-12)
    y = gg.ones(4, requires_grad=True)
    s, m = gg.std_mean(y)
    (s + m).backward()
    assert y.grad.tolist() == [0.25] * 4
    z = gg.tensor([float("nan"), 1.0], requires_grad=True)
    z.std().backward()  # a NaN std keeps NaN gradients, as PyTorch's
    assert np.isnan(z.grad.numpy()).all()
    assert type(x.std(1).grad_fn).__name__ == "StdBackward0"


def test_std_gradient_matches_finite_differences():
    x = gg.tensor(np.random.default_rng(3).standard_normal((3, 4)), requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: t.std(1, correction=0), (x,))
    assert gg.autograd.gradcheck(lambda t: t.std(), (x,))


def test_std_gradient_at_zero_as_torch():
    torch = pytest.importorskip("torch")
    data = np.array([[2.0, 2.0, 2.0, 2.0], [0.5, -1.0, 3.0, 0.0], [5.0, 5.0, 5.0, 5.0]])
    grads = []
    for lib in (torch, gg):
        x = lib.tensor(data, requires_grad=True)
        (x.std(1) * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        s, m = lib.std_mean(x, 0, keepdim=True)
        (s.sum() + m.sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_norms_accumulate_in_float32(dtype):
    # PyTorch sums the squares in float32 and rounds the norm once: 10000 tens have the norm 1000
    # (a float16 sum of squares overflows to inf at 65504)
    x = gg.full((10000,), 10.0, dtype=getattr(gg, dtype))
    for got in (x.norm(), gg.norm(x), gg.linalg.vector_norm(x)):
        assert got.dtype == getattr(gg, dtype) and got.item() == 1000.0
    if dtype == "float16":  # 519.6 rounded to float16
        assert gg.full((2, 3), 300.0, dtype=gg.float16).norm(dim=1).tolist() == [519.5, 519.5]
    assert gg.linalg.vector_norm(x, dtype=gg.float32).dtype == gg.float32
    y = gg.full((3,), 300.0, dtype=getattr(gg, dtype), requires_grad=True)
    n = y.norm()
    n.backward()
    assert type(n.grad_fn).__name__ == "LinalgVectorNormBackward0"
    np.testing.assert_allclose(y.grad.float().numpy(), [3 ** -0.5] * 3, rtol=1e-2)


def test_low_precision_norms_as_torch():
    torch = pytest.importorskip("torch")
    calls = (lambda lib, x: x.norm(), lambda lib, x: x.norm(p=1), lambda lib, x: x.norm(dim=0),
             lambda lib, x: lib.linalg.vector_norm(x, ord=3), lambda lib, x: x.norm(p=float("inf")))
    data = np.linspace(-300, 400, 600).reshape(200, 3)
    for dtype in ("float16", "bfloat16"):
        for call in calls:
            want = call(torch, torch.tensor(data).to(getattr(torch, dtype)))
            got = call(gg, gg.tensor(data).to(getattr(gg, dtype)))
            assert str(got.dtype).split(".")[-1] == dtype
            np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_std_mean_and_var_mean_are_plain_tuples(name):
    # PyTorch's are tuples (no torch.return_types entry): printed as (tensor(...), tensor(...))
    x = gg.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
    r = getattr(gg, name)(x)
    assert type(r) is tuple and len(r) == 2
    assert repr(r).startswith("(tensor(") and r[1].item() == 1.5
    assert r[1].output_nr == 1  # the second output of PyTorch's one node
