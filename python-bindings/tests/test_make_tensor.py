"""glassgrad.testing.make_tensor (torch.testing.make_tensor): PyTorch's ranges, options and
refusals, drawn from glassgrad's generator."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.testing import make_tensor


@pytest.mark.parametrize("dtype,lo,hi", [(gg.float32, -9, 9), (gg.float64, -9, 9), (gg.int64, -9, 9),
                                         (gg.int32, -9, 9), (gg.int8, -9, 9), (gg.uint8, 0, 9)])
def test_default_ranges_are_pytorchs(dtype, lo, hi):
    t = make_tensor(4000, dtype=dtype, device="cpu")
    v = t.numpy()
    assert t.dtype == dtype and t.shape == (4000,)
    assert v.min() >= lo and v.max() <= hi
    if not dtype.is_floating_point:  # every integer of [lo, hi] drawn at least once in 4000
        assert set(np.unique(v)) == set(range(lo, hi + 1))


def test_bounds_are_inclusive_below_and_exclusive_above_and_clamped_to_the_dtype():
    ints = make_tensor((2000,), dtype=gg.int64, device="cpu", low=2, high=5).numpy()
    assert set(np.unique(ints)) == {2, 3, 4}
    floats = make_tensor((2000,), dtype=gg.float32, device="cpu", low=2, high=5).numpy()
    assert floats.min() >= 2 and floats.max() < 5
    clamped = make_tensor((500,), dtype=gg.uint8, device="cpu", low=-5, high=3).numpy()
    assert clamped.min() >= 0 and clamped.max() <= 2


def test_shape_forms_bool_and_zero_dim():
    assert make_tensor(2, 3, dtype=gg.float32, device="cpu").shape == (2, 3)
    assert make_tensor((2, 3), dtype=gg.float32, device="cpu").shape == (2, 3)
    assert make_tensor([], dtype=gg.float32, device="cpu").shape == ()
    b = make_tensor(1000, dtype=gg.bool, device="cpu").numpy()
    assert b.dtype == np.bool_ and b.any() and not b.all()


def test_exclude_zero_noncontiguous_and_requires_grad():
    v = make_tensor(500, dtype=gg.int8, device="cpu", low=0, high=2, exclude_zero=True).numpy()
    assert (v == 1).all()
    t = make_tensor(5, 3, dtype=gg.float32, device="cpu", noncontiguous=True, requires_grad=True)
    assert not t.is_contiguous() and t.stride() == (6, 2)
    assert t.requires_grad and t.is_leaf
    (t * 2).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.full((5, 3), 2, np.float32))


def test_the_same_draws_after_manual_seed():
    gg.manual_seed(7)
    a = make_tensor(6, dtype=gg.float32, device="cpu").numpy()
    gg.manual_seed(7)
    np.testing.assert_array_equal(make_tensor(6, dtype=gg.float32, device="cpu").numpy(), a)


@pytest.mark.parametrize("kwargs,match", [
    ({"dtype": gg.int64, "requires_grad": True}, "requires_grad=True` is not supported"),
    ({"dtype": gg.float32, "low": 5, "high": 2}, "`low` must be less than `high`"),
    ({"dtype": gg.int64, "low": 5, "high": 5}, "`low` must be less than `high`"),
    ({"dtype": gg.float32, "low": float("nan")}, "cannot be NaN"),
])
def test_refusals_are_pytorchs_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_tensor(3, device="cpu", **kwargs)
    with pytest.raises(TypeError):
        make_tensor(3, device="cpu")  # dtype is required


def test_the_same_refusals_as_pytorch():
    torch = pytest.importorskip("torch")
    from torch.testing import make_tensor as torch_make
    for kwargs in ({"requires_grad": True, "dtype": "int64"}, {"low": 5, "high": 2, "dtype": "float32"},
                   {"low": float("nan"), "dtype": "float32"}):
        for lib, make in ((torch, torch_make), (gg, make_tensor)):
            args = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
            with pytest.raises(ValueError):
                make(3, device="cpu", **args)
