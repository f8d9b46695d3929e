"""transforms.functional.perspective and transforms.RandomPerspective: torchvision's coefficients
(endpoints mapped back to startpoints, solved in float64, rounded to float32), its tensor path
(the map applied to output pixel centres, grid_sample with zeros outside, a fill blended in) and
PIL path (Image.transform PERSPECTIVE), its argument checks, get_params ranges and repr. The
reference is a NumPy sampler written from torchvision's formulas."""
import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.vision import transforms as T
from glassgrad.vision.transforms import functional as TF
from glassgrad.vision.transforms._perspective import _coefficients

SP = [[0, 0], [7, 0], [7, 5], [0, 5]]
EP = [[1, 1], [6, 0], [7, 4], [0, 5]]


def _reference(img: np.ndarray, coeffs, mode: str) -> np.ndarray:
    """(C, H, W) float64: output pixel (i, j) reads the input at the map of its centre, minus 0.5."""
    c, h, w = img.shape
    a, b, cc, d, e, f, g, k = coeffs
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            x, y = j + 0.5, i + 0.5
            den = g * x + k * y + 1
            px, py = (a * x + b * y + cc) / den - 0.5, (d * x + e * y + f) / den - 0.5

            def read(yy, xx):
                return img[:, yy, xx] if 0 <= xx < w and 0 <= yy < h else np.zeros(c)
            if mode == "nearest":
                out[:, i, j] = read(int(np.rint(py)), int(np.rint(px)))
            else:
                x0, y0 = int(np.floor(px)), int(np.floor(py))
                fx, fy = px - x0, py - y0
                out[:, i, j] = (read(y0, x0) * (1 - fx) * (1 - fy) + read(y0, x0 + 1) * fx * (1 - fy)
                                + read(y0 + 1, x0) * (1 - fx) * fy + read(y0 + 1, x0 + 1) * fx * fy)
    return out


def test_coefficients_send_endpoints_back_to_startpoints():
    a, b, c, d, e, f, g, k = _coefficients(SP, EP)
    for (x, y), (sx, sy) in zip(EP, SP):
        den = g * x + k * y + 1
        assert abs((a * x + b * y + c) / den - sx) < 1e-5 and abs((d * x + e * y + f) / den - sy) < 1e-5
    assert all(np.float32(v) == v for v in (a, b, c, d, e, f, g, k))  # rounded to float32, as torchvision


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_tensor_perspective_matches_the_numpy_reference(mode):
    img = np.random.default_rng(0).uniform(0, 1, (3, 6, 8))
    out = TF.perspective(gg.tensor(img), SP, EP, interpolation=T.InterpolationMode(mode)).numpy()
    ref = _reference(img, _coefficients(SP, EP), mode)
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


def test_a_shift_moves_pixels_and_fills_what_comes_in():
    img = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5)
    sp = [[0, 0], [4, 0], [4, 3], [0, 3]]
    ep = [[x + 1, y] for x, y in sp]
    out = TF.perspective(gg.tensor(img), sp, ep, fill=[7.0, 9.0]).numpy()
    np.testing.assert_allclose(out[:, :, 1:], img[:, :, :-1], atol=1e-5)
    np.testing.assert_allclose(out[:, :, 0], [[7.0] * 4, [9.0] * 4], atol=1e-5)
    pil = Image.fromarray(np.arange(4 * 5, dtype=np.uint8).reshape(4, 5) * 10)
    moved = np.asarray(TF.perspective(pil, sp, ep, interpolation=T.InterpolationMode.NEAREST, fill=255))
    np.testing.assert_array_equal(moved[:, 1:], np.asarray(pil)[:, :-1])
    assert (moved[:, 0] == 255).all()
    u8 = TF.perspective(gg.tensor(img.astype(np.uint8)), sp, ep)  # integer images stay integer
    assert u8.dtype == gg.uint8


def test_perspective_checks_its_corners():
    with pytest.raises(ValueError, match="exactly four corners, got 3 startpoints and 4 endpoints"):
        TF.perspective(gg.zeros(1, 4, 4), SP[:3], EP)


def test_random_perspective_draws_torchvision_ranges():
    gg.manual_seed(0)
    for _ in range(50):
        start, end = T.RandomPerspective.get_params(40, 30, 0.5)
        assert start == [[0, 0], [39, 0], [39, 29], [0, 29]]
        (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = end
        assert 0 <= tlx <= 10 and 0 <= tly <= 7 and 29 <= trx <= 39 and 0 <= try_ <= 7
        assert 29 <= brx <= 39 and 22 <= bry <= 29 and 0 <= blx <= 10 and 22 <= bly <= 29
    img = gg.tensor(np.random.default_rng(1).uniform(0, 1, (3, 30, 40)).astype(np.float32))
    assert T.RandomPerspective(p=0.0)(img) is img
    gg.manual_seed(3)
    a = T.RandomPerspective(distortion_scale=0.6, p=1.0, fill=0.5)(img)
    gg.manual_seed(3)
    b = T.RandomPerspective(distortion_scale=0.6, p=1.0, fill=0.5)(img)
    assert tuple(a.shape) == (3, 30, 40) and np.array_equal(a.numpy(), b.numpy())
    pil = T.RandomPerspective(p=1.0)(Image.new("RGB", (40, 30), (10, 20, 30)))
    assert isinstance(pil, Image.Image) and pil.size == (40, 30)
    assert repr(T.RandomPerspective(0.3, p=0.7)) == "RandomPerspective(p=0.7)"
    with pytest.raises(TypeError, match="Fill should be either a sequence or a number"):
        T.RandomPerspective(fill={"r": 1})
