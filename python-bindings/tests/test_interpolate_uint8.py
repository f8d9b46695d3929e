"""F.interpolate of uint8 input as PyTorch's CPU kernels compute it: nearest modes gathered, bilinear
and bicubic (with or without antialias) in Pillow's integer arithmetic, W pass first, rounded and
clamped per pass; other integer dtypes and uint8 'area' refused with NotImplementedError. The
expected values are PyTorch's outputs for these inputs."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

IMAGE = [[[[0, 255, 10, 200], [30, 60, 90, 120], [255, 0, 255, 0]]]]
EXPECTED = [
    (dict(size=(5, 7), mode="bilinear"),
     [[0, 91, 237, 133, 24, 132, 200], [12, 71, 165, 110, 51, 123, 168], [30, 41, 58, 75, 92, 109, 120],
      [165, 115, 34, 107, 179, 98, 48], [255, 164, 18, 128, 237, 91, 0]]),
    (dict(size=(2, 3), mode="bilinear", antialias=True), [[62, 111, 131], [127, 108, 89]]),
    (dict(size=(5, 7), mode="bicubic"),
     [[0, 108, 255, 145, 2, 121, 228], [0, 69, 180, 110, 31, 118, 191], [27, 38, 57, 75, 93, 112, 123],
      [168, 103, 10, 103, 196, 106, 41], [255, 163, 0, 133, 255, 102, 0]]),
    (dict(size=(2, 2), mode="bicubic", antialias=True), [[85, 118], [110, 104]]),
    (dict(size=(4, 6), mode="bilinear", align_corners=True),
     [[0, 153, 206, 59, 86, 200], [20, 83, 113, 76, 97, 147], [105, 66, 61, 124, 119, 80],
      [255, 102, 51, 204, 153, 0]]),
    (dict(size=(3, 6), mode="bicubic", align_corners=True),
     [[0, 183, 232, 41, 57, 200], [30, 45, 67, 83, 105, 120], [255, 71, 27, 228, 184, 0]]),
    (dict(size=(5, 3), mode="nearest"),
     [[0, 255, 10], [0, 255, 10], [30, 60, 90], [30, 60, 90], [255, 0, 255]]),
    (dict(size=(5, 3), mode="nearest-exact"),
     [[0, 10, 200], [0, 10, 200], [30, 90, 120], [255, 255, 0], [255, 255, 0]]),
]


@pytest.mark.parametrize("kwargs,expected", EXPECTED, ids=[str(k) for k, _ in EXPECTED])
def test_uint8_resampling_as_pytorch(kwargs, expected):
    y = F.interpolate(gg.tensor(IMAGE, dtype=gg.uint8), **kwargs)
    assert y.dtype == gg.uint8 and y.tolist() == [[expected]]


def test_uint8_nearest_1d_and_same_size_copy():
    x = gg.tensor([[[3, 250, 7, 100, 0]]], dtype=gg.uint8)
    assert F.interpolate(x, size=8, mode="nearest").tolist() == [[[3, 3, 250, 250, 7, 100, 100, 0]]]
    image = gg.tensor(IMAGE, dtype=gg.uint8)
    same = F.interpolate(image, size=(3, 4), mode="bilinear", antialias=True)
    assert same.tolist() == IMAGE and same.data_ptr() != image.data_ptr()


def test_uint8_saturates_instead_of_wrapping():
    # bicubic overshoots past 255 and below 0 at sharp edges: clamped, never wrapped
    x = gg.tensor([[[[0, 0, 255, 255, 0, 0]]]], dtype=gg.uint8)
    y = F.interpolate(x, size=(1, 12), mode="bicubic").numpy().astype(int)
    assert y.min() == 0 and y.max() == 255


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "bool"])
def test_other_integer_dtypes_are_refused(dtype):
    x = gg.zeros(1, 1, 4, 4).to(getattr(gg, dtype))
    for mode in ("nearest", "bilinear"):
        with pytest.raises(NotImplementedError, match="interpolate"):
            F.interpolate(x, scale_factor=1.5, mode=mode)


def test_uint8_area_is_refused():
    with pytest.raises(NotImplementedError, match="area"):
        F.interpolate(gg.zeros(1, 1, 4, 4, dtype=gg.uint8), size=(2, 2), mode="area")


def test_uint8_against_torch_random():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(60):
        c = int(rng.choice([1, 3, 5]))   # PyTorch's AVX kernel takes C <= 4, its generic one the rest
        h, w = (int(v) for v in rng.integers(1, 24, 2))
        a = rng.integers(0, 256, (2, c, h, w)).astype(np.uint8)
        mode = str(rng.choice(["bilinear", "bicubic", "nearest", "nearest-exact"]))
        kw = dict(size=tuple(int(v) for v in rng.integers(1, 40, 2)), mode=mode)
        if mode in ("bilinear", "bicubic"):
            kw.update(antialias=bool(rng.random() < 0.5), align_corners=bool(rng.random() < 0.3))
        expected = torch.nn.functional.interpolate(torch.tensor(a), **kw).numpy()
        got = F.interpolate(gg.tensor(a), **kw).numpy()
        np.testing.assert_array_equal(got, expected, err_msg=str((c, h, w, kw)))


def test_nearest_indices_round_as_pytorch_float_kernels():
    # 41 * float32(2 / 82) is 0.99999994: PyTorch reads input 0 there, not the integer factor's 1
    x = gg.arange(2.0).reshape(1, 1, 2)
    assert F.interpolate(x, size=82, mode="nearest")[0, 0, 40:43].tolist() == [0.0, 0.0, 1.0]
    # float32(2 / 55) * 27.5 - 0.5 fused rounds to 0.49999997, so floorf(src + 0.5) is 1
    assert F.interpolate(x, size=55, mode="nearest-exact")[0, 0, 26:29].tolist() == [0.0, 1.0, 1.0]
    for dtype in (gg.float32, gg.float64, gg.uint8):
        row = gg.arange(18).to(dtype)
        assert F.interpolate(row.reshape(1, 1, 18), size=33, mode="nearest-exact")[0, 0, 26:29].tolist() == [14, 15, 15]
        assert F.interpolate(row.reshape(1, 1, 1, 18), size=(1, 33), mode="nearest-exact")[0, 0, 0, 26:29].tolist() == [
            14, 15, 15]
