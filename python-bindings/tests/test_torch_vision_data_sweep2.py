"""torchvision.datasets (MNIST family, ImageFolder, DatasetFolder) on small files written in the
standard formats, and torchvision.utils.make_grid/save_image, each case called with
glassgrad.vision and with torchvision. (CIFAR10 is left out: torchvision checks its files' MD5
sums, which small stand-in files cannot match; test_data_cifar covers it.)"""
import io
import os

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.vision as gv
from sweep_outcomes import assert_same_outcome

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
Image = pytest.importorskip("PIL.Image")

X = np.random.default_rng(2).random((5, 3, 4, 6)).astype(np.float32)


def V(m):
    return torchvision if m is torch else gv


def _idx_file(path, arr):
    header = bytes([0, 0, 8, arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    with open(path, "wb") as f:
        f.write(header + arr.tobytes())


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    rng = np.random.default_rng(1)
    base = str(tmp_path_factory.mktemp("vision_data"))
    for name in ("MNIST", "FashionMNIST", "KMNIST"):
        raw = os.path.join(base, name, "raw")
        os.makedirs(raw)
        for split, n in (("train", 5), ("t10k", 3)):
            images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
            _idx_file(os.path.join(raw, f"{split}-images-idx3-ubyte"), images)
            _idx_file(os.path.join(raw, f"{split}-labels-idx1-ubyte"), rng.integers(0, 10, (n,), dtype=np.uint8))
    folder = os.path.join(base, "folder")
    for cls, n in (("dog", 2), ("cat", 3), ("Zebra", 1)):
        os.makedirs(os.path.join(folder, cls))
        for i in range(n):
            Image.fromarray(rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)).save(os.path.join(folder, cls, f"{i}.png"))
    with open(os.path.join(folder, "cat", "notes.txt"), "w") as f:
        f.write("x")
    os.makedirs(os.path.join(folder, "empty"))
    processed = os.path.join(base, "legacy", "MNIST", "processed")  # torchvision's old processed files
    os.makedirs(processed)
    for name, n in (("training.pt", 4), ("test.pt", 2)):
        torch.save((torch.from_numpy(rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)),
                    torch.from_numpy(rng.integers(0, 10, (n,)))), os.path.join(processed, name))
    return base


def _mnist(name, train):
    def case(m, root):
        d = getattr(V(m).datasets, name)(root, train=train)
        return len(d), d[0], d[-1], d.targets, d.data, d.classes, d.class_to_idx, d.train, repr(d)
    return case


def _folder(m, root):
    d = V(m).datasets.ImageFolder(os.path.join(root, "folder"), allow_empty=True)
    return (len(d), d.classes, d.class_to_idx, [(os.path.relpath(p, root), t) for p, t in d.samples], d.targets,
            [(os.path.relpath(p, root), t) for p, t in d.imgs], d[0], repr(d).replace(root, "ROOT"))


def _save(m, t, fmt="png", **kwargs):
    b = io.BytesIO()
    V(m).utils.save_image(t, b, format=fmt, **kwargs)
    b.seek(0)
    return Image.open(b).convert("RGB")


DATASETS = {
    **{f"{name} train={train}": _mnist(name, train) for name in ("MNIST", "FashionMNIST", "KMNIST")
       for train in (True, False)},
    "MNIST transforms": lambda m, root: V(m).datasets.MNIST(root, transform=V(m).transforms.ToTensor(),
                                                            target_transform=lambda t: t + 100)[1],
    "MNIST download with the files present": lambda m, root: len(V(m).datasets.MNIST(root, download=True)),
    "MNIST old processed files": lambda m, root: [(lambda d: (len(d), d[0], d.targets, d.data))(
        V(m).datasets.MNIST(os.path.join(root, "legacy"), train=train)) for train in (True, False)],
    "MNIST missing": lambda m, root: V(m).datasets.MNIST(os.path.join(root, "nope")),
    "MNIST folders and legacy names": lambda m, root: (lambda d: (
        os.path.relpath(d.raw_folder, root), os.path.relpath(d.processed_folder, root), d.train_labels.shape,
        d.test_data.shape))(V(m).datasets.MNIST(root)),
    "ImageFolder": _folder,
    "ImageFolder with an empty class": lambda m, root: V(m).datasets.ImageFolder(os.path.join(root, "folder")),
    "ImageFolder transforms": lambda m, root: V(m).datasets.ImageFolder(
        os.path.join(root, "folder"), transform=V(m).transforms.ToTensor(), target_transform=lambda t: -t,
        allow_empty=True)[3],
    "ImageFolder is_valid_file": lambda m, root: [os.path.basename(p) for p, _ in V(m).datasets.ImageFolder(
        os.path.join(root, "folder"), is_valid_file=lambda p: p.endswith("txt") or p.endswith("0.png"),
        allow_empty=True).samples],
    "DatasetFolder": lambda m, root: (lambda d: (len(d), d.extensions, d[0]))(V(m).datasets.DatasetFolder(
        os.path.join(root, "folder"), loader=os.path.basename, extensions=(".txt",), allow_empty=True)),
    "DatasetFolder without extensions": lambda m, root: V(m).datasets.DatasetFolder(os.path.join(root, "folder"),
                                                                                   loader=os.path.basename),
    "find_classes": lambda m, root: V(m).datasets.folder.find_classes(os.path.join(root, "folder")),
    "make_dataset": lambda m, root: [(os.path.basename(p), t) for p, t in V(m).datasets.folder.make_dataset(
        os.path.join(root, "folder"), {"cat": 0, "dog": 1}, extensions=".png")],
    "IMG_EXTENSIONS": lambda m, root: V(m).datasets.folder.IMG_EXTENSIONS,
    "default_loader": lambda m, root: V(m).datasets.folder.default_loader(os.path.join(root, "folder", "dog", "0.png")),
    "FakeData": lambda m, root: (lambda d: (len(d), d[0][0].size, type(d[0][1]).__name__))(
        V(m).datasets.FakeData(5, (3, 8, 9), 4)),
}

