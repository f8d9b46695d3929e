"""glassgrad.vision.transforms and utils against torchvision's documented behaviour: every
transform on PIL images, NumPy arrays (H, W[, C]) and glassgrad Tensors (C, H, W), checked
against PIL, NumPy or torch computations of the same thing."""
import io
import warnings

import numpy as np
import pytest
from PIL import Image, ImageEnhance

import glassgrad as gg
from glassgrad.vision import transforms as T
from glassgrad.vision import utils as vutils
from glassgrad.vision.transforms import functional as F


@pytest.fixture
def rgb():
    return np.random.default_rng(0).integers(0, 256, (13, 17, 3), dtype=np.uint8)


def _kinds(hwc):
    """The same image as PIL, NumPy (H, W, C) and a uint8 tensor (C, H, W)."""
    return Image.fromarray(hwc), hwc, gg.tensor(np.ascontiguousarray(hwc.transpose(2, 0, 1)), device="cpu")


def _hwc(img):
    if isinstance(img, Image.Image):
        return np.asarray(img)
    if isinstance(img, np.ndarray):
        return img
    return img.numpy().transpose(1, 2, 0)


# ---- conversions ---------------------------------------------------------------------------
def test_to_tensor_scales_uint8_and_keeps_other_dtypes(rgb):
    for img in (Image.fromarray(rgb), rgb):
        t = T.ToTensor()(img)
        assert isinstance(t, gg.Tensor) and t.dtype == "float32" and t.shape == (3, 13, 17)
        # torchvision's img.float().div(255), bit for bit
        np.testing.assert_array_equal(t.numpy(), rgb.transpose(2, 0, 1).astype(np.float32) / np.float32(255))
    gray = T.ToTensor()(Image.fromarray(rgb[:, :, 0]))
    assert gray.shape == (1, 13, 17)
    f = np.random.default_rng(1).random((4, 5)).astype(np.float64)
    np.testing.assert_array_equal(T.ToTensor()(f).numpy()[0], f)  # float arrays are not rescaled
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        T.ToTensor()([1, 2])
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional"):
        T.ToTensor()(np.zeros((1, 2, 3, 4), np.uint8))


def test_pil_to_tensor_is_unscaled_uint8(rgb):
    t = T.PILToTensor()(Image.fromarray(rgb))
    assert t.dtype == "uint8" and t.shape == (3, 13, 17)
    np.testing.assert_array_equal(t.numpy(), rgb.transpose(2, 0, 1))
    with pytest.raises(TypeError, match="pic should be PIL Image"):
        T.PILToTensor()(rgb)


def test_to_pil_image_round_trips_and_scales_floats(rgb):
    pil = T.ToPILImage()(gg.tensor(np.ascontiguousarray(rgb.transpose(2, 0, 1)), device="cpu"))
    assert pil.mode == "RGB" and np.array_equal(np.asarray(pil), rgb)
    f = gg.tensor(np.full((1, 2, 2), 0.5, np.float32), device="cpu")
    assert np.asarray(T.ToPILImage()(f)).tolist() == [[127, 127], [127, 127]]
    assert T.ToPILImage(mode="F")(f).mode == "F"



def test_to_pil_image_of_float_arrays_and_int16_images():
    """A float HWC array is scaled by 255 and cast to uint8 as a float tensor is (torchvision's
    (npimg * 255).astype(np.uint8)); a one-channel int16 image is an 'I;16' image of the same bits."""
    hwc = np.array([[[0.0, 0.5, 1.0], [0.25, 0.999, 0.004]]], np.float32)
    pil = T.ToPILImage()(hwc)
    assert pil.mode == "RGB" and pil.size == (2, 1)
    assert np.asarray(pil).tolist() == [[[0, 127, 255], [63, 254, 1]]]
    gray = F.to_pil_image(np.array([[0.5, 1.0]], np.float32))
    assert gray.mode == "L" and np.asarray(gray).tolist() == [[127, 255]]
    assert F.to_pil_image(np.array([[0.5, 1.0]], np.float32), mode="F").mode == "F"
    i16 = gg.tensor(np.array([[[1, -2, 300]]], np.int16), device="cpu")
    pil16 = T.ToPILImage()(i16)
    assert pil16.mode == "I;16" and np.asarray(pil16).tolist() == [[1, 65534, 300]]
    assert F.to_pil_image(np.array([[7, 8]], np.int16)).mode == "I;16"
    with pytest.raises(ValueError, match="Incorrect mode"):
        F.to_pil_image(np.array([[7, 8]], np.int16), mode="L")


