"""F.affine_grid and F.grid_sample against PyTorch (values, gradients of the input, the grid and
theta for every mode, padding mode and align_corners, 4-D and 5-D, 2-D and 3-D affine grids; the
default's warning; errors), NumPy references of bilinear and bicubic sampling, and float64
finite-difference gradient checks. Skipped when
torch is not importable."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.debug import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _data(seed, n=2, c=3, h=5, w=4, ho=3, wo=6, spread=1.3):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w))
    # coordinates past [-1, 1] so the padding modes matter; away from pixel centres so the
    # bilinear weights' kinks do not meet a finite difference
    grid = rng.uniform(-spread, spread, (n, ho, wo, 2))
    return x, grid


def _compare_sampling(x, grid, **kw):
    a, ga = gg.tensor(x, requires_grad=True), gg.tensor(grid, requires_grad=True)
    b, gb = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    ya, yb = F.grid_sample(a, ga, **kw), TF.grid_sample(b, gb, **kw)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(yb.shape)
    (ya * gg.tensor(w)).sum().backward()
    (yb * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ga.grad.numpy(), gb.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_matches_torch(mode, padding_mode, align_corners):
    x, grid = _data(0)
    _compare_sampling(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_bicubic_grid_sample_matches_torch(padding_mode, align_corners):
    x, grid = _data(7)
    _compare_sampling(x, grid, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_volumetric_grid_sample_matches_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(8)
    x, grid = rng.standard_normal((2, 2, 3, 4, 5)), rng.uniform(-1.3, 1.3, (2, 2, 3, 4, 3))
    _compare_sampling(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


def _cubic_weights(t):
    a = -0.75
    return [a * (t + 1) ** 3 - 5 * a * (t + 1) ** 2 + 8 * a * (t + 1) - 4 * a,
            (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1,
            (a + 2) * (1 - t) ** 3 - (a + 3) * (1 - t) ** 2 + 1,
            a * (2 - t) ** 3 - 5 * a * (2 - t) ** 2 + 8 * a * (2 - t) - 4 * a]


def test_bicubic_and_volumetric_sampling_match_numpy_and_finite_differences():
    x, grid = _data(9, n=1, c=2, h=5, w=4, ho=2, wo=3, spread=0.8)
    got = F.grid_sample(gg.tensor(x), gg.tensor(grid), mode="bicubic", align_corners=False).numpy()
    ref = np.zeros_like(got)
    for i in range(2):
        for j in range(3):
            px, py = ((grid[0, i, j, 0] + 1) * 4 - 1) / 2, ((grid[0, i, j, 1] + 1) * 5 - 1) / 2
            x0, y0 = int(np.floor(px)), int(np.floor(py))
            wx, wy = _cubic_weights(px - x0), _cubic_weights(py - y0)
            for a in range(4):
                for b in range(4):
                    xx, yy = x0 - 1 + a, y0 - 1 + b
                    if 0 <= xx < 4 and 0 <= yy < 5:
                        ref[0, :, i, j] += x[0, :, yy, xx] * wx[a] * wy[b]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, mode="bicubic", padding_mode="border", align_corners=True),
                     [x, grid])
    rng = np.random.default_rng(10)
    v, vgrid = rng.standard_normal((1, 2, 3, 3, 2)), rng.uniform(-0.9, 0.9, (1, 2, 1, 2, 3))
    assert gradcheck(lambda a, g: F.grid_sample(a, g, padding_mode="reflection", align_corners=False), [v, vgrid])


def _bilinear_zeros_reference(x, grid):
    """Bilinear sampling, zeros padding, align_corners=False, written out pixel by pixel."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                px = ((grid[b, i, j, 0] + 1) * w - 1) / 2
                py = ((grid[b, i, j, 1] + 1) * h - 1) / 2
                x0, y0 = int(np.floor(px)), int(np.floor(py))
                for xx, yy in ((x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)):
                    if 0 <= xx < w and 0 <= yy < h:
                        out[b, :, i, j] += x[b, :, yy, xx] * (1 - abs(px - xx)) * (1 - abs(py - yy))
    return out


def test_grid_sample_matches_a_numpy_reference():
    x, grid = _data(2)
    got = F.grid_sample(gg.tensor(x), gg.tensor(grid), align_corners=False).numpy()
    np.testing.assert_allclose(got, _bilinear_zeros_reference(x, grid), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_gradients_pass_a_float64_finite_difference_check(padding_mode, align_corners):
    x, grid = _data(3, n=1, c=2, h=4, w=3, ho=2, wo=3, spread=0.9)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, padding_mode=padding_mode, align_corners=align_corners),
                     [x, grid])


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 5, 4), (2, 1, 1, 6), (2, 3, 4, 5, 6), (2, 1, 1, 3, 2)])
def test_affine_grid_matches_torch_and_passes_a_gradient_check(size, align_corners):
    k = len(size) - 2  # 2-D maps (N, 2, 3) or 3-D maps (N, 3, 4)
    theta = np.random.default_rng(4).standard_normal((2, k, k + 1))
    ta, tb = gg.tensor(theta, requires_grad=True), torch.tensor(theta, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners=True warn in both
        ga, gb = F.affine_grid(ta, size, align_corners=align_corners), TF.affine_grid(tb, size, align_corners=align_corners)
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = np.random.default_rng(5).standard_normal(gb.shape)
    (ga * gg.tensor(w)).sum().backward()
    (gb * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ta.grad.numpy(), tb.grad.numpy(), rtol=1e-10, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda t: F.affine_grid(t, size, align_corners=align_corners), [theta])


def test_the_spatial_transformer_step_matches_torch():
    """The tutorial's stn(): grid = affine_grid(theta, x.size()); grid_sample(x, grid), both
    with the default align_corners (which warns), float32."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 1, 28, 28)).astype(np.float32)
    theta = (np.array([[1, 0, 0], [0, 1, 0]]) + 0.2 * rng.standard_normal((2, 2, 3))).astype(np.float32)
    ta, tb = gg.tensor(theta, requires_grad=True), torch.tensor(theta, requires_grad=True)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        ya = F.grid_sample(gg.tensor(x), F.affine_grid(ta, gg.tensor(x).size()))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        yb = TF.grid_sample(torch.tensor(x), TF.affine_grid(tb, torch.tensor(x).size()))
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-4, atol=1e-5)
    ya.square().sum().backward()
    yb.square().sum().backward()
    np.testing.assert_allclose(ta.grad.numpy(), tb.grad.numpy(), rtol=1e-3, atol=1e-3)


def test_errors_name_the_argument_and_a_fix():
    x, grid = gg.zeros(1, 1, 2, 2), gg.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(x, grid, mode="linear", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(x, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(gg.zeros(1, 1, 2, 2, 2), gg.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(gg.ShapeError, match="5-D input"):
        F.grid_sample(gg.zeros(1, 1, 2, 2, 2), grid, align_corners=False)
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(gg.zeros(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False)
    with pytest.raises(gg.ShapeError, match="same batch size"):
        F.grid_sample(gg.zeros(2, 1, 2, 2), grid, align_corners=False)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(gg.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(gg.zeros(1, 2, 3, dtype=gg.int64), (1, 1, 2, 2), align_corners=False)
