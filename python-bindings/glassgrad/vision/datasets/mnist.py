"""MNIST, Fashion-MNIST, KMNIST and EMNIST with torchvision's layout: root/MNIST/raw
(root/FashionMNIST/raw, ...) holds the four IDX files (EMNIST's named emnist-<split>-...), plain or
gzip-compressed (glassgrad.data.idx reads both). A sample is
(PIL image 'L' 28x28, int label); .data is a uint8 tensor [N, 28, 28], .targets an int64
tensor [N]."""
from __future__ import annotations

import operator
import os
import string
import warnings
import zipfile
from typing import Callable, Dict, List, Optional

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ...data.idx import read_idx
from ...utils.data._utils.pin_memory import new_tensor
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST"]


class MNIST(VisionDataset):
    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"  # torchvision's names of its old processed files
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        self._data = self._targets = None
        if self._check_legacy_exist():
            self._images, self._labels = self._load_legacy_data()
            return
        if download:
            self.download()
        if not self._check_exists():
            missing = ", ".join(n for n in self._files() if self._find(n) is None)
            raise DatasetNotFoundError(
                f"Dataset not found. You can use download=True to download it\n"
                f"  {type(self).__name__} looked in {self.raw_folder} for {missing} (plain or .gz)\n"
                f"  fix: {type(self).__name__}(root={self.root!r}, download=True), or copy the files there")
        self._images, self._labels = self._load_data()

    # ---- files ----
    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "processed")

    def _files(self) -> List[str]:
        return ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                "t10k-labels-idx1-ubyte"]

    def _find(self, name: str) -> Optional[str]:
        for candidate in (name, name + ".gz"):
            path = os.path.join(self.raw_folder, candidate)
            if os.path.isfile(path):
                return path
        return None

    def _check_legacy_exist(self) -> bool:
        """Whether processed_folder holds torchvision's old processed files (training_file and
        test_file, saved by torch.save): torchvision reads them before the raw files."""
        return all(os.path.isfile(os.path.join(self.processed_folder, f)) for f in (self.training_file, self.test_file))

    def _load_legacy_data(self):
        from ...serialization import load
        path = os.path.join(self.processed_folder, self.training_file if self.train else self.test_file)
        data, targets = load(path, weights_only=True)
        images, labels = data.numpy(force=True), targets.numpy(force=True)
        if images.ndim != 3 or images.dtype != np.uint8 or labels.shape[:1] != images.shape[:1]:
            raise DataFormatError(f"{path}: expected (uint8 images [N, H, W], labels [N]), got {images.dtype} "
                                  f"{list(images.shape)} and {list(labels.shape)}")
        return images, labels.astype(np.int64)

    def _check_exists(self) -> bool:
        return all(self._find(n) is not None for n in self._files())

    def download(self) -> None:
        """Fetches and extracts the four files into raw_folder, unless they are there already."""
        if self._check_exists():
            return
        _download.download_all(type(self).__name__, self.resources, self.mirrors, self.raw_folder, _download.gunzip)

    def _split_files(self):
        """The (images, labels) files this split reads."""
        split = "train" if self.train else "t10k"
        return f"{split}-images-idx3-ubyte", f"{split}-labels-idx1-ubyte"

    _label_ndim = 1  # one label per image (QMNIST: a row of 8)

    def _load_data(self):
        images_name, labels_name = self._split_files()
        images_path, labels_path = self._find(images_name), self._find(labels_name)
        images, labels = read_idx(images_path), read_idx(labels_path)
        if images.ndim != 3 or images.dtype != np.uint8:
            raise DataFormatError(f"{images_path}: expected uint8 images [N, H, W], got {images.dtype} "
                                  f"{list(images.shape)}")
        if labels.ndim != self._label_ndim or labels.shape[0] != images.shape[0]:
            raise DataFormatError(f"{labels_path}: {labels.shape} labels for {images.shape[0]} images in {images_path}")
        return images, labels.astype(np.int64)

    # ---- torchvision's attributes ----
    @property
    def data(self):
        """The images: a uint8 tensor [N, H, W]."""
        if self._data is None:
            self._data = new_tensor(self._images)
        return self._data

    @property
    def targets(self):
        """The labels: an int64 tensor [N]."""
        if self._targets is None:
            self._targets = new_tensor(self._labels)
        return self._targets

    @property
    def class_to_idx(self) -> Dict[str, int]:
        return {c: i for i, c in enumerate(self.classes)}

    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data")
        return self.data

    def __getitem__(self, index: int):
        n = len(self._images)
        if not -n <= operator.index(index) < n:
            # torchvision's MNIST indexes its .data tensor: a tensor's message, not NumPy's ("axis")
            raise IndexError(f"index {operator.index(index)} is out of bounds for dimension 0 with size {n}\n"
                             f"  {type(self).__name__}: this split holds {n} images\n"
                             f"  fix: use an index in [{-n}, {n - 1}] (a sampler's indices must come from range(len(dataset)))")
        img = _image.require_pil().fromarray(self._images[index], mode="L")
        target = int(self._labels[index])
        return self._apply_transforms(img, target)

    def __len__(self) -> int:
        return len(self._images)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_data"] = state["_targets"] = None  # workers get the arrays, not tensors
        return state

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


class KMNIST(MNIST):
    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


