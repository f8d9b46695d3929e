"""vision.transforms.v2 for image classification: ToImage (uint8, channels first), ToDtype with and
without scale, v2.Compose on one input and on (image, label) or a dict (labels pass through), the
v1 transforms under their v2 names, against NumPy and the v1 pipeline; a DataLoader over a folder
with a v2 pipeline, as course scripts written for torchvision 0.16+ build it."""
import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets
from glassgrad.vision import transforms as T
from glassgrad.vision.transforms import v2

_rng = np.random.default_rng(2)
PIXELS = _rng.integers(0, 256, (20, 26, 3), dtype=np.uint8)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def test_to_image_and_to_dtype_against_numpy():
    img = Image.fromarray(PIXELS)
    x = v2.ToImage()(img)
    assert x.dtype == gg.uint8 and x.shape == (3, 20, 26)
    np.testing.assert_array_equal(x.numpy(), PIXELS.transpose(2, 0, 1))
    np.testing.assert_array_equal(v2.ToImage()(PIXELS).numpy(), PIXELS.transpose(2, 0, 1))
    scaled = v2.ToDtype(gg.float32, scale=True)(x)
    assert scaled.dtype == gg.float32
    np.testing.assert_allclose(scaled.numpy(), PIXELS.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(v2.ToDtype(gg.float32)(x).numpy(), PIXELS.transpose(2, 0, 1).astype(np.float32))
    assert v2.ToDtype(gg.float32, scale=True)(img) is img  # PIL images pass, as v2's
    # ToImage gives a tv_tensors.Image; a dict of dtypes is keyed by type (a plain tensor's: Tensor)
    assert type(x).__name__ == "Image"
    assert v2.ToDtype({type(x): gg.float64, "others": None})(x).dtype == gg.float64
    plain = gg.tensor(PIXELS.transpose(2, 0, 1).copy())
    assert v2.ToDtype({gg.Tensor: gg.float64, "others": None})(plain).dtype == gg.float64
    assert v2.ToDtype({"others": None})(x) is x


def test_v2_pipeline_equals_the_v1_pipeline():
    img = Image.fromarray(PIXELS)
    new = v2.Compose([v2.ToImage(), v2.CenterCrop(16), v2.ToDtype(gg.float32, scale=True), v2.Normalize(MEAN, STD)])
    old = T.Compose([T.CenterCrop(16), T.ToTensor(), T.Normalize(MEAN, STD)])
    want = (PIXELS[2:18, 5:21].transpose(2, 0, 1) / 255.0 - np.array(MEAN)[:, None, None]) / np.array(STD)[:, None, None]
    np.testing.assert_allclose(new(img).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new(img).numpy(), old(img).numpy(), rtol=1e-6, atol=1e-6)


def test_several_inputs_keep_their_structure_and_labels_pass():
    img = Image.fromarray(PIXELS)
    tf = v2.Compose([v2.ToImage(), v2.RandomResizedCrop(size=(12, 12), antialias=True), v2.RandomHorizontalFlip(),
                     v2.ToDtype(gg.float32, scale=True)])
    x, label = tf(img, 7)
    assert x.shape == (3, 12, 12) and x.dtype == gg.float32 and label == 7
    out = tf({"image": img, "label": 3, "name": "a"})
    assert out["image"].shape == (3, 12, 12) and (out["label"], out["name"]) == (3, "a")
    assert v2.Identity()(img, 1) == (img, 1)
    with pytest.raises(ValueError, match="at least one transform"):  # torchvision: ValueError
        v2.Compose([])


def test_a_data_loader_over_a_folder_with_a_v2_pipeline(tmp_path):
    for cls in ("cat", "dog"):
        (tmp_path / cls).mkdir()
        for i in range(3):
            Image.fromarray(_rng.integers(0, 256, (30, 34, 3), dtype=np.uint8)).save(tmp_path / cls / f"{i}.png")
    tf = v2.Compose([v2.ToImage(), v2.Resize((24, 24), antialias=True), v2.RandomCrop(20, padding=2),
                     v2.ToDtype(gg.float32, scale=True), v2.Normalize(MEAN, STD)])
    images, labels = next(iter(DataLoader(datasets.ImageFolder(str(tmp_path), transform=tf), batch_size=6)))
    assert images.shape == (6, 3, 20, 20) and images.dtype == gg.float32 and labels.tolist() == [0, 0, 0, 1, 1, 1]


def _uint8_image(shape=(3, 9, 11)):
    return np.random.default_rng(11).integers(0, 256, shape).astype(np.uint8)


@pytest.mark.parametrize("mode", ["BILINEAR", "BICUBIC"])
@pytest.mark.parametrize("antialias", [True, False])
def test_v2_resizes_uint8_images_in_uint8_and_v1_in_float(mode, antialias):
    """torchvision.transforms.v2 resizes a uint8 tensor image with interpolate's uint8 kernels (on
    CPUs with AVX2, and ARM); v1 resizes it in float32 and rounds (and clamps bicubic)."""
    from glassgrad.nn import functional as NF
    x = _uint8_image()
    interp = getattr(T.InterpolationMode, mode)
    in_uint8 = NF.interpolate(gg.tensor(x[None]), size=[20, 7], mode=mode.lower(), align_corners=False,
                              antialias=antialias)[0].numpy()
    in_float = NF.interpolate(gg.tensor(x[None].astype(np.float32)), size=[20, 7], mode=mode.lower(),
                              align_corners=False, antialias=antialias)[0].numpy()
    in_float = np.round(np.clip(in_float, 0, 255)).astype(np.uint8)
    for out in (v2.Resize((20, 7), interp, antialias=antialias)(gg.tensor(x)),
                v2.functional.resize(gg.tensor(x), [20, 7], interp, antialias=antialias),
                v2.Compose([v2.Resize((20, 7), interp, antialias=antialias)])(gg.tensor(x), 3)[0],
                v2.functional.resized_crop(gg.tensor(x), 0, 0, 9, 11, [20, 7], interp, antialias=antialias)):
        assert out.dtype == gg.uint8
        np.testing.assert_array_equal(out.numpy(), in_uint8)
    v1 = T.Resize((20, 7), interp, antialias=antialias)(gg.tensor(x))
    np.testing.assert_array_equal(v1.numpy(), in_float)
    floats = gg.tensor(x.astype(np.float32) / 255)
    np.testing.assert_array_equal(v2.Resize((20, 7), interp, antialias=antialias)(floats).numpy(),
                                  T.Resize((20, 7), interp, antialias=antialias)(floats).numpy())


def test_v2_uint8_resize_differs_from_v1_where_torchvision_does():
    x = _uint8_image()
    a = v2.Resize((20, 30), T.InterpolationMode.BICUBIC)(gg.tensor(x)).numpy()
    b = T.Resize((20, 30), T.InterpolationMode.BICUBIC)(gg.tensor(x)).numpy()
    assert np.abs(a.astype(int) - b.astype(int)).max() > 1  # the two kernels round differently


@pytest.mark.parametrize("mode", ["BILINEAR", "BICUBIC"])
@pytest.mark.parametrize("antialias", [True, False])
def test_v2_uint8_resize_matches_torchvision(mode, antialias):
    torch = pytest.importorskip("torch")
    tv2 = pytest.importorskip("torchvision.transforms.v2")
    if mode == "BILINEAR" and torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        pytest.skip("torchvision resizes uint8 bilinear in float32 on CPUs without AVX2")
    for shape, size in [((3, 9, 11), [20, 7]), ((1, 32, 20), [5, 40]), ((2, 3, 13, 17), [7, 9])]:
        x = _uint8_image(shape)
        interp = getattr(tv2.InterpolationMode, mode)
        ref = tv2.Resize(size, interp, antialias=antialias)(torch.from_numpy(x)).numpy()
        ours = v2.Resize(size, getattr(T.InterpolationMode, mode), antialias=antialias)(gg.tensor(x)).numpy()
        np.testing.assert_array_equal(ours, ref)
        ref_crop = tv2.functional.resized_crop(torch.from_numpy(x), 1, 2, 6, 7, size, interp, antialias=antialias)
        ours_crop = v2.functional.resized_crop(gg.tensor(x), 1, 2, 6, 7, size, getattr(T.InterpolationMode, mode),
                                               antialias=antialias)
        np.testing.assert_array_equal(ours_crop.numpy(), ref_crop.numpy())


@pytest.mark.parametrize("make", [lambda: v2.Grayscale(), lambda: v2.ColorJitter(0.3, 0.3, 0.3, 0.1),
                                  lambda: v2.GaussianBlur(3), lambda: v2.RandomInvert(1.0),
                                  lambda: v2.RandomPosterize(3, 1.0), lambda: v2.RandomSolarize(100, 1.0),
                                  lambda: v2.RandomAutocontrast(1.0), lambda: v2.RandomEqualize(1.0),
                                  lambda: v2.RandomGrayscale(1.0), lambda: v2.AutoAugment(), lambda: v2.RandAugment(),
                                  lambda: v2.CenterCrop(5), lambda: v2.RandomCrop(5), lambda: v2.Resize(5),
                                  lambda: v2.RandomHorizontalFlip(1.0), lambda: v2.RandomRotation(10),
                                  lambda: v2.RandomAffine(10), lambda: v2.Pad(2),
                                  lambda: v2.ConvertImageDtype(gg.float32),
                                  lambda: v2.RandomApply([v2.RandomHorizontalFlip(1.0)], p=1.0)])
def test_v2_transforms_keep_a_tv_tensors_image_an_image(make):
    """A tv_tensors.Image given alone comes out as an Image (torchvision's kernels rewrap it), as it
    does inside a sample."""
    from glassgrad.vision import tv_tensors
    img = tv_tensors.Image(gg.tensor(np.random.default_rng(12).integers(0, 256, (3, 13, 17)).astype(np.uint8)))
    gg.manual_seed(0)
    out = make()(img)
    assert type(out) is tv_tensors.Image
    gg.manual_seed(0)
    plain = make()(gg.tensor(np.asarray(img.numpy())))
    assert type(plain) is gg.Tensor
    np.testing.assert_array_equal(out.numpy(), plain.numpy())
    sample_out, label = make()(img, 3)
    assert type(sample_out) is tv_tensors.Image and label == 3


def test_v2_crops_of_an_image_and_lambda_results():
    from glassgrad.vision import tv_tensors
    img = tv_tensors.Image(gg.zeros(3, 8, 8, dtype=gg.uint8))
    crops = v2.FiveCrop(4)(img)
    assert isinstance(crops, tuple) and len(crops) == 5 and all(type(c) is tv_tensors.Image for c in crops)
    normed = v2.Normalize([0.5] * 3, [0.5] * 3)(tv_tensors.Image(gg.zeros(3, 2, 2)))
    assert type(normed) is tv_tensors.Image and normed.numpy().min() == -1.0
    assert type(v2.Lambda(lambda t: t.as_subclass(gg.Tensor))(img)) is gg.Tensor  # Lambda: what the function gives
    with pytest.raises(ValueError, match="at least one transform"):
        v2.Compose([])
    with pytest.raises(TypeError, match="sequence of callables"):
        v2.Compose(v2.Identity())


def test_v2_fill_given_per_input_type():
    """torchvision's v2 fill may be a dict keyed by input type, with "others" for the rest (its
    detection reference: RandomZoomOut(fill={tv_tensors.Image: (123.0, 117.0, 104.0), "others": 0}));
    the image takes its entry and a following mask the tv_tensors.Mask one."""
    from glassgrad.vision import tv_tensors
    img = tv_tensors.Image(gg.tensor(np.full((3, 4, 5), 50, np.uint8)))
    mask = tv_tensors.Mask(gg.zeros(4, 5, dtype=gg.uint8))
    out, m = v2.Pad(2, fill={tv_tensors.Image: 7, tv_tensors.Mask: 1})(img, mask)
    assert out.shape == (3, 8, 9) and out.numpy()[:, 0, 0].tolist() == [7, 7, 7] and out.numpy()[0, 3, 3] == 50
    assert m.shape == (8, 9) and m.numpy()[0, 0] == 1 and m.numpy()[3, 3] == 0
    out, m = v2.Pad([1, 0], fill={tv_tensors.Image: (1, 2, 3), "others": 9})(img, mask)
    assert out.numpy()[:, 0, 0].tolist() == [1, 2, 3] and m.numpy()[0, 0] == 9
    alone = v2.RandomCrop(8, pad_if_needed=True, fill={tv_tensors.Image: 4, "others": 0})(img)
    assert type(alone) is tv_tensors.Image and alone.shape == (3, 8, 8) and 4 in alone.numpy()
    gg.manual_seed(1)
    zoom = v2.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}, side_range=(2.0, 2.0), p=1.0)
    zimg, zmask = zoom(img, mask)
    assert zimg.shape == (3, 8, 10) and zmask.shape == (8, 10)
    zi = zimg.numpy()
    outside = zi[0] != 50
    assert outside.sum() == 80 - 20 and {tuple(p) for p in zi[:, outside].T.tolist()} == {(123, 117, 104)}
    assert int(zmask.numpy().sum()) == 0
    rot = v2.RandomRotation((90, 90), expand=True, fill={tv_tensors.Image: 3, tv_tensors.Mask: 255})
    rimg, rmask = rot(tv_tensors.Image(gg.tensor(np.full((1, 2, 4), 50, np.uint8))), tv_tensors.Mask(gg.zeros(2, 4)))
    assert rimg.shape == (1, 4, 2) and rmask.shape == (4, 2)
    with pytest.raises(RuntimeError, match="no entry for Tensor"):
        v2.Pad(1, fill={tv_tensors.Image: 1})(gg.zeros(1, 2, 2))
    with pytest.raises(TypeError, match="inappropriate fill"):
        v2.Pad(1, fill={tv_tensors.Image: "red"})


