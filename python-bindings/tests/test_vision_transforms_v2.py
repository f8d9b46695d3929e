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
    with pytest.raises(TypeError, match="non-empty sequence"):
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
