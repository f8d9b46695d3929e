"""Floats beyond a floating dtype's range, converted as PyTorch converts them (docs/porting.md,
"Python numbers beside tensors"): data given to torch.tensor and numbers meeting a float16 or
bfloat16 tensor become +-inf without a NumPy RuntimeWarning; a finite fill value beyond float32's
range (fill_, full, masked_fill, x[i] = v, clamp's bound) raises PyTorch's RuntimeError
'value cannot be converted to type float without overflow'."""
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
    assert x.fill_(70000.0).tolist() == [INF, INF]
    assert gg.full((1,), 1e300, dtype=gg.float16).tolist() == [INF]
    assert gg.tensor([1.0]).bfloat16().fill_(1e300).tolist() == [INF]


@pytest.mark.parametrize("call", [
    lambda x: x.fill_(3.5e38),
    lambda x: x.fill_(-1e300),
    lambda x: gg.full((1,), 1e300),
    lambda x: x.masked_fill(gg.tensor([True, False]), 1e300),
    lambda x: x.__setitem__(0, 1e300),
    lambda x: x.clamp(max=1e300),
], ids=["fill_", "fill_ negative", "full", "masked_fill", "setitem", "clamp"])
def test_finite_fill_beyond_float32_is_refused(call):
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        call(gg.tensor([1.0, 2.0]))


def test_what_float32_still_takes():
    x = gg.tensor([1.0, 2.0])
    assert x.fill_(INF).tolist() == [INF, INF]
    assert (gg.tensor([1.0]) + 1e300).tolist() == [INF]  # an operand, not a fill value
    assert gg.full((1,), 3.0e38).tolist() == [pytest.approx(3.0e38, rel=1e-6)]
    assert gg.tensor([1.0], dtype=gg.float64).fill_(1e300).tolist() == [1e300]
