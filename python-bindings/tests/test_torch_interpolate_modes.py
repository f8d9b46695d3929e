"""F.interpolate / nn.Upsample against PyTorch on random shapes: 1, 2 and 3 spatial dims, every
mode (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area), align_corners, size or
scale_factor (one or one per axis) with recompute_scale_factor, and antialias; values and input
gradients in float64. NumPy references (area's block means, trilinear's exactness on affine data)
and finite-difference gradients for the modes added with the generalised resampling. Skipped
when torch is not importable (CI never installs it; tools/torch_differential.sh runs it)."""
import itertools

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")

MODES = {1: ("nearest", "nearest-exact", "linear", "area"),
         2: ("nearest", "nearest-exact", "bilinear", "bicubic", "area"),
         3: ("nearest", "nearest-exact", "trilinear", "area")}
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def _cases(seed, count):
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        k = int(rng.integers(1, 4))
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) + tuple(int(v) for v in rng.integers(1, 7, k))
        mode = str(rng.choice(MODES[k]))
        ac = bool(rng.integers(2)) if mode in INTERPOLATING and rng.integers(2) else None
        if rng.integers(2):
            size = tuple(int(v) for v in rng.integers(1, 10, k))
            kw = dict(size=size if rng.integers(2) else size[0])
        else:
            scale = tuple(float(v) for v in rng.choice([0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0], k))
            kw = dict(scale_factor=scale if rng.integers(2) else scale[0],
                      recompute_scale_factor=[None, False, True][int(rng.integers(3))])
        cases.append((shape, dict(kw, mode=mode, align_corners=ac), int(rng.integers(1 << 30))))
    return cases


@pytest.mark.parametrize("shape,kw,seed", _cases(0, 240))
def test_interpolate_matches_torch(shape, kw, seed):
    x = np.random.default_rng(seed).standard_normal(shape)
    compare(F.interpolate, torch.nn.functional.interpolate, [x], (0,), kw)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_antialias_matches_torch(mode, align_corners):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 2, 9, 11))
    # output widths >= 2: torch 2.13's CPU anti-aliasing gives every row one value when the
    # output width is 1 (a constant column), which no separable filter does
    for size in [(3, 4), (4, 2), (9, 11), (12, 5), (2, 20), (5, 3)]:
        compare(F.interpolate, torch.nn.functional.interpolate, [x], (0,),
                dict(size=size, mode=mode, align_corners=align_corners, antialias=True))
    compare(F.interpolate, torch.nn.functional.interpolate, [x], (0,),
            dict(scale_factor=0.3, mode=mode, align_corners=align_corners, antialias=True))


@pytest.mark.parametrize("kw", [dict(scale_factor=2, mode="bicubic"), dict(size=(3, 4, 5), mode="trilinear"),
                                dict(scale_factor=(0.5, 2.0, 1.5), mode="nearest"), dict(size=4, mode="area"),
                                dict(scale_factor=1.5, mode="trilinear", align_corners=True)])
def test_upsample_layers_match_torch(kw):
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 4, 5) if "trilinear" in kw.values()
                                                 or isinstance(kw.get("scale_factor"), tuple) else (1, 2, 3, 4))
    compare(nn.Upsample(**kw), torch.nn.Upsample(**kw), [x], (0,))
    x4 = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    for sf in (2, 1.5):
        compare(nn.UpsamplingNearest2d(scale_factor=sf), torch.nn.UpsamplingNearest2d(scale_factor=sf), [x4], (0,))
        compare(nn.UpsamplingBilinear2d(scale_factor=sf), torch.nn.UpsamplingBilinear2d(scale_factor=sf), [x4], (0,))
    with pytest.warns(UserWarning, match="deprecated"):
        compare(F.upsample_bilinear, torch.nn.functional.upsample_bilinear, [x4], (0,), dict(size=(3, 7)))


