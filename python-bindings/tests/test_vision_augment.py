"""torchvision's augmentation transforms beyond the basic ones (transforms/_geometric.py,
_photometric.py, _augment.py): what their docs say, PIL and tensor paths agreeing, and, where
torchvision is installed, equal to it."""
import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.vision import transforms as T
from glassgrad.vision.transforms import functional as F


@pytest.fixture
def img():
    return np.random.default_rng(0).integers(0, 256, (3, 20, 26), dtype=np.uint8)


def _pil(a):
    return Image.fromarray(np.ascontiguousarray(a.transpose(1, 2, 0)))


def _back(p):
    return np.asarray(p).transpose(2, 0, 1)


@pytest.mark.parametrize("shape", [(3, 20, 26), (1, 5, 5)])
def test_rotating_by_90_and_180_is_rot90_on_both_paths(shape):
    a = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    np.testing.assert_array_equal(F.rotate(gg.tensor(a), 90.0, expand=True).numpy(), np.rot90(a, 1, axes=(1, 2)))
    np.testing.assert_array_equal(F.rotate(gg.tensor(a), 180.0).numpy(), a[:, ::-1, ::-1])
    if shape[0] == 3:
        np.testing.assert_array_equal(_back(F.rotate(_pil(a), 90.0, expand=True)), np.rot90(a, 1, axes=(1, 2)))


def test_affine_identity_translation_and_fill(img):
    t = gg.tensor(img)
    np.testing.assert_array_equal(F.affine(t, 0.0, [0, 0], 1.0, [0.0, 0.0]).numpy(), img)
    shifted = F.affine(t, 0.0, [3, -2], 1.0, 0.0, fill=[7.0, 8.0, 9.0]).numpy()
    np.testing.assert_array_equal(shifted[:, :-2, 3:], img[:, 2:, :-3])
    assert (shifted[:, :, :3] == np.array([7, 8, 9], np.uint8)[:, None, None]).all()
    pil = _back(F.affine(_pil(img), 0.0, [3, -2], 1.0, 0.0, fill=(7, 8, 9)))
    np.testing.assert_array_equal(pil, shifted)  # PIL and tensor paths agree on integer shifts
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(t, 0.0, [0, 0], 0.0, 0.0)
    with pytest.raises(ValueError, match="Interpolation mode 'bicubic' is unsupported with Tensor input"):
        F.affine(t, 1.0, [0, 0], 1.0, 0.0, T.InterpolationMode.BICUBIC)


def test_bilinear_rotation_of_a_constant_image_keeps_the_inside_and_fills_the_corners():
    ones = gg.tensor(np.ones((1, 16, 16), np.float32))
    out = F.rotate(ones, 45.0, T.InterpolationMode.BILINEAR, fill=[0.0]).numpy()[0]
    np.testing.assert_allclose(out[6:10, 6:10], 1.0, atol=1e-6)
    assert out[0, 0] == 0.0 and out.dtype == np.float32


def test_five_and_ten_crop_positions(img):
    tl, tr, bl, br, c = F.five_crop(gg.tensor(img), [8, 10])
    np.testing.assert_array_equal(tl.numpy(), img[:, :8, :10])
    np.testing.assert_array_equal(tr.numpy(), img[:, :8, -10:])
    np.testing.assert_array_equal(bl.numpy(), img[:, -8:, :10])
    np.testing.assert_array_equal(br.numpy(), img[:, -8:, -10:])
    np.testing.assert_array_equal(c.numpy(), img[:, 6:14, 8:18])
    ten = F.ten_crop(gg.tensor(img), 8, vertical_flip=True)
    assert len(ten) == 10
    np.testing.assert_array_equal(ten[5].numpy(), img[:, ::-1][:, :8, :8])
    with pytest.raises(ValueError, match="bigger than input size"):
        F.five_crop(gg.tensor(img), 30)
    crops = T.Compose([T.TenCrop(8), T.Lambda(lambda cs: [T.ToTensor()(c) for c in cs])])(_pil(img))
    assert len(crops) == 10 and crops[0].shape == (3, 8, 8)


def test_pixel_operations_on_tensors_agree_with_pil(img):
    t = gg.tensor(img)
    for fn in (F.invert, lambda x: F.posterize(x, 3), lambda x: F.solarize(x, 128), F.equalize):
        np.testing.assert_array_equal(fn(t).numpy(), _back(fn(_pil(img))))
    auto = F.autocontrast(t).numpy().astype(int) - _back(F.autocontrast(_pil(img))).astype(int)
    assert np.abs(auto).max() <= 1
    f = gg.tensor(img.astype(np.float32) / 255)
    np.testing.assert_allclose(F.invert(f).numpy(), 1 - img / 255.0, atol=1e-6)
    with pytest.raises(TypeError, match="Only torch.uint8 image tensors"):
        F.posterize(f, 2)
    with pytest.raises(ValueError, match="bits should be between 0 and 8"):
        F.posterize(t, 9)


