"""datasets.SVHN and datasets.EMNIST. SVHN: torchvision's layout (root/<split>_32x32.mat, read
with scipy.io.loadmat), its data [N, 3, 32, 32] and labels with the files' 10 read as 0, its split check and errors, offline
download=True naming the file, and a DataLoader over it. The .mat files are written here with
scipy.io.savemat in the layout the dataset's site serves (X [32, 32, 3, N] uint8, y [N, 1] 1..10).
EMNIST: its split files under root/EMNIST/raw, torchvision's classes per split, its errors."""
import urllib.error
import urllib.request

import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.data import DatasetNotFoundError
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms as T



def _write_svhn(root, split="train", n=6, seed=0):
    sio = pytest.importorskip("scipy.io")  # SVHN's own reader needs it too
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


def _write_emnist(root, split, n_train=5, n_test=3, seed=1):
    from glassgrad.data import write_idx
    raw = root / "EMNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    out = {}
    for part, n in (("train", n_train), ("test", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(1, 27, n).astype(np.uint8)
        write_idx(str(raw / f"emnist-{split}-{part}-images-idx3-ubyte.gz"), images)
        write_idx(str(raw / f"emnist-{split}-{part}-labels-idx1-ubyte.gz"), labels)
        out[part] = (images, labels)
    return out


def test_emnist_reads_its_split_files_with_torchvisions_classes(tmp_path):
    arrays = _write_emnist(tmp_path, "letters")
    train = datasets.EMNIST(str(tmp_path), split="letters")
    test = datasets.EMNIST(str(tmp_path), split="letters", train=False, transform=T.ToTensor())
    assert len(train) == 5 and len(test) == 3 and train.classes[:3] == ["N/A", "a", "b"] and len(train.classes) == 27
    img, label = train[2]
    np.testing.assert_array_equal(np.asarray(img), arrays["train"][0][2])
    assert label == int(arrays["train"][1][2]) and train.targets.dtype == gg.int64
    assert test[0][0].shape == (1, 28, 28)
    balanced = datasets.EMNIST.classes_split_dict["balanced"]
    assert len(balanced) == 47 and balanced[9:12] == ["9", "A", "B"] and "c" not in balanced
    assert len(datasets.EMNIST.classes_split_dict["byclass"]) == 62


def test_emnist_split_and_missing_files_raise_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match=r"Unknown value 'letter' for argument split"):
        datasets.EMNIST(str(tmp_path), split="letter")
    _write_emnist(tmp_path, "letters")
    with pytest.raises(DatasetNotFoundError, match=r"emnist-digits-train-images-idx3-ubyte[\s\S]*download=True"):
        datasets.EMNIST(str(tmp_path), split="digits")
