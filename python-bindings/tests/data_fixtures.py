"""Small data sets in the layouts real ones have on disk (torchvision's MNIST, FashionMNIST and
CIFAR-10 folders), for tests that read them through glassgrad.vision.datasets."""
import gzip
import os
import pickle
import struct

import numpy as np

from glassgrad.data import write_idx
from glassgrad.utils.data import IterableDataset

CIFAR_CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


def write_mnist(root, name="MNIST", n_train=12, n_test=5, gz=False, seed=0):
    """root/<name>/raw with the four IDX files of n_train and n_test random 28x28 images; returns
    {"train": (images, labels), "t10k": (images, labels)}."""
    raw = os.path.join(root, name, "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(seed)
    arrays = {}
    for split, n in (("train", n_train), ("t10k", n_test)):
        arrays[split] = (rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), rng.integers(0, 10, n).astype(np.uint8))
        suffix = ".gz" if gz else ""
        write_idx(os.path.join(raw, f"{split}-images-idx3-ubyte{suffix}"), arrays[split][0])
        write_idx(os.path.join(raw, f"{split}-labels-idx1-ubyte{suffix}"), arrays[split][1])
    return arrays


def _banded(rng, n):
    """n random labels and 28x28 uint8 images whose class shows as a bright band (so a network
    learns them) over noise."""
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = rng.integers(0, 90, (n, 28, 28), dtype=np.uint8)
    for image, label in zip(images, labels):
        image[2 + 2 * label:5 + 2 * label] += 160
    return images, labels


def write_fashion_mnist(root, n_train=320, n_test=96, seed=0):
    """root/FashionMNIST/raw: IDX files of banded images (_banded)."""
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(seed)
    for split, n in (("train", n_train), ("t10k", n_test)):
        images, labels = _banded(rng, n)
        write_idx(os.path.join(raw, f"{split}-images-idx3-ubyte"), images)
        write_idx(os.path.join(raw, f"{split}-labels-idx1-ubyte"), labels)