def test_v2_fill_dict_matches_torchvision():
    torch = pytest.importorskip("torch")
    tv2 = pytest.importorskip("torchvision.transforms.v2")
    tvt = pytest.importorskip("torchvision.tv_tensors")
    from glassgrad.vision import tv_tensors
    x = np.random.default_rng(13).integers(0, 256, (3, 5, 6)).astype(np.uint8)
    m = (np.arange(30).reshape(5, 6) % 3).astype(np.uint8)
    for pad, fill in [(2, {"img": 7, "mask": 1}), ([1, 2, 3, 0], {"img": (1, 2, 3), "others": 9})]:
        ref_fill = {(tvt.Image if k == "img" else tvt.Mask if k == "mask" else k): v for k, v in fill.items()}
        our_fill = {(tv_tensors.Image if k == "img" else tv_tensors.Mask if k == "mask" else k): v for k, v in fill.items()}
        ri, rm = tv2.Pad(pad, fill=ref_fill)(tvt.Image(torch.from_numpy(x)), tvt.Mask(torch.from_numpy(m)))
        oi, om = v2.Pad(pad, fill=our_fill)(tv_tensors.Image(gg.tensor(x)), tv_tensors.Mask(gg.tensor(m)))
        np.testing.assert_array_equal(oi.numpy(), ri.numpy())
        np.testing.assert_array_equal(om.numpy(), rm.numpy())
