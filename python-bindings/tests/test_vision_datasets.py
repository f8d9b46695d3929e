"""glassgrad.vision.datasets: MNIST, FashionMNIST, CIFAR10 and ImageFolder read torchvision's
file layouts, FakeData is repeatable, and download=True fetches (checked by MD5) or, without a
network, says which files are missing and where they go."""
import gzip
import hashlib
import os
import pickle
import urllib.error
import urllib.request

import numpy as np
import pytest
from PIL import Image

import glassgrad as gg
from glassgrad.data import DatasetNotFoundError, write_idx
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms as T

from data_fixtures import write_cifar, write_mnist

MNIST_FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
               "t10k-labels-idx1-ubyte"]


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_torchvision_layout(tmp_path, gz):
    arrays = write_mnist(str(tmp_path), gz=gz)
    train = datasets.MNIST(str(tmp_path), train=True)
    test = datasets.MNIST(str(tmp_path), train=False, transform=T.ToTensor())
    assert len(train) == 12 and len(test) == 5
    img, label = train[3]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (28, 28)
    assert np.array_equal(np.asarray(img), arrays["train"][0][3]) and label == int(arrays["train"][1][3])
    assert isinstance(label, int)
    x, _ = test[0]
    assert isinstance(x, gg.Tensor) and x.shape == (1, 28, 28)
    assert train.data.dtype == "uint8" and train.data.shape == (12, 28, 28)
    assert train.targets.dtype == "int64" and train.targets.numpy().tolist() == arrays["train"][1].tolist()
    assert train.classes[0] == "0 - zero" and train.class_to_idx["9 - nine"] == 9
    assert train.raw_folder == os.path.join(str(tmp_path), "MNIST", "raw")
    assert "Split: Train" in repr(train) and "Number of datapoints: 12" in repr(train)


def test_mnist_index_out_of_range_says_what_torchvisions_says(tmp_path):
    # a course helper samples indices of the 60000-image set (SubsetRandomSampler(arange(55000)))
    # from a smaller copy: torchvision's message (it indexes a tensor), then the fix
    write_mnist(str(tmp_path))
    train = datasets.MNIST(str(tmp_path), train=True)
    assert train[gg.tensor(11)][1] == train[-1][1] == train[11][1]
    for index in (gg.tensor(33488), 12, -13, np.int64(40)):
        with pytest.raises(IndexError) as info:
            train[index]
        first, *rest = str(info.value).split("\n")
        assert first == f"index {int(index)} is out of bounds for dimension 0 with size 12" and "fix:" in rest[-1]
    tv = pytest.importorskip("torchvision")
    theirs = tv.datasets.MNIST(str(tmp_path), train=True)
    torch = pytest.importorskip("torch")
    for index in (torch.tensor(33488), 12, -13):
        with pytest.raises(IndexError) as pt:
            theirs[index]
        assert str(pt.value) == f"index {int(index)} is out of bounds for dimension 0 with size 12"


def test_fashion_mnist_has_its_folder_and_classes(tmp_path):
    write_mnist(str(tmp_path), name="FashionMNIST")
    ds = datasets.FashionMNIST(str(tmp_path))
    assert ds.classes[0] == "T-shirt/top" and len(ds) == 12
    with pytest.raises(DatasetNotFoundError):
        datasets.MNIST(str(tmp_path))  # its files are in FashionMNIST/raw, not MNIST/raw


def test_missing_files_raise_with_the_folder_and_the_fix(tmp_path):
    with pytest.raises(DatasetNotFoundError, match=r"Dataset not found[\s\S]*MNIST/raw[\s\S]*download=True") as e:
        datasets.MNIST(str(tmp_path))
    assert isinstance(e.value, FileNotFoundError)


