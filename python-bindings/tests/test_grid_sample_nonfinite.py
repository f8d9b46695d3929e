"""F.grid_sample at non-finite grid coordinates (nan, inf, -inf), as PyTorch's CPU kernel gives
them: 'zeros' padding reads nothing there (nearest 0, the interpolating modes nan through their
weights); 'border' and 'reflection' move nan (and reflection's infinities) to pixel 0 and border's
inf to the last pixel; bicubic's weights are nan. Expected values are PyTorch 2's; they were an
IndexError (the nan index) before. Also interpolate's antialias refusal is PyTorch's ValueError."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

NAN = math.nan
# outputs at grid points (v, 0.2), (0.1, v), (v, v) of the 3 x 4 image 1..12, for
# align_corners False and True
NANS = ([NAN] * 3, [NAN] * 3)
ZEROS = ([0.0] * 3, [0.0] * 3)
PIXEL_0 = ([6.200000286102295, 2.700000047683716, 1.0], [5.800000190734863, 2.6500000953674316, 1.0])
NEAREST_0 = ([5.0, 3.0, 1.0], [5.0, 3.0, 1.0])
EXPECTED = {  # (value, mode): outputs for padding 'zeros', 'border', 'reflection'
    ("nan", "bilinear"): (NANS, PIXEL_0, PIXEL_0),
    ("inf", "bilinear"): (NANS, ([9.200000762939453, 10.699999809265137, 12.0],
                                 [8.800000190734863, 10.649999618530273, 12.0]), PIXEL_0),
    ("-inf", "bilinear"): (NANS, PIXEL_0, PIXEL_0),
    ("nan", "nearest"): (ZEROS, NEAREST_0, NEAREST_0),
    ("inf", "nearest"): (ZEROS, ([8.0, 11.0, 12.0], [8.0, 11.0, 12.0]), NEAREST_0),
    ("-inf", "nearest"): (ZEROS, NEAREST_0, NEAREST_0),
}
CASES = [(v, mode, pad, ac, EXPECTED[v, mode][p][ac] if mode != "bicubic" else NANS[ac])
         for v in ("nan", "inf", "-inf") for mode in ("bilinear", "nearest", "bicubic")
         for p, pad in enumerate(("zeros", "border", "reflection")) for ac in (False, True)]


def _grid(lib, v):
    return lib.tensor([[[[v, 0.2], [0.1, v], [v, v]]]])


@pytest.mark.parametrize("v, mode, padding_mode, align_corners, expected", CASES)
def test_nonfinite_grid_coordinates(v, mode, padding_mode, align_corners, expected):
    x = gg.arange(12.0).reshape(1, 1, 3, 4) + 1
    out = F.grid_sample(x, _grid(gg, float(v)), mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    np.testing.assert_allclose(out.flatten().numpy(), expected, rtol=1e-5)


def test_nonfinite_nearest_grid_keeps_a_zero_gradient():
    x = gg.ones(1, 1, 3, 4, requires_grad=True)
    grid = _grid(gg, math.inf).requires_grad_(True)
    F.grid_sample(x, grid, mode="nearest", align_corners=False).sum().backward()
    assert grid.grad.tolist() == [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]]


@pytest.mark.parametrize("v", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_matches_pytorch(v, mode, padding_mode):
    torch = pytest.importorskip("torch")
    for ac in (False, True):
        args = dict(mode=mode, padding_mode=padding_mode, align_corners=ac)
        want = torch.nn.functional.grid_sample(torch.arange(12.0).reshape(1, 1, 3, 4) + 1, _grid(torch, v), **args)
        got = F.grid_sample(gg.arange(12.0).reshape(1, 1, 3, 4) + 1, _grid(gg, v), **args)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "area"])
def test_antialias_outside_bilinear_and_bicubic_is_a_value_error(mode):
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, bicubic, and lanczos modes"):
        F.interpolate(gg.ones(1, 1, 4, 4), scale_factor=2, mode=mode, antialias=True)