GRID_KWARGS = [{}, {"nrow": 2}, {"padding": 0}, {"normalize": True}, {"normalize": True, "value_range": (0.2, 0.8)},
               {"normalize": True, "scale_each": True}, {"pad_value": 0.5}, {"nrow": 10},
               {"padding": 3, "pad_value": 1}]

UTILS = {
    **{f"make_grid {kw}": (lambda kw: lambda m: V(m).utils.make_grid(m.tensor(X), **kw))(kw) for kw in GRID_KWARGS},
    "make_grid one channel": lambda m: V(m).utils.make_grid(m.tensor(X[:, :1])),
    "make_grid 2-d": lambda m: V(m).utils.make_grid(m.tensor(X[0, 0])),
    "make_grid 3-d": lambda m: V(m).utils.make_grid(m.tensor(X[0])),
    "make_grid 3-d one channel": lambda m: V(m).utils.make_grid(m.tensor(X[0, :1])),
    "make_grid list": lambda m: V(m).utils.make_grid([m.tensor(x) for x in X[:3]], nrow=2),
    "make_grid one image": lambda m: V(m).utils.make_grid(m.tensor(X[:1]), padding=5),
    "make_grid two channels": lambda m: V(m).utils.make_grid(m.tensor(X[:, :2])),
    "make_grid uint8": lambda m: V(m).utils.make_grid(m.tensor((X * 255).astype(np.uint8))),
    "make_grid uint8 normalize": lambda m: V(m).utils.make_grid(m.tensor((X * 255).astype(np.uint8)), normalize=True),
    "make_grid constant normalize": lambda m: V(m).utils.make_grid(m.ones(2, 3, 2, 2), normalize=True),
    "make_grid value_range not a tuple": lambda m: V(m).utils.make_grid(m.tensor(X), normalize=True, value_range=0.5),
    "make_grid of an array": lambda m: V(m).utils.make_grid(X),
    "make_grid list of mixed sizes": lambda m: V(m).utils.make_grid([m.zeros(3, 2, 2), m.zeros(3, 3, 3)]),
    "make_grid 5-d": lambda m: V(m).utils.make_grid(m.zeros(1, 1, 3, 2, 2)),
    "make_grid of no images": lambda m: V(m).utils.make_grid(m.zeros(0, 3, 2, 2)),
    "make_grid normalize leaves its input": lambda m: (lambda t: (V(m).utils.make_grid(t, normalize=True), t))(
        m.tensor(X[:2] * 3)),
    "save_image": lambda m: _save(m, m.tensor(X)),
    "save_image nrow padding": lambda m: _save(m, m.tensor(X), nrow=3, padding=1),
    "save_image one channel": lambda m: _save(m, m.tensor(X[0, :1])),
    "save_image rounding and clamping": lambda m: _save(m, m.tensor(np.linspace(-0.2, 1.2, 48, dtype=np.float32)
                                                                 .reshape(1, 3, 4, 4))),
    "save_image list": lambda m: _save(m, [m.tensor(x) for x in X[:2]]),
    "save_image normalize": lambda m: _save(m, m.tensor(X * 5 - 2), normalize=True),
    "save_image 2-d": lambda m: _save(m, m.tensor(X[0, 0])),
    "save_image uint8": lambda m: _save(m, m.tensor((X * 255).astype(np.uint8))),
    "save_image two channels": lambda m: _save(m, m.tensor(X[:1, :2])),
    "save_image jpeg size": lambda m: _save(m, m.tensor(X), fmt="jpeg").size,
}


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_dataset_as_torchvision(name, root):
    assert_same_outcome(lambda m: DATASETS[name](m, root), gg, torch)


@pytest.mark.parametrize("name", sorted(UTILS))
def test_utils_as_torchvision(name):
    assert_same_outcome(UTILS[name], gg, torch)