def test_download_without_network_names_files_and_destination(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(DatasetNotFoundError, match=r"could not fetch these files into .*MNIST/raw[\s\S]*"
                                                   r"train-images-idx3-ubyte.gz[\s\S]*no network"):
        datasets.MNIST(str(tmp_path), download=True)
    with pytest.raises(DatasetNotFoundError, match=r"cifar-10-python.tar.gz"):
        datasets.CIFAR10(str(tmp_path), download=True)


def test_download_skips_files_that_are_there(tmp_path, monkeypatch):
    write_mnist(str(tmp_path))
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("nothing should be downloaded"))
    assert len(datasets.MNIST(str(tmp_path), download=True)) == 12


def test_download_fetches_checks_md5_and_extracts(tmp_path):
    server = tmp_path / "server"
    server.mkdir()
    arrays = write_mnist(str(tmp_path / "make"), gz=True)
    resources = []
    for name in MNIST_FILES:
        src = tmp_path / "make" / "MNIST" / "raw" / (name + ".gz")
        (server / (name + ".gz")).write_bytes(src.read_bytes())
        resources.append((name + ".gz", hashlib.md5(src.read_bytes()).hexdigest()))

    class Local(datasets.MNIST):
        mirrors = ["file:///nonexistent/", (server.as_uri() + "/")]
    Local.resources = resources
    ds = Local(str(tmp_path / "root"), download=True)
    assert len(ds) == 12 and np.array_equal(np.asarray(ds[0][0]), arrays["train"][0][0])
    assert os.path.isfile(os.path.join(ds.raw_folder, "train-images-idx3-ubyte"))
    Bad = type("Bad", (datasets.MNIST,), {"mirrors": [server.as_uri() + "/"],
                                          "resources": [(n, "0" * 32) for n, _ in resources]})
    with pytest.raises(DatasetNotFoundError, match="MD5"):
        Bad(str(tmp_path / "bad"), download=True)


def test_cifar10_reads_python_batches_as_hwc(tmp_path):
    batches = write_cifar(str(tmp_path))
    train = datasets.CIFAR10(str(tmp_path), train=True)
    test = datasets.CIFAR10(str(tmp_path), train=False)
    assert len(train) == 20 and len(test) == 4
    assert train.data.shape == (20, 32, 32, 3) and train.data.dtype == np.uint8
    expected = batches["data_batch_2"][0][1].reshape(3, 32, 32).transpose(1, 2, 0)
    img, label = train[5]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and np.array_equal(np.asarray(img), expected)
    assert label == batches["data_batch_2"][1][1] and isinstance(train.targets, list)
    assert train.classes[0] == "airplane" and train.class_to_idx["truck"] == 9


def test_cifar_batches_written_for_tests_unpickle_as_the_real_python2_ones(tmp_path):
    # the real batches hold Python 2 str: loaders read them with encoding="latin1" (str keys,
    # torchvision and course code's batch["data"]) or encoding="bytes" (b"data"); both must work
    batches = write_cifar(str(tmp_path))
    path = os.path.join(str(tmp_path), "cifar-10-batches-py")
    with open(os.path.join(path, "data_batch_1"), "rb") as f:
        as_str = pickle.load(f, encoding="latin1")
    with open(os.path.join(path, "data_batch_1"), "rb") as f:
        as_bytes = pickle.load(f, encoding="bytes")
    assert sorted(as_str) == ["batch_label", "data", "labels"] and b"data" in as_bytes
    assert np.array_equal(as_str["data"], batches["data_batch_1"][0])
    assert np.array_equal(as_bytes[b"data"], batches["data_batch_1"][0])
    with open(os.path.join(path, "batches.meta"), "rb") as f:
        assert pickle.load(f, encoding="latin1")["label_names"][9] == "truck"


def test_cifar10_refuses_code_in_its_pickles(tmp_path):
    write_cifar(str(tmp_path))
    with open(os.path.join(str(tmp_path), "cifar-10-batches-py", "data_batch_1"), "wb") as f:
        f.write(pickle.dumps({"data": os.system}))
    with pytest.raises(gg.data.DataFormatError, match="refusing to load global"):
        datasets.CIFAR10(str(tmp_path))