@pytest.mark.parametrize("kw", [dict(size=(2, 3), mode="nearest", antialias=True),
                                dict(size=(2, 3), mode="bicubic", align_corners=None, scale_factor=2),
                                dict(size=(2, 3, 4), mode="bilinear"), dict(size=(2, 3), mode="trilinear"),
                                dict(scale_factor=(2, 2, 2), mode="nearest")])
def test_interpolate_refuses_what_torch_refuses(kw):
    x = np.zeros((1, 1, 4, 4))
    assert compare(F.interpolate, torch.nn.functional.interpolate, [x], (), kw) is not None


def test_area_is_the_block_mean_and_trilinear_is_exact_on_affine_data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 8, 4))
    y = F.interpolate(gg.tensor(x), size=(3, 4, 2), mode="area").numpy()
    np.testing.assert_allclose(y, x.reshape(2, 3, 3, 2, 4, 2, 2, 2).mean(axis=(3, 5, 7)), rtol=1e-12, atol=1e-13)
    # trilinear interpolation reproduces an affine function of the coordinates exactly
    d, h, w = np.meshgrid(np.arange(4.0), np.arange(5.0), np.arange(3.0), indexing="ij")
    f = (0.5 + 2 * d - h + 3 * w)[None, None]
    out = F.interpolate(gg.tensor(f), size=(7, 9, 5), mode="trilinear", align_corners=True).numpy()
    dd, hh, ww = np.meshgrid(np.linspace(0, 3, 7), np.linspace(0, 4, 9), np.linspace(0, 2, 5), indexing="ij")
    np.testing.assert_allclose(out[0, 0], 0.5 + 2 * dd - hh + 3 * ww, rtol=1e-12, atol=1e-12)


def test_bicubic_matches_keys_convolution_in_numpy():
    # upsample_bicubic2d: four taps at floor(src) - 1 .. + 2 (clamped), weights of Keys' kernel, A = -0.75
    def keys(t, a=-0.75):
        t = abs(t)
        return ((a + 2) * t - (a + 3)) * t * t + 1 if t <= 1 else ((a * t - 5 * a) * t + 8 * a) * t - 4 * a

    x = np.random.default_rng(4).standard_normal(6)
    out_len = 10
    ref = np.zeros(out_len)
    for i in range(out_len):
        src = (i + 0.5) * 6 / out_len - 0.5
        i0 = int(np.floor(src))
        for k in range(-1, 3):
            ref[i] += keys(src - (i0 + k)) * x[min(max(i0 + k, 0), 5)]
    got = F.interpolate(gg.tensor(x.reshape(1, 1, 1, 6)), size=(1, out_len), mode="bicubic").numpy().ravel()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("kw", [dict(size=(3, 5), mode="bicubic"), dict(size=(2, 3, 3), mode="trilinear"),
                                dict(size=(3, 2), mode="area"), dict(size=(2, 3), mode="bilinear", antialias=True),
                                dict(scale_factor=(1.5, 0.5, 2), mode="nearest-exact")])
def test_gradients_match_finite_differences(kw):
    ndim = len(kw["size"]) if "size" in kw else len(kw["scale_factor"])
    x = np.random.default_rng(6).standard_normal((1, 2) + (4,) * ndim)
    w = np.random.default_rng(7).standard_normal(tuple(F.interpolate(gg.tensor(x), **kw).shape))
    assert gg.debug.gradcheck(lambda t: (F.interpolate(t, **kw) * gg.tensor(w)).sum(), [x])


def test_every_mode_and_rank_pair_torch_takes_is_taken():
    for k, modes in MODES.items():
        for mode, ac in itertools.product(modes, (None, True)):
            if ac and mode not in INTERPOLATING:
                continue
            x = np.random.default_rng(8).standard_normal((1, 1) + (3,) * k)
            compare(F.interpolate, torch.nn.functional.interpolate, [x], (0,), dict(scale_factor=2, mode=mode,
                                                                                     align_corners=ac))
