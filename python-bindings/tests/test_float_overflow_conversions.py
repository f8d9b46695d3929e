"""Floats beyond a floating dtype's range, converted as PyTorch converts them (docs/porting.md,
"Python numbers beside tensors"): data given to torch.tensor and numbers meeting a float16 or
bfloat16 tensor as an operand become +-inf without a NumPy RuntimeWarning; a finite fill value
beyond float32's, float16's or bfloat16's range (fill_, full, masked_fill, clamp's bound, alpha)
raises PyTorch's RuntimeError 'value cannot be converted to type float without overflow'
(c10::Half, c10::BFloat16), but x[i] = v, where's numbers and the fill of one CPU element."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

INF = float("inf")


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_tensor_data_overflows_to_inf_silently():
    assert gg.tensor([1e6, -1e300], dtype=gg.float16).tolist() == [INF, -INF]
    assert gg.tensor([1e300]).tolist() == [INF]
    assert gg.tensor(1e300, dtype=gg.float32).item() == INF
    assert gg.tensor([[1e300]], dtype=gg.bfloat16).tolist() == [[INF]]
    assert gg.tensor([np.float32(1.5), 1e300]).tolist() == [1.5, INF]


def test_half_numbers_overflow_to_inf_silently():
    x = gg.tensor([1.0, 2.0], dtype=gg.float16)
    assert (x + 1e6).tolist() == [INF, INF]
    assert (x * 70000).tolist() == [INF, INF]
    assert gg.full((1,), 1e300, dtype=gg.float16, device="cpu").tolist() == [INF]
    assert gg.tensor([1.0], device="cpu").bfloat16().fill_(1e300).tolist() == [INF]
    assert gg.zeros((), dtype=gg.float16, device="cpu").fill_(70000).item() == INF
    assert gg.zeros(4, dtype=gg.float16, device="cpu")[1:2].fill_(7e4).tolist() == [INF]
    x[0] = 7e4
    assert x.tolist() == [INF, 2.0]
    assert gg.where(gg.tensor([True, False]), x, -7e4).tolist() == [INF, -INF]
    assert x.lerp(x, 7e4).dtype == gg.float16  # computed in float32, where 7e4 fits
    assert x.addcmul(x, x, value=7e4).dtype == gg.float16


HALF = "value cannot be converted to type c10::Half without overflow"
BFLOAT = "value cannot be converted to type c10::BFloat16 without overflow"


@pytest.mark.parametrize("call, message", [
    (lambda x: x.fill_(70000.0), HALF),
    (lambda x: x.fill_(65519.0), HALF),  # beyond 65504 before rounding, as PyTorch checks it
    (lambda x: x.fill_(-70000), HALF),
    (lambda x: gg.full((2,), 1e6, dtype=gg.float16), HALF),
    (lambda x: gg.full((0,), 1e6, dtype=gg.float16), HALF),
    (lambda x: gg.full_like(x, 7e4), HALF),
    (lambda x: x.new_full((2,), 7e4), HALF),
    (lambda x: x.masked_fill(gg.tensor([True, False]), 7e4), HALF),
    (lambda x: x.masked_fill(gg.tensor([True, False]), gg.tensor(7e4)), HALF),
    (lambda x: x.clamp(min=70000), HALF),
    (lambda x: x.clamp_max(-7e4), HALF),
    (lambda x: x.index_fill(0, gg.tensor([0]), 7e4), HALF),
    (lambda x: x.scatter(0, gg.tensor([0]), 7e4), HALF),
    (lambda x: x.add(1, alpha=70000), HALF),
    (lambda x: x.sub(x, alpha=7e4), HALF),
    (lambda x: x.pow(7e4), HALF),
    (lambda x: gg.nn.functional.hardtanh(x, -7e4, 7e4), HALF),
    (lambda x: gg.nn.functional.threshold(x, 0.5, 7e4), HALF),
    (lambda x: x.bfloat16().fill_(1e39), BFLOAT),
    (lambda x: x.bfloat16().fill_(3.3895313892515357e38), BFLOAT),
    (lambda x: gg.full((2,), -1e39, dtype=gg.bfloat16), BFLOAT),
])
def test_half_fill_values_beyond_the_range_are_refused(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(gg.tensor([1.0, 2.0], dtype=gg.float16))


def test_half_fill_values_within_the_range():
    x = gg.tensor([1.0, 2.0], dtype=gg.float16)
    assert x.fill_(65504.0).tolist() == [65504.0, 65504.0]
    assert x.fill_(-65504).tolist() == [-65504.0, -65504.0]
    assert x.fill_(-INF).tolist() == [-INF, -INF]
    assert gg.full((2,), 7e4, dtype=gg.bfloat16).tolist() == [70144.0, 70144.0]
    assert gg.full((2,), 3.3895313892515355e38, dtype=gg.bfloat16).tolist() == [3.3895313892515355e38] * 2


@pytest.mark.parametrize("call", [
    lambda x: x.fill_(3.5e38),
    lambda x: x.fill_(-1e300),
    lambda x: gg.full((1,), 1e300),
    lambda x: x.masked_fill(gg.tensor([True, False]), 1e300),
    lambda x: x.__setitem__(0, 1e300),
    lambda x: x.clamp(max=1e300),
    lambda x: x.add(1, alpha=1e39),
    lambda x: x.lerp(x, 1e39),
    lambda x: x.addcdiv(x, x, value=1e39),
    lambda x: gg.nn.functional.hardtanh(x, -1e39, 1e39),
    lambda x: gg.where(gg.tensor([True, False]), x, 1e39),
], ids=["fill_", "fill_ negative", "full", "masked_fill", "setitem", "clamp", "alpha", "lerp", "addcdiv", "hardtanh",
        "where"])
def test_finite_fill_beyond_float32_is_refused(call):
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        call(gg.tensor([1.0, 2.0]))


def test_what_float32_still_takes():
    x = gg.tensor([1.0, 2.0])
    assert x.fill_(INF).tolist() == [INF, INF]
    assert (gg.tensor([1.0]) + 1e300).tolist() == [INF]  # an operand, not a fill value
    assert gg.full((1,), 3.0e38).tolist() == [pytest.approx(3.0e38, rel=1e-6)]
    assert gg.tensor([1.0], dtype=gg.float64).fill_(1e300).tolist() == [1e300]
    assert gg.tensor([1.0, 2.0]).pow(1e39).tolist() == [1.0, INF]  # PyTorch computes float32's power in float64


def test_integer_arguments_beyond_the_dtype_are_refused():
    x = gg.tensor([1, 2], dtype=gg.int8)
    for call in (lambda: x.add(1, alpha=300), lambda: x.addcmul(x, x, value=300),
                 lambda: gg.nn.functional.threshold(x, 0, 300),
                 lambda: x.masked_fill(gg.tensor([True, False]), gg.tensor(300)),
                 lambda: gg.tensor([1, 2]).add(1, alpha=2**63)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type int(8|64)_t without overflow"):
            call()