def test_fake_data_is_repeatable_and_leaves_the_global_generator_alone():
    ds = datasets.FakeData(size=6, image_size=(3, 20, 24), num_classes=4)
    gg.manual_seed(0)
    before = gg._random.generator().random()
    gg.manual_seed(0)
    img, target = ds[2]
    assert gg._random.generator().random() == before
    assert isinstance(img, Image.Image) and img.size == (24, 20) and img.mode == "RGB"
    assert isinstance(target, int) and 0 <= target < 4
    assert np.array_equal(np.asarray(ds[2][0]), np.asarray(img)) and len(ds) == 6
    assert not np.array_equal(np.asarray(ds[3][0]), np.asarray(img))
    assert not np.array_equal(np.asarray(datasets.FakeData(6, (3, 20, 24), 4, random_offset=1)[2][0]),
                              np.asarray(img))
    with pytest.raises(IndexError, match="index out of range"):
        ds[6]
    gray = datasets.FakeData(size=1, image_size=(1, 8, 8), transform=T.ToTensor())[0][0]
    assert gray.shape == (1, 8, 8)


def test_image_folder_classes_samples_and_errors(tmp_path):
    for cls, n in (("dog", 2), ("cat", 3)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            Image.fromarray(np.full((6, 5, 3), 40 * i, np.uint8)).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    ds = datasets.ImageFolder(str(tmp_path), transform=T.ToTensor())
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    assert len(ds) == 5 and ds.targets == [0, 0, 0, 1, 1] and ds.imgs == ds.samples
    x, y = ds[4]
    assert x.shape == (3, 6, 5) and y == 1
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty"):
        datasets.ImageFolder(str(tmp_path))
    assert len(datasets.ImageFolder(str(tmp_path), allow_empty=True)) == 5
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        datasets.ImageFolder(str(tmp_path / "empty"))


def test_mnist_through_a_data_loader_with_workers(tmp_path):
    write_mnist(str(tmp_path), n_train=20)
    ds = datasets.MNIST(str(tmp_path), transform=T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))
    batches = list(DataLoader(ds, batch_size=8, shuffle=True, num_workers=2))
    assert [b[0].shape for b in batches] == [(8, 1, 28, 28), (8, 1, 28, 28), (4, 1, 28, 28)]
    assert batches[0][1].dtype == "int64"
    labels = sorted(v for b in batches for v in b[1].numpy().tolist())
    assert labels == sorted(ds.targets.numpy().tolist())


def test_gzip_idx_is_read_directly(tmp_path):
    path = tmp_path / "x.gz"
    write_idx(str(path), np.arange(6, dtype=np.uint8).reshape(2, 3))
    assert gzip.decompress(path.read_bytes())[:4] == b"\x00\x00\x08\x02"


def test_missing_data_is_the_runtime_error_torchvision_raises(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found"):  # scripts catch torchvision's RuntimeError
        datasets.MNIST(str(tmp_path))
    assert issubclass(DatasetNotFoundError, FileNotFoundError) and issubclass(DatasetNotFoundError, gg.GlassgradError)


def test_repr_and_old_attribute_names_are_torchvisions(tmp_path):
    write_mnist(str(tmp_path))
    ds = datasets.MNIST(str(tmp_path), transform=T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))
    # torchvision indents the transforms' first line only (the multi-line repr is one body entry)
    assert repr(ds) == ("Dataset MNIST\n    Number of datapoints: 12\n    Root location: " + str(tmp_path) +
                        "\n    Split: Train\n    StandardTransform\nTransform: Compose(\n"
                        "               ToTensor()\n               Normalize(mean=(0.1307,), std=(0.3081,))\n"
                        "           )")
    assert (ds.training_file, ds.test_file) == ("training.pt", "test.pt")
    with pytest.warns(UserWarning, match="train_labels has been renamed targets"):
        assert ds.train_labels is ds.targets
    with pytest.warns(UserWarning, match="test_data has been renamed data"):
        assert ds.test_data is ds.data
