"""out= on the reductions and scans that take dtype= (sum, prod, nansum, cumsum, cumprod, mean,
nanmean), as PyTorch's: given both, out must have dtype's dtype (RuntimeError); without dtype=,
sum, prod, nansum, cumsum and cumprod compute in out's dtype, the input cast to it first (a
float into an int64 out truncates each element, a uint8 out wraps, a bool out is refused by the
scans as dtype=torch.bool is); nansum and nanmean refuse a floating input into a bool or integer
out without dtype= (NotImplementedError). Also sum(dtype=torch.uint8), which had no kernel.
Expected values are PyTorch's (checked against it in the guarded test at the end)."""
import itertools

import numpy as np
import pytest

import glassgrad as gg

F = [[1.5, 2.0, 3.0], [0.0, 1.0, -2.5]]


def _out(dtype, n=2):
    return gg.empty(n, dtype=dtype)


@pytest.mark.parametrize("fn", ["sum", "prod", "nansum", "mean", "nanmean"])
def test_dtype_and_out_dtype_must_agree(fn):
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double"):
        getattr(gg, fn)(gg.tensor(F), 1, dtype=gg.float64, out=_out(gg.float32))


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_scan_dtype_and_out_dtype_must_agree(fn):
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double"):
        getattr(gg, fn)(gg.tensor([1, 2, 3]), 0, dtype=gg.float64, out=_out(gg.float32, 3))
    out = _out(gg.float64, 3)
    assert getattr(gg, fn)(gg.tensor([1, 2, 3]), 0, dtype=gg.float64, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [1, 3, 6] if fn == "cumsum" else [1, 2, 6])


@pytest.mark.parametrize("fn,out_dtype,want", [
    ("sum", gg.int64, [6, -1]), ("sum", gg.uint8, [6, 255]), ("sum", gg.bool, [True, True]),
    ("prod", gg.int64, [6, 0]), ("prod", gg.bool, [True, False]), ("nansum", gg.float16, [6.5, -1.5])])
def test_reduction_computes_in_out_dtype(fn, out_dtype, want):
    out = _out(out_dtype)
    assert getattr(gg, fn)(gg.tensor(F), 1, out=out) is out
    assert out.dtype == out_dtype
    np.testing.assert_array_equal(out.numpy(), want)


def test_scan_computes_in_out_dtype():
    out = _out(gg.int64, 3)
    gg.cumsum(gg.tensor([1.5, 1.5, -0.7]), 0, out=out)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 2])
    out = _out(gg.uint8, 3)
    gg.cumsum(gg.tensor([100, 200, 3]), 0, out=out)
    np.testing.assert_array_equal(out.numpy(), [100, 44, 47])
    out = _out(gg.int64, 3)
    gg.cumprod(gg.tensor([2.5, 2.5, 3.0]), 0, out=out)
    np.testing.assert_array_equal(out.numpy(), [2, 4, 12])


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_scan_into_bool_out_is_not_implemented(fn):
    with pytest.raises(NotImplementedError):
        getattr(gg, fn)(gg.tensor([1, 2, 0]), 0, out=_out(gg.bool, 3))


@pytest.mark.parametrize("fn", ["nansum", "nanmean"])
def test_nan_reductions_refuse_float_into_integer_out(fn):
    with pytest.raises(NotImplementedError, match="nansum_cpu"):
        getattr(gg, fn)(gg.tensor(F), 1, out=_out(gg.int64))


def test_nansum_float_into_integer_out_with_dtype():
    out = _out(gg.int64)
    gg.nansum(gg.tensor(F), 1, dtype=gg.int64, out=out)
    np.testing.assert_array_equal(out.numpy(), [6, -1])


def test_sum_in_uint8_wraps():
    x = gg.tensor([[1, 2, 3], [0, 0, -2]])
    got = gg.sum(x, 1, dtype=gg.uint8)
    assert got.dtype == gg.uint8
    np.testing.assert_array_equal(got.numpy(), [6, 254])
    np.testing.assert_array_equal(gg.tensor([[200, 100]], dtype=gg.uint8).sum(1, dtype=gg.uint8).numpy(), [44])
    np.testing.assert_array_equal(gg.nansum(x, 1, dtype=gg.uint8).numpy(), [6, 254])


def test_methods_take_no_out():
    with pytest.raises(TypeError):
        gg.tensor([1, 2]).cumsum(0, out=_out(gg.int64))


DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("fn", ["sum", "prod", "nansum", "mean", "nanmean", "cumsum", "cumprod"])
def test_matches_torch(fn):
    torch = pytest.importorskip("torch")
    for din, dout, darg in itertools.product(DTYPES, DTYPES + [None], DTYPES + [None]):
        got = []
        for m in (torch, gg):
            x = m.tensor(F).to(getattr(m, din))
            kw = {"dtype": getattr(m, darg)} if darg else {}
            n = (2, 3) if fn.startswith("cum") else 2
            try:
                if dout:
                    o = m.empty(n, dtype=getattr(m, dout))
                    getattr(m, fn)(x, 1, out=o, **kw)
                else:
                    o = getattr(m, fn)(x, 1, **kw)
                got.append((str(o.dtype).split(".")[-1], o.double().numpy().round(2).tolist()))
            except Exception as e:  # the kinds are compared
                got.append(e)
        want, have = got
        case = (fn, din, dout, darg)
        if isinstance(want, Exception):
            assert isinstance(have, type(want)), (case, want, have)
        else:
            assert not isinstance(have, Exception), (case, want, have)
            np.testing.assert_equal(have, want, err_msg=str(case))