def test_to_pil_image_of_arrays_and_int16_matches_torchvision(torch):
    tvf = pytest.importorskip("torchvision.transforms.functional")
    rng = np.random.default_rng(7)
    for pic in [rng.random((3, 5, 3)).astype(np.float32), rng.random((3, 5)).astype(np.float64),
                rng.random((3, 5, 4)).astype(np.float32)]:
        ref, out = tvf.to_pil_image(pic), F.to_pil_image(pic)
        assert out.mode == ref.mode and np.array_equal(np.asarray(out), np.asarray(ref))
    x = rng.integers(-300, 300, (1, 3, 5)).astype(np.int16)
    ref, out = tvf.to_pil_image(torch.from_numpy(x)), F.to_pil_image(gg.tensor(x, device="cpu"))
    assert out.mode == ref.mode and np.array_equal(np.asarray(out), np.asarray(ref))

# ---- normalize -----------------------------------------------------------------------------
def test_normalize_per_channel_and_errors():
    x = np.random.default_rng(2).random((3, 4, 5)).astype(np.float32)
    out = T.Normalize((0.1, 0.2, 0.3), (0.5, 0.25, 2.0))(gg.tensor(x, device="cpu"))
    ref = (x - np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]) / np.array([0.5, 0.25, 2.0], np.float32)[:, None, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        T.Normalize((0,), (0,))(gg.tensor(x, device="cpu"))
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        T.Normalize((0,), (1,))(Image.fromarray(np.zeros((2, 2), np.uint8)))
    with pytest.raises(TypeError, match="float tensor"):
        T.Normalize((0,), (1,))(gg.tensor(np.zeros((1, 2, 2), np.uint8), device="cpu"))



def test_normalize_inplace_writes_into_the_given_tensor():
    """inplace=True subtracts and divides in the input tensor and returns it (torchvision's
    tensor.sub_(mean).div_(std)); the default leaves the input as it was."""
    x = np.random.default_rng(5).random((3, 4, 5)).astype(np.float32)
    ref = (x - np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]) / np.array([0.5, 0.25, 2.0], np.float32)[:, None, None]
    img = gg.tensor(x, device="cpu")
    out = T.Normalize((0.1, 0.2, 0.3), (0.5, 0.25, 2.0), inplace=True)(img)
    assert out is img
    np.testing.assert_allclose(img.numpy(), ref, rtol=1e-6)
    kept = gg.tensor(x, device="cpu")
    T.Normalize((0.1, 0.2, 0.3), (0.5, 0.25, 2.0))(kept)
    np.testing.assert_array_equal(kept.numpy(), x)
    batch = gg.tensor(np.stack([x, x]), device="cpu")
    F.normalize(batch, [0.1, 0.2, 0.3], [0.5, 0.25, 2.0], inplace=True)
    np.testing.assert_allclose(batch.numpy(), np.stack([ref, ref]), rtol=1e-6)
    with pytest.raises(TypeError, match="float tensor"):
        T.Normalize((0,), (1,), inplace=True)(gg.tensor(np.zeros((1, 2, 2), np.uint8), device="cpu"))


