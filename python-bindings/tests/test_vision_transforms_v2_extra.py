"""transforms.v2's Transform base class, v2.functional, and the v2 transforms beyond v1's (MixUp,
CutMix, RGB, RandomChannelPermutation, RandomPhotometricDistort, GaussianNoise, JPEG,
LinearTransformation, RandomZoomOut, RandomResize, RandomShortestSize, ScaleJitter,
ElasticTransform, AugMix; v1's LinearTransformation, ElasticTransform and functional.elastic_transform):
the rules torchvision documents checked without it, and, where torchvision is installed, each
transform's transform(inpt, params) given the same params as torchvision's."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import transforms as T
from glassgrad.vision.transforms import v2
from glassgrad.vision.transforms.v2 import functional as F

PIL = pytest.importorskip("PIL.Image")


def _image(seed=0, shape=(3, 10, 14)):
    return gg.tensor(np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8))


class Shift(v2.Transform):
    """A user transform: one random offset per call, added to every transformed entry."""

    def make_params(self, flat_inputs):
        return {"offset": float(gg.rand(()).item()), "count": len(flat_inputs)}

    def transform(self, inpt, params):
        return inpt.float() + params["offset"]


def test_transform_subclass_protocol():
    img, label = _image(), 3
    out, same = Shift()(img, label)
    assert same == 3 and out.dtype == gg.float32
    # only the first plain tensor is transformed; dicts and lists keep their structure
    sample = {"image": img, "mask": gg.zeros(10, 14), "meta": [label, "x"]}
    out = Shift()(sample)
    assert out["mask"] is sample["mask"] and out["meta"] == [3, "x"] and out["image"].dtype == gg.float32
    # PIL images are all transformed with one draw of the parameters
    a = PIL.fromarray(np.arange(12, dtype=np.uint8).reshape(3, 4))

    class Both(v2.Transform):
        def make_params(self, flat_inputs):
            return {"n": len(flat_inputs), "draw": float(gg.rand(()).item())}

        def transform(self, inpt, params):
            return params

    got = Both()(a, a.copy(), gg.zeros(2, 2))
    assert got[0] is got[1] and got[0]["n"] == 2 and isinstance(got[2], gg.Tensor)
    with pytest.raises(NotImplementedError, match="transform"):
        v2.Transform()(img)
    assert isinstance(v2.Transform(), gg.nn.Module)
    assert repr(v2.GaussianNoise(sigma=0.2)) == "GaussianNoise(mean=0.0, sigma=0.2, clip=True)"


def test_functional_v2_names():
    img = _image()
    assert F.get_size(img) == [10, 14] and F.get_num_channels(img) == 3
    assert F.horizontal_flip(img).tolist() == img.flip(-1).tolist()
    assert F.vertical_flip(img).tolist() == img.flip(-2).tolist()
    assert F.to_dtype(img, gg.float32, scale=True).max().item() <= 1.0
    assert F.to_dtype(img, gg.float32).max().item() > 1.0
    assert F.to_image(np.zeros((4, 5, 3), np.uint8)).shape == (3, 4, 5)
    assert F.to_image(PIL.fromarray(np.zeros((4, 5), np.uint8))).shape == (1, 4, 5)
    gray = _image(shape=(1, 4, 5))
    assert F.grayscale_to_rgb(gray).tolist() == gray.repeat(3, 1, 1).tolist()
    assert F.grayscale_to_rgb(img) is img
    assert F.permute_channels(img, [2, 0, 1]).tolist() == img[[2, 0, 1]].tolist()
    # resize_image is the image kernel; resize also takes masks and boxes (tv_tensors)
    assert F.resize_image(img, [5, 7]).tolist() == F.resize(img, [5, 7]).tolist() and F.is_pure_tensor(img)
    with pytest.raises(ValueError, match="permutation"):
        F.permute_channels(img, [1, 0])


def test_gaussian_noise_and_jpeg():
    gg.manual_seed(0)
    x = gg.full((1, 200, 200), 0.5)
    noisy = F.gaussian_noise(x, mean=0.1, sigma=0.05)
    assert abs(noisy.mean().item() - 0.6) < 0.01 and abs(noisy.std().item() - 0.05) < 0.005
    assert F.gaussian_noise(gg.ones(1, 8, 8), sigma=1.0).max().item() <= 1.0
    assert F.gaussian_noise(gg.ones(1, 8, 8), sigma=1.0, clip=False).max().item() > 1.0
    bytes_ = F.gaussian_noise(gg.full((1, 50, 50), 250, dtype=gg.uint8), sigma=0.1)
    assert bytes_.dtype == gg.uint8 and bytes_.max().item() == 255
    with pytest.raises(ValueError, match="sigma"):
        F.gaussian_noise(x, sigma=-1.0)
    img = _image(1, (3, 32, 32))
    out = F.jpeg(img, 90)
    assert out.dtype == gg.uint8 and out.shape == img.shape
    smooth = gg.tensor(np.tile(np.linspace(0, 255, 32, dtype=np.uint8), (3, 32, 1)))
    assert np.abs(F.jpeg(smooth, 95).numpy().astype(int) - smooth.numpy()).mean() < 3
    with pytest.raises(ValueError, match="quality"):
        v2.JPEG(0)


def test_elastic_identity_and_shift():
    img = gg.tensor(np.random.default_rng(2).uniform(size=(2, 6, 8)).astype(np.float32))
    np.testing.assert_allclose(F.elastic(img, gg.zeros(1, 6, 8, 2)).numpy(), img.numpy(), atol=1e-5)
    shift = gg.zeros(1, 6, 8, 2)
    shift[..., 0] = 2.0 / 8  # one pixel to the right in normalised coordinates
    out = T.functional.elastic_transform(img, shift).numpy()
    np.testing.assert_allclose(out[:, :, :-1], img.numpy()[:, :, 1:], atol=1e-5)
    assert (out[:, :, -1] == 0).all()
    assert T.ElasticTransform.get_params([50.0, 50.0], [5.0, 5.0], [6, 8]).shape == (1, 6, 8, 2)
    assert T.ElasticTransform()(img).shape == img.shape
    assert v2.ElasticTransform(alpha=10.0)(PIL.fromarray(np.zeros((6, 8), np.uint8))).size == (8, 6)


def test_mixup_and_cutmix_rules():
    gg.manual_seed(3)
    images = gg.tensor(np.random.default_rng(4).uniform(size=(4, 3, 8, 8)).astype(np.float32))
    labels = gg.tensor([0, 2, 1, 2])
    mixed, soft = v2.MixUp(num_classes=3)(images, labels)
    lam = soft[0, 0].item()  # label 0 weighted lam, the rolled label (2) 1 - lam
    np.testing.assert_allclose(mixed.numpy(), lam * images.numpy() + (1 - lam) * np.roll(images.numpy(), 1, 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(soft.sum(1).numpy(), 1.0, rtol=1e-6)
    cut, soft = v2.CutMix(num_classes=3)((images, labels))
    changed = (cut.numpy() != images.numpy()).any(axis=(0, 1))
    kept = 1.0 - changed.mean()
    assert soft[0, 0].item() == pytest.approx(kept, abs=1e-6) or changed.sum() == 0
    out = v2.MixUp(num_classes=3)({"img": images, "labels": labels})
    assert out["labels"].shape == (4, 3)
    with pytest.raises(ValueError, match="num_classes"):
        v2.MixUp()(images, labels)
    with pytest.raises(ValueError, match="batched"):
        v2.CutMix(num_classes=3)(images[0], labels)
    with pytest.raises(ValueError, match="PIL"):
        v2.MixUp(num_classes=3)(PIL.fromarray(np.zeros((4, 4), np.uint8)), labels)


def test_size_transforms_rules():
    img = _image(shape=(3, 20, 30))
    gg.manual_seed(5)
    for _ in range(5):
        out = v2.RandomResize(8, 12)(img)
        assert 8 <= min(out.shape[-2:]) < 12
        short = v2.RandomShortestSize([10, 16], max_size=36)(img)
        assert min(short.shape[-2:]) in (10, 16) or max(short.shape[-2:]) <= 36
        zoomed = v2.RandomZoomOut(fill=7, side_range=(1.5, 2.0), p=1.0)(img)
        assert 30 <= zoomed.shape[-2] and zoomed.shape[-1] >= 45 and (zoomed == 7).any()
    assert v2.RandomZoomOut(p=0.0)(img) is img
    jitter = v2.ScaleJitter((40, 40), scale_range=(1.0, 1.0))(img)
    assert tuple(jitter.shape[-2:]) == (26, 40)  # min(40 / 20, 40 / 30) = 4 / 3
    assert v2.RGB()(_image(shape=(1, 4, 4))).shape == (3, 4, 4)
    perm = v2.RandomChannelPermutation()(img)
    assert sorted(perm.float().sum((1, 2)).tolist()) == sorted(img.float().sum((1, 2)).tolist())
    assert v2.RandomPhotometricDistort(p=1.0)(img).shape == img.shape
    with pytest.raises(ValueError, match="side range"):
        v2.RandomZoomOut(side_range=(0.5, 2.0))


def test_linear_transformation():
    rng = np.random.default_rng(6)
    m, mean = rng.standard_normal((12, 12)).astype(np.float32), rng.standard_normal(12).astype(np.float32)
    x = rng.standard_normal((3, 2, 2)).astype(np.float32)
    want = ((x.reshape(1, 12) - mean) @ m).reshape(3, 2, 2)
    for cls in (T.LinearTransformation, v2.LinearTransformation):
        np.testing.assert_allclose(cls(gg.tensor(m), gg.tensor(mean))(gg.tensor(x)).numpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="square"):
        v2.LinearTransformation(gg.zeros(3, 4), gg.zeros(3))
    with pytest.raises(ValueError, match="incompatible"):
        T.LinearTransformation(gg.tensor(m), gg.tensor(mean))(gg.zeros(1, 2, 2))


def test_v2_transforms_match_torchvision_given_the_same_params():
    torch = pytest.importorskip("torch")
    tv2 = pytest.importorskip("torchvision.transforms.v2")
    tvF = pytest.importorskip("torchvision.transforms.v2.functional")
    rng = np.random.default_rng(8)
    x = rng.uniform(size=(4, 3, 12, 16)).astype(np.float32)
    labels = np.array([1, 0, 4, 2])
    gx, tx = gg.tensor(x), torch.tensor(x)
    for ours, theirs, params in (
            (v2.CutMix(num_classes=5), tv2.CutMix(num_classes=5), dict(box=(3, 2, 11, 9), lam_adjusted=0.625)),
            (v2.MixUp(num_classes=5), tv2.MixUp(num_classes=5), dict(lam=0.3))):
        gl, tl = gg.tensor(labels), torch.tensor(labels)
        mine = ours.transform(gx, dict(params, labels=gl, batch_size=4))
        np.testing.assert_allclose(mine.numpy(), theirs.transform(tx, dict(params, labels=tl, batch_size=4)).numpy(),
                                   rtol=1e-6)
        np.testing.assert_allclose(ours.transform(gl, dict(params, labels=gl, batch_size=4)).numpy(),
                                   theirs.transform(tl, dict(params, labels=tl, batch_size=4)).numpy(), rtol=1e-6)
    img = rng.integers(0, 256, (3, 12, 16)).astype(np.uint8)
    gi, ti = gg.tensor(img), torch.tensor(img)
    cases = [(v2.RandomZoomOut(fill=5), tv2.RandomZoomOut(fill=5), dict(padding=[2, 1, 3, 4])),
             (v2.RandomResize(5, 9), tv2.RandomResize(5, 9), dict(size=[7])),
             (v2.ScaleJitter((20, 20)), tv2.ScaleJitter((20, 20)), dict(size=[9, 13])),
             (v2.RandomChannelPermutation(), tv2.RandomChannelPermutation(), dict(permutation=[1, 2, 0])),
             (v2.RandomPhotometricDistort(), tv2.RandomPhotometricDistort(),
              dict(brightness_factor=1.1, contrast_factor=0.7, saturation_factor=1.3, hue_factor=0.03, contrast_before=False,
                   channel_permutation=[2, 0, 1]))]
    for ours, theirs, params in cases:
        tparams = dict(params, channel_permutation=torch.tensor(params["channel_permutation"])) \
            if "channel_permutation" in params else params
        want = theirs.transform(ti, tparams).numpy().astype(int)
        got = ours.transform(gi, params).numpy().astype(int)
        assert got.shape == want.shape, type(ours).__name__
        assert np.abs(got - want).max() <= 1, type(ours).__name__
    disp = (rng.uniform(-0.2, 0.2, (1, 12, 16, 2))).astype(np.float32)
    xf = x[0]
    np.testing.assert_allclose(F.elastic(gg.tensor(xf), gg.tensor(disp), fill=0.5).numpy(),
                               tvF.elastic(torch.tensor(xf), torch.tensor(disp), fill=0.5).numpy(), atol=1e-5)
    np.testing.assert_allclose(F.gaussian_noise(gg.tensor(xf), sigma=0.0).numpy(),
                               tvF.gaussian_noise(torch.tensor(xf), sigma=0.0).numpy())
    assert np.abs(F.jpeg(gi, 75).numpy().astype(int) - tvF.jpeg(ti, 75).numpy().astype(int)).mean() < 2
    m = rng.standard_normal((36, 36)).astype(np.float32)
    mean = rng.standard_normal(36).astype(np.float32)
    xs = rng.standard_normal((3, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(v2.LinearTransformation(gg.tensor(m), gg.tensor(mean))(gg.tensor(xs)).numpy(),
                               tv2.LinearTransformation(torch.tensor(m), torch.tensor(mean))(torch.tensor(xs)).numpy(),
                               rtol=1e-5, atol=1e-5)


class _FixedAugMix(T.AugMix):
    """AugMix with its Dirichlet draws fixed and one operation in its space."""

    def __init__(self, m, weights, op, **kwargs):
        super().__init__(**kwargs)
        self._m, self._weights, self._op = m, weights, op

    def _sample_dirichlet(self, params):
        return np.tile(np.asarray(self._m if params.shape[1] == 2 else self._weights, np.float32), (len(params), 1))

    def _augmentation_space(self, num_bins, image_size):
        return {self._op: super()._augmentation_space(num_bins, image_size)[self._op]}


def test_augmix_mixing_rules():
    img = _image(seed=9, shape=(3, 12, 12))
    assert _FixedAugMix([1.0, 0.0], [1, 0, 0], "Equalize")(img).tolist() == img.tolist()
    eq = T.functional.equalize(img).numpy().astype(np.float32)
    out = _FixedAugMix([0.25, 0.75], [0.5, 0.5, 0.0], "Equalize", chain_depth=2)(img).numpy()
    want = (img.numpy().astype(np.float32) * 0.25 + eq * np.float32(0.375) + eq * np.float32(0.375)).astype(np.uint8)
    np.testing.assert_array_equal(out, want)
    gg.manual_seed(0)
    assert T.AugMix()(img).shape == img.shape and v2.AugMix(severity=1)(img).dtype == gg.uint8
    assert T.AugMix()(PIL.fromarray(np.zeros((8, 8, 3), np.uint8))).size == (8, 8)
    with pytest.raises(ValueError, match="severity"):
        T.AugMix(severity=11)


def test_augmix_matches_torchvision_with_fixed_draws(monkeypatch):
    torch = pytest.importorskip("torch")
    tvT = pytest.importorskip("torchvision.transforms")
    img = _image(seed=10, shape=(3, 12, 12))
    for op, depth in (("Equalize", 2), ("Posterize", 1), ("Solarize", 3), ("AutoContrast", 1)):
        m, weights = [0.2, 0.8], [0.1, 0.6, 0.3]
        ours = _FixedAugMix(m, weights, op, severity=1, chain_depth=depth)(img).numpy()
        theirs_t = tvT.AugMix(severity=1, chain_depth=depth)
        space = theirs_t._augmentation_space(10, (12, 12))
        monkeypatch.setattr(theirs_t, "_augmentation_space", lambda n, size, op=op, space=space: {op: space[op]})
        monkeypatch.setattr(theirs_t, "_sample_dirichlet",
                            lambda p, m=m, w=weights: torch.tensor([m if p.shape[1] == 2 else w] * p.shape[0]))
        theirs = theirs_t(torch.tensor(img.numpy())).numpy()
        assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1, op
    assert repr(T.AugMix()) == repr(tvT.AugMix())


def test_v1_transforms_in_v2_take_samples_with_one_random_choice():
    rng = np.random.default_rng(11)
    image = PIL.fromarray(rng.integers(0, 256, (16, 20, 3)).astype(np.uint8))
    mask = PIL.fromarray(np.asarray(image)[..., 0])
    for seed in range(6):
        gg.manual_seed(seed)
        a, b = v2.RandomResizedCrop(8)(image, mask)
        assert np.array_equal(np.asarray(a)[..., 0], np.asarray(b)), seed
        a, (b, label) = v2.Compose([v2.RandomHorizontalFlip(), v2.RandomRotation(30)])(image, (mask, 4))
        assert np.array_equal(np.asarray(a)[..., 0], np.asarray(b)) and label == 4
    # plain tensors: the first is the image, the rest (a mask, boxes) pass through, as torchvision's
    img, other = _image(), gg.zeros(10, 14)
    flipped, same = v2.RandomHorizontalFlip(p=1.0)(img, other)
    assert flipped.tolist() == img.flip(-1).tolist() and same is other
    one = v2.RandomHorizontalFlip(p=1.0)(img)
    assert one.tolist() == img.flip(-1).tolist() and type(v2.Resize(4)).__name__ == "Resize"
    assert isinstance(v2.Resize(4), T.Resize)


def test_v2_samples_match_torchvision():
    torch = pytest.importorskip("torch")
    tv2 = pytest.importorskip("torchvision.transforms.v2")
    img, other = _image(), _image(seed=1)
    theirs = tv2.RandomHorizontalFlip(p=1.0)(torch.tensor(img.numpy()), torch.tensor(other.numpy()), 3)
    ours = v2.RandomHorizontalFlip(p=1.0)(img, other, 3)
    assert [ours[0].tolist(), ours[1].tolist(), ours[2]] == [theirs[0].tolist(), theirs[1].tolist(), theirs[2]]
    theirs = tv2.Compose([tv2.CenterCrop(6), tv2.ToDtype(torch.float32, scale=True)])(
        {"image": torch.tensor(img.numpy()), "mask": torch.tensor(other.numpy())})
    ours = v2.Compose([v2.CenterCrop(6), v2.ToDtype(gg.float32, scale=True)])({"image": img, "mask": other})
    np.testing.assert_allclose(ours["image"].numpy(), theirs["image"].numpy(), rtol=1e-6)
    assert ours["mask"].tolist() == theirs["mask"].tolist()  # a second plain tensor passes through
