"""clip_grad_norm_ and get_total_norm over gradients of several dtypes, as PyTorch's: each
gradient's norm in its own dtype (a float16 one computed in float32, so squares past float16's
range do not overflow), the total in the dtype the norms promote to, and each gradient scaled by
the factor read at its computing precision (docs/debugging.md, section 2)."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn.utils import clip_grad_norm_, get_total_norm


def _params(dtypes, values):
    ps = []
    for dt, v in zip(dtypes, values):
        p = gg.ones(4, dtype=dt, requires_grad=True)
        p.grad = gg.full((4,), v, dtype=dt)
        ps.append(p)
    return ps


@pytest.mark.parametrize("dtypes,want", [(("float32", "float64"), "float64"), (("float64", "float32"), "float64"),
                                         (("float16", "float32"), "float32"), (("float16", "bfloat16"), "float32"),
                                         (("float16",), "float16")])
def test_the_total_norm_has_the_promoted_dtype(dtypes, want):
    ps = _params(dtypes, [1.0] * len(dtypes))
    assert str(clip_grad_norm_(ps, 1.0).dtype) == f"glassgrad.{want}"
    assert str(get_total_norm([p.grad for p in ps]).dtype) == f"glassgrad.{want}"


def test_a_float64_gradient_keeps_float64_precision():
    a, b = _params(("float32", "float64"), [3.0, 4.0])
    norm = clip_grad_norm_([a, b], 1.0)
    assert norm.item() == 10.0
    coef = 1.0 / (10.0 + 1e-6)
    assert b.grad[0].item() == 4.0 * coef  # float64 arithmetic throughout
    np.testing.assert_allclose(a.grad.numpy(), np.float32(3.0) * np.float32(coef), rtol=0)


@pytest.mark.parametrize("norm_type,want", [(1.0, 28.0), (3.0, (4 * 27 + 4 * 64) ** (1 / 3)), (math.inf, 4.0),
                                            (-math.inf, 3.0)])
def test_other_norms_in_the_promoted_dtype(norm_type, want):
    a, b = _params(("float32", "float64"), [3.0, 4.0])
    norm = clip_grad_norm_([a, b], 1.0, norm_type=norm_type)
    assert norm.dtype == gg.float64
    np.testing.assert_allclose(norm.item(), want, rtol=1e-7)  # float32 norm of the first


def test_a_float16_gradient_whose_squares_pass_its_range_is_clipped():
    (p,) = _params(("float16",), [300.0])  # 300**2 = 90000 > 65504, the norm 600 is a float16
    norm = clip_grad_norm_([p], 1.0)
    assert norm.item() == 600.0
    np.testing.assert_array_equal(p.grad.float().numpy(), [0.5] * 4)


def test_a_float16_gradient_is_scaled_by_an_unrounded_factor():
    a, b = _params(("float16", "float32"), [300.0, 4.0])
    norm = clip_grad_norm_([a, b], 1.0)
    assert norm.dtype == gg.float32
    np.testing.assert_allclose(norm.item(), math.sqrt(4 * 300.0 ** 2 + 4 * 16.0), rtol=1e-6)
    # 300 * (1 / 600.05) = 0.49996 rounds to 0.5 in float16; the factor rounded to float16 first gave 0.49976
    np.testing.assert_array_equal(a.grad.float().numpy(), [0.5] * 4)