def test_normalize_inplace_matches_torchvision(torch):
    tv = pytest.importorskip("torchvision.transforms")
    x = np.random.default_rng(6).random((2, 3, 4, 4)).astype(np.float32)
    mean, std = [0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]
    ref = torch.from_numpy(x.copy())
    tv.Normalize(mean, std, inplace=True)(ref)
    img = gg.tensor(x, device="cpu")
    T.Normalize(mean, std, inplace=True)(img)
    np.testing.assert_allclose(img.numpy(), ref.numpy(), rtol=1e-6)

def test_normalize_matches_torch(torch):
    x = np.random.default_rng(3).random((2, 3, 4, 4)).astype(np.float32)
    mean, std = [0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]
    ref = ((torch.from_numpy(x) - torch.tensor(mean).view(-1, 1, 1)) / torch.tensor(std).view(-1, 1, 1)).numpy()
    np.testing.assert_allclose(F.normalize(gg.tensor(x, device="cpu"), mean, std).numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("shape, channels", [((1, 4, 5), 3), ((2, 4, 5), 3), ((2, 1, 4, 5), 3), ((3, 4, 5), 1),
                                            ((2, 3, 4, 5), 3)])
@pytest.mark.parametrize("grad", [False, True])
def test_normalize_channels_must_broadcast_to_the_image_as_torchvision(torch, shape, channels, grad):
    """torchvision normalizes a clone in place: means and stds that would enlarge the image (three on
    an MNIST image) raise RuntimeError, for a tensor that requires grad too; fewer broadcast."""
    tv = pytest.importorskip("torchvision.transforms")
    x = np.random.default_rng(4).random(shape).astype(np.float32)
    mean, std = [0.5, 0.4, 0.3][:channels], [0.5, 0.25, 2.0][:channels]
    try:
        ref = tv.Normalize(mean, std)(torch.from_numpy(x).requires_grad_(grad)).detach().numpy()
    except RuntimeError:
        ref = None
    img = gg.tensor(x, device="cpu", requires_grad=grad)
    if ref is None:
        with pytest.raises(RuntimeError, match="Normalize: mean has 3 and std 3 values"):
            T.Normalize(mean, std)(img)
    else:
        np.testing.assert_allclose(T.Normalize(mean, std)(img).detach().numpy(), ref, rtol=1e-6)


# ---- geometry: the same pixels for every kind of image ----------------------------------------
@pytest.mark.parametrize("op, ref", [
    (lambda im: F.crop(im, 2, 3, 5, 6), lambda a: a[2:7, 3:9]),
    (lambda im: F.crop(im, -2, 14, 5, 6), lambda a: np.pad(a, ((2, 0), (0, 3), (0, 0)))[0:5, 14:20]),
    (lambda im: F.center_crop(im, (5, 8)), lambda a: a[4:9, 4:12]),
    (lambda im: F.center_crop(im, 20), lambda a: np.pad(a, ((3, 4), (1, 2), (0, 0)))),
    (lambda im: F.hflip(im), lambda a: a[:, ::-1]),
    (lambda im: F.vflip(im), lambda a: a[::-1]),
    (lambda im: F.pad(im, 2), lambda a: np.pad(a, ((2, 2), (2, 2), (0, 0)))),
    (lambda im: F.pad(im, (1, 3)), lambda a: np.pad(a, ((3, 3), (1, 1), (0, 0)))),
    (lambda im: F.pad(im, (1, 2, 3, 4), fill=7), lambda a: np.pad(a, ((2, 4), (1, 3), (0, 0)), constant_values=7)),
    (lambda im: F.pad(im, 2, padding_mode="reflect"), lambda a: np.pad(a, ((2, 2), (2, 2), (0, 0)), "reflect")),
    (lambda im: F.pad(im, 2, padding_mode="edge"), lambda a: np.pad(a, ((2, 2), (2, 2), (0, 0)), "edge")),
    (lambda im: F.pad(im, 3, padding_mode="symmetric"), lambda a: np.pad(a, ((3, 3), (3, 3), (0, 0)), "symmetric")),
])
def test_geometry_is_the_same_for_pil_numpy_and_tensors(rgb, op, ref):
    want = ref(rgb)
    for img in _kinds(rgb):
        out = op(img)
        assert type(out) is type(img) or (isinstance(img, gg.Tensor) and isinstance(out, gg.Tensor))
        np.testing.assert_array_equal(_hwc(out), want)


def test_random_crop_with_padding_draws_like_pad_then_crop(rgb):
    for padding in (4, (2, 5), (1, 2, 3, 4)):
        for img in _kinds(rgb):
            gg.manual_seed(11)
            out = T.RandomCrop((12, 15), padding=padding)(img)
            gg.manual_seed(11)
            padded = F.pad(img, padding)
            i, j, h, w = T.RandomCrop.get_params(padded, (12, 15))
            np.testing.assert_array_equal(_hwc(out), _hwc(F.crop(padded, i, j, h, w)))
    with pytest.raises(ValueError, match="Required crop size"):
        T.RandomCrop(40)(rgb)
    assert _hwc(T.RandomCrop(20, pad_if_needed=True)(rgb)).shape == (20, 20, 3)


def test_random_flip_probabilities(rgb):
    np.testing.assert_array_equal(_hwc(T.RandomHorizontalFlip(p=1.0)(rgb)), rgb[:, ::-1])
    np.testing.assert_array_equal(_hwc(T.RandomHorizontalFlip(p=0.0)(rgb)), rgb)
    np.testing.assert_array_equal(_hwc(T.RandomVerticalFlip(p=1.0)(rgb)), rgb[::-1])
    gg.manual_seed(0)
    flips = sum(np.array_equal(T.RandomHorizontalFlip()(rgb), rgb[:, ::-1]) for _ in range(400))
    assert 140 < flips < 260


def test_resize_pil_matches_pil_and_sizes_follow_torchvision(rgb):
    pil = Image.fromarray(rgb)
    np.testing.assert_array_equal(np.asarray(T.Resize((7, 9))(pil)), np.asarray(pil.resize((9, 7), Image.BILINEAR)))
    assert T.Resize(26)(pil).size == (34, 26)  # the smaller edge (13) becomes 26, aspect kept
    assert _hwc(T.Resize(26)(rgb)).shape == (26, 34, 3)
    assert T.Resize(20, max_size=24)(pil).size == (24, 18)
    with pytest.raises(ValueError, match="max_size = 10 must be strictly greater"):
        T.Resize(20, max_size=10)(pil)


def test_resize_tensor_matches_torch_antialiased_bilinear(torch):
    x = np.random.default_rng(4).random((3, 24, 30)).astype(np.float32)
    for size in [(12, 15), (7, 11), (48, 50)]:
        ours = F.resize(gg.tensor(x, device="cpu"), size).numpy()
        ref = torch.nn.functional.interpolate(torch.from_numpy(x)[None], size=size, mode="bilinear",
                                              antialias=True, align_corners=False)[0].numpy()
        np.testing.assert_allclose(ours, ref, atol=2e-3)
        plain = F.resize(gg.tensor(x, device="cpu"), size, antialias=False).numpy()
        ref_plain = torch.nn.functional.interpolate(torch.from_numpy(x)[None], size=size, mode="bilinear",
                                                    antialias=False, align_corners=False)[0].numpy()
        np.testing.assert_allclose(plain, ref_plain, atol=1e-5)
    near = F.resize(gg.tensor(x, device="cpu"), (12, 15), interpolation=T.InterpolationMode.NEAREST).numpy()
    ref_near = torch.nn.functional.interpolate(torch.from_numpy(x)[None], size=(12, 15), mode="nearest")[0].numpy()
    np.testing.assert_array_equal(near, ref_near)



def _bicubic_rows(rows: np.ndarray, out_w: int) -> np.ndarray:
    """Bicubic resampling of each row (PyTorch's interpolate: align_corners=False, A = -0.75, edge
    samples repeated), in float64: the reference for a resize that keeps the height."""
    in_w, a = rows.shape[-1], -0.75
    out = np.zeros(rows.shape[:-1] + (out_w,))
    for x in range(out_w):
        src = (x + 0.5) * in_w / out_w - 0.5
        i = int(np.floor(src))
        t = src - i
        w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
        w1 = ((a + 2) * t - (a + 3)) * t * t + 1
        w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
        for k, w in zip((-1, 0, 1, 2), (w0, w1, w2, 1 - w0 - w1 - w2)):
            out[..., x] += w * rows[..., min(max(i + k, 0), in_w - 1)]
    return out


def test_resize_tensor_bicubic_without_antialias_is_interpolate():
    """A tensor image's bicubic resize is F.interpolate's (torchvision's functional_tensor.resize):
    a uint8 image is resized in float32, clamped to [0, 255] and rounded; floats keep the
    overshoot. PIL's antialiased bicubic filter gave other values for antialias=False."""
    row = np.array([0, 255, 255, 0, 40], np.float64)
    expected = _bicubic_rows(row, 9)
    img = gg.tensor(row.astype(np.uint8).reshape(1, 1, 5), device="cpu")
    out = F.resize(img, [1, 9], interpolation=T.InterpolationMode.BICUBIC, antialias=False)
    assert out.dtype == gg.uint8
    np.testing.assert_array_equal(out.numpy()[0, 0], np.round(np.clip(expected, 0, 255)).astype(np.uint8))
    assert expected.max() > 255 and expected.min() < 0  # the clamp is exercised
    flt = F.resize(gg.tensor(row.astype(np.float32).reshape(1, 1, 5) / 255, device="cpu"), [1, 9],
                   interpolation=T.InterpolationMode.BICUBIC, antialias=False)
    np.testing.assert_allclose(flt.numpy()[0, 0], expected / 255, atol=1e-6)
    batch = gg.tensor(np.stack([row, row[::-1]]).reshape(2, 1, 1, 5).astype(np.float64), device="cpu")
    out64 = T.Resize((1, 9), interpolation=T.InterpolationMode.BICUBIC, antialias=False)(batch)
    assert out64.dtype == gg.float64
    np.testing.assert_allclose(out64.numpy()[:, 0, 0], np.stack([expected, _bicubic_rows(row[::-1], 9)]), atol=1e-9)


@pytest.mark.parametrize("mode", ["BILINEAR", "BICUBIC"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_resize_tensor_matches_torchvision(torch, mode, antialias, dtype):
    tvf = pytest.importorskip("torchvision.transforms.functional")
    from torchvision.transforms import InterpolationMode as TI
    rng = np.random.default_rng(8)
    for shape, size in [((3, 13, 17), [7, 9]), ((1, 32, 20), [20, 30]), ((2, 3, 9, 9), [5, 40])]:
        x = rng.integers(0, 256, shape).astype(dtype)
        if dtype == "float32":
            x /= 255
        ref = tvf.resize(torch.from_numpy(x), size, getattr(TI, mode), antialias=antialias).numpy()
        ours = F.resize(gg.tensor(x, device="cpu"), size, getattr(T.InterpolationMode, mode), antialias=antialias)
        assert ours.numpy().dtype == ref.dtype and ours.shape == ref.shape
        # uint8: at most one level apart where the float results round from either side of .5
        np.testing.assert_allclose(ours.numpy().astype(np.float64), ref, atol=1 if dtype == "uint8" else 1e-5)

def test_random_resized_crop_size_bounds_and_repeatability(rgb):
    t = T.RandomResizedCrop(8, scale=(0.2, 1.0))
    for img in _kinds(rgb):
        gg.manual_seed(5)
        a = _hwc(t(img))
        gg.manual_seed(5)
        b = _hwc(t(img))
        assert a.shape == (8, 8, 3) and np.array_equal(a, b)
    for _ in range(50):
        i, j, h, w = T.RandomResizedCrop.get_params(rgb, (0.08, 1.0), (3 / 4, 4 / 3))
        assert 0 <= i and 0 <= j and i + h <= 13 and j + w <= 17 and h > 0 and w > 0


# ---- colour ----------------------------------------------------------------------------------
def test_colour_adjustments_on_pil_match_image_enhance(rgb):
    pil = Image.fromarray(rgb)
    for fn, enhancer in [(F.adjust_brightness, ImageEnhance.Brightness), (F.adjust_contrast, ImageEnhance.Contrast),
                         (F.adjust_saturation, ImageEnhance.Color)]:
        np.testing.assert_array_equal(np.asarray(fn(pil, 1.7)), np.asarray(enhancer(pil).enhance(1.7)))


def test_colour_adjustments_on_tensors_follow_torchvision_formulas(rgb):
    x = rgb.transpose(2, 0, 1).astype(np.float32) / 255
    t = gg.tensor(np.ascontiguousarray(x), device="cpu")
    np.testing.assert_allclose(F.adjust_brightness(t, 0.5).numpy(), x * 0.5, rtol=1e-6)
    np.testing.assert_allclose(F.adjust_brightness(t, 3.0).numpy(), np.clip(x * 3, 0, 1), rtol=1e-6)
    gray = 0.2989 * x[0] + 0.587 * x[1] + 0.114 * x[2]
    np.testing.assert_allclose(F.rgb_to_grayscale(t).numpy()[0], gray, rtol=1e-5)
    np.testing.assert_allclose(F.adjust_saturation(t, 0.0).numpy(), np.broadcast_to(gray, x.shape), rtol=1e-5)
    np.testing.assert_allclose(F.adjust_contrast(t, 0.0).numpy(), np.full_like(x, gray.mean()), rtol=1e-4)
    np.testing.assert_allclose(F.adjust_hue(t, 0.0).numpy(), x, atol=1e-6)
    red = gg.tensor(np.array([1.0, 0.0, 0.0], np.float32).reshape(3, 1, 1), device="cpu")
    np.testing.assert_allclose(F.adjust_hue(red, 0.5).numpy().ravel(), [0.0, 1.0, 1.0], atol=1e-6)  # cyan
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(t, 0.6)
    with pytest.raises(ValueError, match="brightness_factor"):
        F.adjust_brightness(t, -1)


def test_color_jitter_ranges_repr_and_kinds(rgb):
    cj = T.ColorJitter(brightness=0.4, contrast=(0.5, 1.5), saturation=0, hue=0.1)
    assert cj.brightness == (0.6, 1.4) and cj.contrast == (0.5, 1.5) and cj.saturation is None and cj.hue == (-0.1, 0.1)
    assert repr(cj) == ("ColorJitter(brightness=(0.6, 1.4), contrast=(0.5, 1.5), saturation=None, "
                        "hue=(-0.1, 0.1))")
    for img in _kinds(rgb):
        assert _hwc(cj(img)).shape == rgb.shape
    with pytest.raises(ValueError, match="hue values should be between"):
        T.ColorJitter(hue=0.7)
    with pytest.raises(ValueError, match="must be non negative"):
        T.ColorJitter(brightness=-1)


# ---- composition -----------------------------------------------------------------------------
def test_compose_gives_user_functions_tensors_and_applies_in_order(rgb):
    seen = []

    def look(x):
        seen.append(isinstance(x, gg.Tensor))
        return x * 2
    out = T.Compose([T.ToTensor(), T.Lambda(look), T.Normalize((0.5,) * 3, (0.5,) * 3)])(Image.fromarray(rgb))
    assert seen == [True] and isinstance(out, gg.Tensor)
    np.testing.assert_allclose(out.numpy(), (rgb.transpose(2, 0, 1) / 255 * 2 - 0.5) / 0.5, atol=1e-6)
    assert repr(T.Compose([T.ToTensor()])) == "Compose(\n    ToTensor()\n)"
    assert repr(T.RandomCrop(32, padding=4)) == "RandomCrop(size=(32, 32), padding=4)"
    assert repr(T.Normalize((0.1307,), (0.3081,))) == "Normalize(mean=(0.1307,), std=(0.3081,))"


def test_random_apply_choice_order_and_grayscale(rgb):
    assert np.array_equal(_hwc(T.RandomApply([T.RandomHorizontalFlip(1.0)], p=1.0)(rgb)), rgb[:, ::-1])
    assert np.array_equal(_hwc(T.RandomApply([T.RandomHorizontalFlip(1.0)], p=0.0)(rgb)), rgb)
    assert _hwc(T.RandomChoice([T.CenterCrop(4), T.CenterCrop(4)])(rgb)).shape == (4, 4, 3)
    assert _hwc(T.RandomOrder([T.CenterCrop(6), T.RandomHorizontalFlip(1.0)])(rgb)).shape == (6, 6, 3)
    assert T.Grayscale()(Image.fromarray(rgb)).mode == "L"
    assert _hwc(T.Grayscale(3)(rgb)).shape == rgb.shape


# ---- utils -----------------------------------------------------------------------------------
def test_make_grid_layout_and_normalize():
    imgs = np.stack([np.full((3, 2, 2), i / 10, np.float32) for i in range(5)])
    grid = vutils.make_grid(gg.tensor(imgs, device="cpu"), nrow=3, padding=1, pad_value=9.0).numpy()
    assert grid.shape == (3, 2 * 3 + 1, 3 * 3 + 1)
    assert grid[0, 1, 1] == np.float32(0.0) and grid[0, 1, 4] == np.float32(0.1) and grid[0, 4, 4] == np.float32(0.4)
    assert grid[0, 0, 0] == 9.0 and grid[0, 4, 7] == 9.0  # the sixth place stays padding
    one = vutils.make_grid(gg.tensor(np.ones((1, 1, 4, 4), np.float32), device="cpu"))
    assert one.shape == (3, 4, 4)
    norm = vutils.make_grid(gg.tensor(imgs * 10 - 3, device="cpu"), normalize=True, padding=0).numpy()
    assert norm.min() == 0.0 and norm.max() == 1.0
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        vutils.make_grid([1, 2])


def test_save_image_writes_a_png_with_the_rounded_pixels(tmp_path):
    imgs = np.stack([np.full((3, 4, 4), v, np.float32) for v in (0.0, 0.5, 1.0)])
    path = tmp_path / "grid.png"
    vutils.save_image(gg.tensor(imgs, device="cpu"), str(path), nrow=3, padding=0)
    back = np.asarray(Image.open(path))
    assert back.shape == (4, 12, 3) and back[0, 0, 0] == 0 and back[0, 4, 0] == 128 and back[0, 8, 0] == 255
    buf = io.BytesIO()
    vutils.save_image(gg.tensor(imgs[0], device="cpu"), buf, format="png")
    assert buf.getvalue()[:4] == b"\x89PNG"


def test_save_image_writes_nan_as_0_and_clamps_infinities_without_a_warning(tmp_path):
    """A flow or GAN that diverged samples NaNs: torchvision's save_image writes them 0 (its
    clamp and uint8 cast) and warns nothing; +inf is 255, -inf 0."""
    imgs = np.full((2, 1, 3, 3), 0.5, np.float32)
    imgs[0, 0, 0, 0], imgs[0, 0, 0, 1], imgs[0, 0, 0, 2] = np.nan, np.inf, -np.inf
    path = tmp_path / "grid.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vutils.save_image(gg.tensor(imgs, device="cpu"), str(path), nrow=2, padding=0)
    back = np.asarray(Image.open(path))
    assert back.shape == (3, 6, 3)
    assert back[0, :3, 0].tolist() == [0, 255, 0] and back[1, 1, 0] == 128 and back[0, 3, 0] == 128


def test_size_attributes_keep_torchvisions_types():
    """torchvision's _setup_size: a number or one-element sequence gives a tuple (n, n); a
    two-element sequence is kept as given (CenterCrop and RandomResizedCrop store it; RandomCrop
    makes a tuple), and the reprs show it."""
    assert T.CenterCrop(4).size == (4, 4) and T.CenterCrop([4, 5]).size == [4, 5]
    assert T.RandomResizedCrop(8).size == (8, 8) and T.RandomResizedCrop([8]).size == (8, 8)
    assert T.RandomResizedCrop([8, 9]).size == [8, 9] and T.RandomCrop([3, 4]).size == (3, 4)
    assert repr(T.CenterCrop([4, 5])) == "CenterCrop(size=[4, 5])"
    assert repr(T.CenterCrop(4)) == "CenterCrop(size=(4, 4))"
    assert repr(T.RandomResizedCrop([8, 9])).startswith("RandomResizedCrop(size=[8, 9], scale=(0.08, 1.0)")
    with pytest.raises(ValueError, match="Please provide only two dimensions"):
        T.CenterCrop([1, 2, 3])
    img = gg.tensor(np.zeros((3, 10, 12), np.uint8), device="cpu")
    assert T.RandomResizedCrop([8, 9])(img).shape == (3, 8, 9) and T.CenterCrop([4, 5])(img).shape == (3, 4, 5)


def test_tensor_mirror_padding_wider_than_the_image_raises():
    """torchvision's tensor pad: 'reflect' needs padding < the side (torch's F.pad raises
    RuntimeError), 'symmetric' padding <= the side (IndexError); 'edge' and 'constant' take any."""
    x = gg.tensor(np.arange(12, dtype=np.uint8).reshape(1, 3, 4), device="cpu")
    assert F.pad(x, [3, 2], padding_mode="reflect").shape == (1, 7, 10)
    assert F.pad(x, [4, 3], padding_mode="symmetric").shape == (1, 9, 12)
    assert F.pad(x, [3, 0], padding_mode="reflect").numpy()[0, 0].tolist() == [3, 2, 1, 0, 1, 2, 3, 2, 1, 0]
    with pytest.raises(RuntimeError, match="reflect padding of 4 on an image of width 4"):
        F.pad(x, [4, 0], padding_mode="reflect")
    with pytest.raises(RuntimeError, match="reflect padding of 3 on an image of height 3"):
        T.Pad([0, 3], padding_mode="reflect")(x)
    with pytest.raises(IndexError, match="symmetric padding of 5"):
        F.pad(x, [5, 0], padding_mode="symmetric")
    assert F.pad(x, 9, padding_mode="edge").shape == (1, 21, 22)
    pil = Image.fromarray(np.zeros((3, 4), np.uint8))
    assert F.pad(pil, 6, padding_mode="reflect").size == (16, 15)  # PIL images pad through NumPy: any width


def test_tensor_mirror_padding_limits_match_torchvision(torch):
    tvf = pytest.importorskip("torchvision.transforms.functional")
    x = np.arange(12, dtype=np.uint8).reshape(1, 3, 4)
    for mode in ("reflect", "symmetric"):
        for padding in ([3, 0], [4, 0], [0, 2], [0, 3], [5, 0], [1, 2, 3, 2]):
            try:
                ref = tvf.pad(torch.from_numpy(x), padding, padding_mode=mode).numpy()
            except (RuntimeError, IndexError) as e:
                with pytest.raises(type(e)):
                    F.pad(gg.tensor(x, device="cpu"), padding, padding_mode=mode)
                continue
            np.testing.assert_array_equal(F.pad(gg.tensor(x, device="cpu"), padding, padding_mode=mode).numpy(), ref)
