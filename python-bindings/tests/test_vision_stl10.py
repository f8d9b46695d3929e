"""datasets.STL10: torchvision's layout (root/stl10_binary/*.bin, raw uint8 images written channel
by channel, each channel column-major; labels 1..10 as one byte each), its splits (train, test,
unlabeled, train+unlabeled with -1 labels), folds from fold_indices.txt, class names, errors,
and a DataLoader over it. The files are written here in the archive's binary layout."""
import os

import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.data import DatasetNotFoundError
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms as T

CLASSES = ["airplane", "bird", "car", "cat", "deer", "dog", "horse", "monkey", "ship", "truck"]


def _write(root, name, n, seed, labels=True):
    folder = os.path.join(root, "stl10_binary")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (n, 3, 96, 96), dtype=np.uint8)  # (N, C, H, W), rows first
    # the file holds each channel column by column: (N, C, W, H) in C order
    np.ascontiguousarray(images.transpose(0, 1, 3, 2)).tofile(os.path.join(folder, f"{name}_X.bin"))
    y = None
    if labels:
        y = rng.integers(1, 11, n).astype(np.uint8)
        y.tofile(os.path.join(folder, f"{name}_y.bin"))
    return images, y


def _write_all(root):
    train = _write(root, "train", 5, 0)
    test = _write(root, "test", 3, 1)
    unlabeled = _write(root, "unlabeled", 2, 2, labels=False)
    folder = os.path.join(root, "stl10_binary")
    with open(os.path.join(folder, "class_names.txt"), "w") as f:
        f.write("\n".join(CLASSES) + "\n")
    with open(os.path.join(folder, "fold_indices.txt"), "w") as f:
        f.write("0 2 4\n1 3\n" + "0\n" * 8)
    return train, test, unlabeled


def test_stl10_reads_the_binary_files_as_torchvision(tmp_path):
    (x, y), (xt, yt), (xu, _) = _write_all(str(tmp_path))
    ds = datasets.STL10(str(tmp_path), split="train")
    assert len(ds) == 5 and ds.data.shape == (5, 3, 96, 96) and ds.data.dtype == np.uint8
    np.testing.assert_array_equal(ds.data, x)
    np.testing.assert_array_equal(ds.labels, y.astype(np.int64) - 1)
    img, label = ds[2]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (96, 96)
    np.testing.assert_array_equal(np.asarray(img), x[2].transpose(1, 2, 0))
    assert label == int(y[2]) - 1 and isinstance(label, int)
    assert ds.classes == CLASSES
    assert "Split: train" in repr(ds) and "Number of datapoints: 5" in repr(ds)
    test = datasets.STL10(str(tmp_path), split="test")
    np.testing.assert_array_equal(test.data, xt)
    np.testing.assert_array_equal(test.labels, yt.astype(np.int64) - 1)


def test_stl10_unlabeled_splits_label_minus_one(tmp_path):
    (x, y), _, (xu, _) = _write_all(str(tmp_path))
    un = datasets.STL10(str(tmp_path), split="unlabeled")
    np.testing.assert_array_equal(un.data, xu)
    assert un.labels.tolist() == [-1, -1] and un[1][1] == -1
    both = datasets.STL10(str(tmp_path), split="train+unlabeled")
    np.testing.assert_array_equal(both.data, np.concatenate([x, xu]))
    assert both.labels.tolist() == (y.astype(np.int64) - 1).tolist() + [-1, -1]


def test_stl10_folds_select_the_listed_training_images(tmp_path):
    (x, y), _, _ = _write_all(str(tmp_path))
    ds = datasets.STL10(str(tmp_path), split="train", folds=0)
    np.testing.assert_array_equal(ds.data, x[[0, 2, 4]])
    np.testing.assert_array_equal(ds.labels, y[[0, 2, 4]].astype(np.int64) - 1)
    assert len(datasets.STL10(str(tmp_path), split="train", folds=1)) == 2
    with pytest.raises(ValueError, match=r"range \[0, 10\)"):
        datasets.STL10(str(tmp_path), folds=10)
    with pytest.raises(ValueError, match="Expected type None or int"):
        datasets.STL10(str(tmp_path), folds="0")


def test_stl10_errors_name_the_split_and_the_files(tmp_path):
    with pytest.raises(ValueError, match="Unknown value 'val' for argument split"):
        datasets.STL10(str(tmp_path), split="val")
    with pytest.raises(RuntimeError, match="Dataset not found") as info:
        datasets.STL10(str(tmp_path), split="test")
    assert isinstance(info.value, DatasetNotFoundError) and "test_X.bin" in str(info.value)
    _write(str(tmp_path), "test", 1, 0)
    with open(os.path.join(str(tmp_path), "stl10_binary", "test_X.bin"), "ab") as f:
        f.write(b"\0" * 7)  # a truncated image
    with pytest.raises(ValueError, match="whole number of 3x96x96 images"):
        datasets.STL10(str(tmp_path), split="test")


def test_stl10_batches_through_a_data_loader(tmp_path):
    (x, y), _, _ = _write_all(str(tmp_path))
    ds = datasets.STL10(str(tmp_path), split="train", transform=T.ToTensor())
    images, labels = next(iter(DataLoader(ds, batch_size=4)))
    assert tuple(images.shape) == (4, 3, 96, 96) and images.dtype == gg.float32
    np.testing.assert_allclose(images.numpy(), x[:4] / 255.0, rtol=1e-6)
    assert labels.tolist() == (y[:4].astype(np.int64) - 1).tolist()
