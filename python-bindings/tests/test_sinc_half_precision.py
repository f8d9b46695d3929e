"""torch.sinc of float16 and bfloat16 input is computed in float32 and rounded once, as PyTorch's
kernel does (its opmath type): computing sin(pi x) / (pi x) in half precision rounded pi x first
and was off by several units in the last place. Expected values are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("dtype,expected", [
    ("float16", [1.0, 0.8583984375, -0.212158203125, 0.08477783203125]),
    ("bfloat16", [1.0, 0.859375, -0.2119140625, 0.0859375]),
])
def test_sinc_of_16_bit_floats_rounds_once(dtype, expected):
    x = gg.tensor([0.0, 0.3, 1.5, -2.2], dtype=getattr(gg, dtype), requires_grad=True)
    y = gg.sinc(x)
    assert y.dtype == getattr(gg, dtype) and y.tolist() == expected
    assert y.grad_fn.name() == "SincBackward0"
    y.sum().backward()
    assert x.grad.dtype == getattr(gg, dtype) and x.grad.tolist()[0] == 0.0


def test_sinc_matches_float32_rounded():
    base = np.linspace(-4, 4, 101, dtype=np.float32)
    for dtype in ("float16", "bfloat16"):
        x = gg.tensor(base).to(getattr(gg, dtype))
        wide = gg.sinc(x.float()).to(getattr(gg, dtype))
        assert gg.equal(gg.sinc(x), wide)


def test_against_torch():
    torch = pytest.importorskip("torch")
    base = np.linspace(-4, 4, 101, dtype=np.float32)
    for dtype in ("float16", "bfloat16"):
        expected = torch.sinc(torch.tensor(base).to(getattr(torch, dtype))).float().numpy()
        got = gg.sinc(gg.tensor(base).to(getattr(gg, dtype))).float().numpy()
        np.testing.assert_array_equal(got, expected)