def write_fashion_mnist_csv(folder, n_train=512, n_test=128, seed=0):
    """Kaggle's Fashion-MNIST layout in folder: fashion-mnist_train.csv and fashion-mnist_test.csv
    (a header `label,pixel1,...,pixel784`, then one image a row) and the training set's two
    uncompressed IDX files beside them, of banded images (_banded)."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    header = "label," + ",".join(f"pixel{i}" for i in range(1, 785))
    for split, n in (("train", n_train), ("test", n_test)):
        images, labels = _banded(rng, n)
        rows = np.concatenate([labels[:, None], images.reshape(n, 784)], axis=1)
        np.savetxt(os.path.join(folder, f"fashion-mnist_{split}.csv"), rows, fmt="%d", delimiter=",",
                   header=header, comments="")
        if split == "train":
            write_idx(os.path.join(folder, "train-images-idx3-ubyte"), images)
            write_idx(os.path.join(folder, "train-labels-idx1-ubyte"), labels)


class _Python2Pickler(pickle._Pickler):
    """Writes bytes as Python 2's str (SHORT_BINSTRING/BINSTRING), as CIFAR-10's batch files hold
    their keys, names and array data: read with pickle.load(f, encoding="latin1") (torchvision,
    course loaders) they are str, with encoding="bytes" bytes, exactly as from the real files."""
    dispatch = dict(pickle._Pickler.dispatch)

    def _save_py2_str(self, obj):
        n = len(obj)
        head = pickle.SHORT_BINSTRING + bytes([n]) if n < 256 else pickle.BINSTRING + struct.pack("<i", n)
        self.write(head + obj)
        self.memoize(obj)

    dispatch[bytes] = _save_py2_str


def _dump_py2(obj, path):
    with open(path, "wb") as f:
        _Python2Pickler(f, protocol=2).dump(obj)


def write_cifar(root, n_per_batch=4, n_test=None, seed=1):
    """root/cifar-10-batches-py with five training batches of n_per_batch random images, a test
    batch (n_test, default n_per_batch) and the metadata; returns {batch name: (data, labels)}."""
    folder = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    batches = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        n = n_per_batch if name != "test_batch" or n_test is None else n_test
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, n).tolist()
        _dump_py2({b"data": data, b"labels": labels, b"batch_label": name.encode()}, os.path.join(folder, name))
        batches[name] = (data, labels)
    _dump_py2({b"label_names": [c.encode() for c in CIFAR_CLASSES]}, os.path.join(folder, "batches.meta"))
    return batches


def write_mnist_pickle(path, n_train=512, n_valid=128, seed=0):
    """The pickle nn_tutorial.py downloads (deeplearning.net's mnist.pkl.gz): gzip of
    ((x_train, y_train), (x_valid, y_valid), (x_test, y_test)), x float32 rows of 784 pixels in
    [0, 1], y int64. Each class is a bright band of rows over noise, so the models learn it."""
    rng = np.random.default_rng(seed)
    sets = []
    for n in (n_train, n_valid, n_valid):
        y = rng.integers(0, 10, n).astype(np.int64)
        x = (rng.random((n, 28, 28)) * 0.3).astype(np.float32)
        for i, c in enumerate(y):
            x[i, 2 + 2 * c:4 + 2 * c, :] += 0.7
        sets.append((x.reshape(n, 784), y))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wb") as f:
        pickle.dump(tuple(sets), f, protocol=2)

# the ten ImageNet classes of fast.ai's Imagenette (folder names of its train/ and val/)
IMAGENETTE_CLASSES = ["n01440764", "n02102040", "n02979186", "n03000684", "n03028079", "n03394916", "n03417042",
                      "n03425413", "n03445777", "n03888605"]


def write_imagenette(root, name="imagenette-160", n_train=3, n_valid=1, size=(160, 200), seed=0):
    """root/<name>: Imagenette's layout, <split>/<class>/<image>.JPEG for train/ and val/, with
    n_train and n_valid random RGB JPEGs of size (height, width) a class."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for split, n in (("train", n_train), ("val", n_valid)):
        for c in IMAGENETTE_CLASSES:
            os.makedirs(os.path.join(root, name, split, c), exist_ok=True)
            for i in range(n):
                image = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
                Image.fromarray(image).save(os.path.join(root, name, split, c, f"{c}_{i}.JPEG"))

def write_cifar100(root, n_train=8, n_test=4, seed=2):
    """root/cifar-100-python with the train and test files of n_train and n_test random images
    (the keys of the real pickles: data, fine_labels, coarse_labels, filenames, batch_label) and
    meta (fine_label_names, coarse_label_names); returns {file: (data, fine labels)}."""
    folder = os.path.join(root, "cifar-100-python")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = {}
    for name, n in (("train", n_train), ("test", n_test)):
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        fine = rng.integers(0, 100, n).tolist()
        _dump_py2({b"data": data, b"fine_labels": fine, b"coarse_labels": [c // 5 for c in fine],
                   b"filenames": [f"image_{i}.png".encode() for i in range(n)],
                   b"batch_label": f"{name}ing batch 1 of 1".encode()}, os.path.join(folder, name))
        files[name] = (data, fine)
    _dump_py2({b"fine_label_names": [f"class_{i}".encode() for i in range(100)],
               b"coarse_label_names": [f"superclass_{i}".encode() for i in range(20)]}, os.path.join(folder, "meta"))
    return files


def write_course_data(folder):
    """folder/data with the small MNIST (256 training, 64 test images) and CIFAR-10 (40 images a
    batch file) that the course notebooks' ports read (rasbt's deeplearning-models and stat453)."""
    write_mnist(os.path.join(folder, "data"), n_train=256, n_test=64)
    write_cifar(os.path.join(folder, "data"), n_per_batch=40, n_test=40)


class Count(IterableDataset):
    """0, 1, ..., n - 1 as an iterable data set of length n."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def write_signs(root, n_train=40, n_test=12, size=96, seed=0):
    """root/train_signs and root/test_signs: random RGB JPEGs named as the SIGNS data set's
    (`<label>_IMG_<number>.jpg`, labels 0-5), the layout cs230's build_dataset.py reads."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for split, n in (("train_signs", n_train), ("test_signs", n_test)):
        os.makedirs(os.path.join(root, split), exist_ok=True)
        for i in range(n):
            image = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
            Image.fromarray(image).save(os.path.join(root, split, f"{i % 6}_IMG_{1000 + i}.jpg"))


# (image id, class 1-37, species 1 cat / 2 dog) as the Oxford-IIIT Pet lists write them
PETS = [("Abyssinian_1", 1, 1), ("american_bulldog_10", 2, 2), ("Abyssinian_2", 1, 1),
        ("great_pyrenees_3", 15, 2), ("american_bulldog_4", 2, 2)]


def write_oxford_pets(root, pets=PETS, test=PETS[:2], seed=0):
    """root/oxford-iiit-pet with random JPEGs in images/, the trimaps (1-3) in annotations/trimaps/
    and the trainval.txt / test.txt lists of the real archives (`<id> <class> <species> <breed id>`)."""
    from PIL import Image
    base = os.path.join(root, "oxford-iiit-pet")
    os.makedirs(os.path.join(base, "images"), exist_ok=True)
    os.makedirs(os.path.join(base, "annotations", "trimaps"), exist_ok=True)
    rng = np.random.default_rng(seed)
    for image_id, _, _ in pets:
        Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)).save(
            os.path.join(base, "images", f"{image_id}.jpg"))
        Image.fromarray(rng.integers(1, 4, (20, 24), dtype=np.uint8)).save(
            os.path.join(base, "annotations", "trimaps", f"{image_id}.png"))
    for split, rows in (("trainval", pets), ("test", test)):
        with open(os.path.join(base, "annotations", f"{split}.txt"), "w", encoding="utf-8") as f:
            f.writelines(f"{image_id} {label} {species} {i + 1}\n" for i, (image_id, label, species) in enumerate(rows))