def test_sharpness_gamma_and_blur_follow_their_formulas(img):
    t = gg.tensor(img)
    np.testing.assert_array_equal(F.adjust_sharpness(t, 1.0).numpy(), img)  # factor 1: unchanged
    x = img.astype(np.float32) / 255
    smooth = F.adjust_sharpness(gg.tensor(x), 0.0).numpy()
    k = np.ones((3, 3), np.float32)
    k[1, 1] = 5
    k /= k.sum()
    want = sum(k[i, j] * x[:, i:i + 18, j:j + 24] for i in range(3) for j in range(3))
    np.testing.assert_allclose(smooth[:, 1:-1, 1:-1], want, rtol=1e-5)
    np.testing.assert_array_equal(smooth[:, 0], x[:, 0])  # the border is kept
    g = F.adjust_gamma(gg.tensor(img.astype(np.float32) / 255), 2.0, 1.0).numpy()
    np.testing.assert_allclose(g, (img / 255.0) ** 2, rtol=1e-5)
    delta = np.zeros((1, 9, 9), np.float32)
    delta[0, 4, 4] = 1
    blurred = F.gaussian_blur(gg.tensor(delta), [5, 3], [1.5, 0.8]).numpy()[0]
    gx = np.exp(-0.5 * (np.arange(-2, 3) / 1.5) ** 2)
    gy = np.exp(-0.5 * (np.arange(-1, 2) / 0.8) ** 2)
    np.testing.assert_allclose(blurred[3:6, 2:7], np.outer(gy / gy.sum(), gx / gx.sum()), rtol=1e-5)
    assert abs(blurred.sum() - 1) < 1e-5
    with pytest.raises(ValueError, match="odd and positive"):
        F.gaussian_blur(t, 4)


def test_convert_image_dtype_and_erase(img):
    t = gg.tensor(img)
    f = F.convert_image_dtype(t, gg.float32)
    assert f.dtype == "float32"
    np.testing.assert_array_equal(f.numpy(), img.astype(np.float32) / np.float32(255))
    np.testing.assert_array_equal(F.convert_image_dtype(f, gg.uint8).numpy(), img)
    assert F.convert_image_dtype(t, gg.uint8) is t
    with pytest.raises(TypeError, match="Tensor Image"):
        F.convert_image_dtype(_pil(img), gg.float32)
    e = F.erase(t, 2, 3, 4, 5, 0)
    assert (e.numpy()[:, 2:6, 3:8] == 0).all() and (t.numpy() == img).all()


def test_random_erasing_draws_windows_and_refuses_pil_images():
    gg.manual_seed(0)
    x = gg.tensor(np.ones((3, 32, 32), np.float32))
    erased = [T.RandomErasing(p=1.0)(x).numpy() for _ in range(100)]
    fractions = [(e == 0).all(axis=0).mean() for e in erased]
    assert 0.02 * 0.8 <= min(fractions) and max(fractions) <= 0.33 * 1.2
    noisy = T.RandomErasing(p=1.0, value="random")(x).numpy()
    assert (noisy != 1).any() and noisy.dtype == np.float32
    assert all((T.RandomErasing(p=0.0)(x).numpy() == 1).all() for _ in range(5))
    with pytest.raises(TypeError, match="put RandomErasing after ToTensor"):
        T.RandomErasing(p=1.0)(_pil(np.zeros((3, 8, 8), np.uint8)))
    with pytest.raises(ValueError, match="either a single value or 3"):
        T.RandomErasing(p=1.0, value=(1, 2))(x)


def test_random_transforms_are_repeatable_with_manual_seed(img):
    chain = T.Compose([T.RandomRotation(30), T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5),
                       T.GaussianBlur(3), T.ToTensor(), T.RandomErasing()])
    gg.manual_seed(3)
    a = chain(_pil(img)).numpy()
    gg.manual_seed(3)
    np.testing.assert_array_equal(chain(_pil(img)).numpy(), a)


REPRS = [  # as torchvision 0.28 prints them
    (lambda: T.RandomRotation(10), "RandomRotation(degrees=[-10.0, 10.0], interpolation=nearest, expand=False, fill=0)"),
    (lambda: T.RandomAffine(0, translate=(0.1, 0.2), scale=(0.9, 1.1), shear=5,
                            interpolation=T.InterpolationMode.BILINEAR, fill=1),
     "RandomAffine(degrees=[0.0, 0.0], translate=(0.1, 0.2), scale=(0.9, 1.1), shear=[-5.0, 5.0], "
     "interpolation=bilinear, fill=1)"),
    (lambda: T.RandomErasing(), "RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False)"),
    (lambda: T.GaussianBlur(3), "GaussianBlur(kernel_size=(3, 3), sigma=(0.1, 2.0))"),
    (lambda: T.TenCrop((5, 6), vertical_flip=True), "TenCrop(size=(5, 6), vertical_flip=True)"),
    (lambda: T.RandomPosterize(2), "RandomPosterize(bits=2,p=0.5)"),
    (lambda: T.RandomEqualize(0.2), "RandomEqualize(p=0.2)"),
]


@pytest.mark.parametrize("make,text", REPRS)
def test_reprs_are_torchvisions(make, text):
    assert repr(make()) == text