class EMNIST(MNIST):
    """EMNIST (torchvision.datasets.EMNIST): split byclass, bymerge, balanced, letters, digits or
    mnist; root/EMNIST/raw/emnist-<split>-{train,test}-{images-idx3,labels-idx1}-ubyte[.gz], the
    files of the dataset's gzip.zip. Images are stored as the files hold them (transposed, as
    torchvision leaves them)."""
    url = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
    md5 = "58c8d27c78d21e728a6bc7b3cc06412e"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = {"c", "i", "j", "k", "l", "m", "o", "p", "s", "u", "v", "w", "x", "y", "z"}
    _all_classes = set(string.digits + string.ascii_letters)
    classes_split_dict = {
        "byclass": sorted(_all_classes),
        "bymerge": sorted(_all_classes - _merged_classes),
        "balanced": sorted(_all_classes - _merged_classes),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root, split: str, **kwargs) -> None:
        if split not in self.splits:
            valid = "{" + ", ".join(repr(s) for s in self.splits) + "}"
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are {valid}.\n"
                             f"  fix: EMNIST(root, split='balanced')")
        self.split = split
        self.training_file = f"training_{split}.pt"
        self.test_file = f"test_{split}.pt"
        super().__init__(root, **kwargs)
        self.classes = self.classes_split_dict[split]

    def _files(self) -> List[str]:
        return [f"emnist-{self.split}-{part}-{kind}" for part in ("train", "test")
                for kind in ("images-idx3-ubyte", "labels-idx1-ubyte")]

    def _split_files(self):
        prefix = f"emnist-{self.split}-{'train' if self.train else 'test'}"
        return f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"

    def download(self) -> None:
        """Fetches gzip.zip (every split's files) into raw_folder and extracts the .gz files of
        its gzip/ folder there, unless this split's files are there already."""
        if self._check_exists():
            return

        def extract(path: str) -> None:
            with zipfile.ZipFile(path) as z:
                for member in z.namelist():
                    name = os.path.basename(member)
                    if member.startswith("gzip/") and name.endswith(".gz") and ".." not in member.split("/"):
                        with z.open(member) as src, open(os.path.join(self.raw_folder, name), "wb") as dst:
                            dst.write(src.read())
        _download.download_all("EMNIST", [("gzip.zip", self.md5)], [self.url[:-len("gzip.zip")]], self.raw_folder,
                               extract)


class QMNIST(MNIST):
    """QMNIST (torchvision.datasets.QMNIST; Yadav & Bottou 2019): what = "train", "test",
    "test10k" (the first 10,000 test images), "test50k" (the rest) or "nist"; root/QMNIST/raw holds
    qmnist-{train,test}-images-idx3-ubyte and qmnist-{train,test}-labels-idx2-int (xnist-... for
    "nist"), plain or gzip-compressed (an .xz file is decompressed beside itself on first use).
    Labels are int64 [N, 8] rows; compat=True makes a sample's target the class (column 0), else
    the whole row as a tensor."""
    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test", "nist": "nist"}
    mirrors = ["https://raw.githubusercontent.com/facebookresearch/qmnist/master/"]
    _resources = {
        "train": [("qmnist-train-images-idx3-ubyte.gz", "ed72d4157d28c017586c42bc6afe6370"),
                  ("qmnist-train-labels-idx2-int.gz", "0058f8dd561b90ffdd0f734c6a30e5e4")],
        "test": [("qmnist-test-images-idx3-ubyte.gz", "1394631089c404de565df7b7aeaf9412"),
                 ("qmnist-test-labels-idx2-int.gz", "5b5b05890a5e13444e108efe57b788aa")],
        "nist": [("xnist-images-idx3-ubyte.xz", "7f124b3b8ab81486c9d8c2749c17f834"),
                 ("xnist-labels-idx2-int.xz", "5ed0e788978e45d4a8bd4b7caec3d79d")],
    }

    def __init__(self, root, what: Optional[str] = None, compat: bool = True, train: bool = True, **kwargs) -> None:
        what = ("train" if train else "test") if what is None else what
        if what not in self.subsets:
            valid = "{" + ", ".join(repr(s) for s in self.subsets) + "}"
            raise ValueError(f"Unknown value '{what}' for argument what. Valid values are {valid}.\n"
                             f"  fix: QMNIST(root, what='test10k')")
        self.what, self.compat = what, compat
        self.resources = self._resources[self.subsets[what]]
        self.data_file = self.training_file = self.test_file = what + ".pt"
        super().__init__(root, train, **kwargs)

    def _files(self) -> List[str]:
        return [os.path.splitext(name)[0] for name, _ in self.resources]

    def _split_files(self):
        images, labels = self._files()
        return images, labels

    def _find(self, name: str) -> Optional[str]:
        found = super()._find(name)
        packed = os.path.join(self.raw_folder, name + ".xz")
        if found is None and os.path.isfile(packed):
            import lzma
            with lzma.open(packed) as src, open(os.path.join(self.raw_folder, name), "wb") as dst:
                dst.write(src.read())
            found = os.path.join(self.raw_folder, name)
        return found

    def download(self) -> None:
        """Fetches this subset's two files into raw_folder (the .gz ones decompressed), unless there."""
        if self._check_exists():
            return
        _download.download_all("QMNIST", self.resources, self.mirrors, self.raw_folder,
                               lambda path: _download.gunzip(path) if path.endswith(".gz") else None)

    _label_ndim = 2

    def _load_data(self):
        images, labels = super()._load_data()
        if self.what == "test10k":
            images, labels = images[:10000], labels[:10000]
        elif self.what == "test50k":
            images, labels = images[10000:], labels[10000:]
        return np.ascontiguousarray(images), np.ascontiguousarray(labels)

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(self._images[index], mode="L")
        if self.transform is not None:
            img = self.transform(img)
        target = int(self._labels[index][0]) if self.compat else new_tensor(self._labels[index].copy())
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self) -> str:
        return f"Split: {self.what}"
