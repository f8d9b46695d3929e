"""datasets.SVHN: torchvision's layout (root/<split>_32x32.mat, read with scipy.io.loadmat), its
data [N, 3, 32, 32] and labels with the files' 10 read as 0, its split check and errors, offline
download=True naming the file, and a DataLoader over it. The .mat files are written here with
scipy.io.savemat in the layout the dataset's site serves (X [32, 32, 3, N] uint8, y [N, 1] 1..10)."""
import urllib.error
import urllib.request

import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.data import DatasetNotFoundError
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms as T

sio = pytest.importorskip("scipy.io")


def _write_svhn(root, split="train", n=6, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, (32, 32, 3, n), dtype=np.uint8)
    y = rng.integers(1, 11, (n, 1)).astype(np.uint8)
    y[0, 0] = 10  # the files' zero
    sio.savemat(str(root / f"{split}_32x32.mat"), {"X": x, "y": y})
    return x, y


def test_svhn_reads_the_mat_files_as_torchvision(tmp_path):
    x, y = _write_svhn(tmp_path, "train", n=6)
    ds = datasets.SVHN(str(tmp_path), split="train")
    assert len(ds) == 6 and ds.data.shape == (6, 3, 32, 32) and ds.data.dtype == np.uint8
    np.testing.assert_array_equal(ds.data, np.transpose(x, (3, 2, 0, 1)))
    np.testing.assert_array_equal(ds.labels, np.where(y[:, 0] == 10, 0, y[:, 0]).astype(np.int64))
    img, label = ds[3]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (32, 32)
    np.testing.assert_array_equal(np.asarray(img), x[:, :, :, 3])
    assert label == int(ds.labels[3]) and isinstance(label, int) and ds[0][1] == 0
    assert "Split: train" in repr(ds)


def test_svhn_with_transforms_in_a_data_loader(tmp_path):
    x, _ = _write_svhn(tmp_path, "test", n=5)
    ds = datasets.SVHN(str(tmp_path), split="test", transform=T.ToTensor(), target_transform=lambda t: t + 100)
    images, labels = next(iter(DataLoader(ds, batch_size=4)))
    assert images.shape == (4, 3, 32, 32) and images.dtype == gg.float32 and labels.min().item() >= 100
    np.testing.assert_allclose(images[1].numpy(), np.transpose(x[:, :, :, 1], (2, 0, 1)) / 255.0, rtol=1e-6)


def test_svhn_split_and_missing_files_raise_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match=r"Unknown value 'val' for argument split. Valid values are "
                                         r"\{'train', 'test', 'extra'\}"):
        datasets.SVHN(str(tmp_path), split="val")
    with pytest.raises(DatasetNotFoundError, match=r"Dataset not found[\s\S]*train_32x32.mat[\s\S]*download=True"):
        datasets.SVHN(str(tmp_path))


def test_svhn_download_offline_names_the_file(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(DatasetNotFoundError, match=r"could not fetch[\s\S]*extra_32x32.mat[\s\S]*no network"):
        datasets.SVHN(str(tmp_path), split="extra", download=True)
    _write_svhn(tmp_path, "extra", n=2)
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("nothing should be downloaded"))
    assert len(datasets.SVHN(str(tmp_path), split="extra", download=True)) == 2