@pytest.mark.parametrize("make,message", [
    (lambda: T.RandomRotation(-1), "If degrees is a single number, it must be positive."),
    (lambda: T.RandomAffine(5, translate=(2, 0)), "translation values should be between 0 and 1"),
    (lambda: T.RandomAffine(5, shear=(1, 2, 3)), "shear should be a sequence of length 2 or 4."),
    (lambda: T.RandomErasing(value="x"), "If value is str, it should be 'random'"),
    (lambda: T.GaussianBlur(4), "Kernel size value should be an odd and positive number."),
    (lambda: T.GaussianBlur(3, sigma=(2, 1)), r"sigma values should be positive and of the form \(min, max\)."),
])
def test_arguments_are_checked_as_torchvision_does(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_equal_to_torchvision_where_it_is_installed(img):
    torch = pytest.importorskip("torch")
    tv = pytest.importorskip("torchvision.transforms.functional")
    tt = torch.tensor(img)
    for name, args in [("rotate", (30.0,)), ("affine", (15.0, [2, -3], 1.2, [10.0, 5.0])), ("invert", ()),
                       ("posterize", (3,)), ("solarize", (128,)), ("equalize", ()), ("autocontrast", ()),
                       ("adjust_sharpness", (2.0,)), ("gaussian_blur", ([5, 3], [1.5, 0.8]))]:
        ours = getattr(F, name)(gg.tensor(img), *args).numpy()
        np.testing.assert_array_equal(ours, getattr(tv, name)(tt, *args).numpy(), err_msg=name)
        np.testing.assert_array_equal(np.asarray(getattr(F, name)(_pil(img), *args)),
                                      np.asarray(getattr(tv, name)(_pil(img), *args)), err_msg=name)


def test_autoaugment_policies_run_on_pil_and_tensors_and_repeat_with_the_seed(img):
    for make in (lambda: T.AutoAugment(T.AutoAugmentPolicy.CIFAR10), lambda: T.AutoAugment(T.AutoAugmentPolicy.SVHN),
                 lambda: T.RandAugment(), lambda: T.TrivialAugmentWide(fill=[1.0, 2.0, 3.0])):
        aug = make()
        for _ in range(15):
            out = aug(gg.tensor(img))
            assert out.shape == (3, 20, 26) and out.dtype == "uint8"
            assert aug(_pil(img)).size == (26, 20)
        gg.manual_seed(5)
        first = [aug(gg.tensor(img)).numpy() for _ in range(5)]
        gg.manual_seed(5)
        again = [aug(gg.tensor(img)).numpy() for _ in range(5)]
        assert all(np.array_equal(a, b) for a, b in zip(first, again))
    policies = T.AutoAugment(T.AutoAugmentPolicy.IMAGENET).policies
    assert len(policies) == 25 and policies[0] == (("Posterize", 0.4, 8), ("Rotate", 0.6, 9))
    assert repr(T.AutoAugment()) == "AutoAugment(policy=AutoAugmentPolicy.IMAGENET, fill=None)"
    assert repr(T.RandAugment()) == ("RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31, "
                                     "interpolation=InterpolationMode.NEAREST, fill=None)")


def test_magnitude_bins_are_torch_linspace_values():
    from glassgrad.vision.transforms._image import linspace
    space = T.TrivialAugmentWide()._augmentation_space(31)
    assert space["Posterize"][0].tolist() == [8 - round(i / 5) for i in range(31)]
    assert space["Solarize"][0][0] == 255.0 and space["Solarize"][0][-1] == 0.0
    torch = pytest.importorskip("torch")
    for start, end, n in [(0, 0.9, 31), (0, 0.99, 31), (0, 32.0, 31), (255.0, 0.0, 31), (-10.5, 10.5, 21)]:
        np.testing.assert_array_equal(linspace(start, end, n), torch.linspace(start, end, n).numpy())


def test_autoaugment_operations_equal_torchvisions_where_it_is_installed(img):
    torch = pytest.importorskip("torch")
    ta = pytest.importorskip("torchvision.transforms.autoaugment")
    tvt = pytest.importorskip("torchvision.transforms")
    from glassgrad.vision.transforms import autoaugment as ours
    tt = torch.tensor(img)
    for op in ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
               "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize", "Invert"]:
        mag = 3.0 if op == "Posterize" else -0.7 if op in ("Brightness", "Color", "Contrast", "Sharpness") else 5.0
        got = ours._apply_op(gg.tensor(img), op, mag, T.InterpolationMode.NEAREST, [1.0, 2.0, 3.0]).numpy()
        want = ta._apply_op(tt, op, mag, tvt.InterpolationMode.NEAREST, [1.0, 2.0, 3.0]).numpy()
        np.testing.assert_array_equal(got, want, err_msg=op)
        got = np.asarray(ours._apply_op(_pil(img), op, mag, T.InterpolationMode.NEAREST, None))
        want = np.asarray(ta._apply_op(_pil(img), op, mag, tvt.InterpolationMode.NEAREST, None))
        np.testing.assert_array_equal(got, want, err_msg=op)
