"""glassgrad.data.load_cifar10 on tiny batches pickled exactly like the python version of
CIFAR-10 (dicts with b'data', b'labels', b'batch_label', b'filenames'; batches.meta with
b'label_names'), and its errors for missing, damaged and foreign files."""
import os
import pickle

import numpy as np
import pytest

from glassgrad import data

CLASSES = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse", b"ship", b"truck"]


def write_batch(path, images, labels, label=b"training batch", protocol=2):
    """images uint8 [n, 3, 32, 32] stored as the file does: [n, 3072], planes R, G, B."""
    d = {
        b"batch_label": label,
        b"labels": [int(v) for v in labels],
        b"data": np.ascontiguousarray(images, np.uint8).reshape(len(images), 3072),
        b"filenames": [f"img_{i}.png".encode() for i in range(len(images))],
    }
    with open(path, "wb") as f:
        pickle.dump(d, f, protocol=protocol)


def make_cifar_dir(root, n=4, protocol=2, seed=0):
    d = root / "cifar-10-batches-py"
    d.mkdir()
    rng = np.random.default_rng(seed)
    batches = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        x = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        y = rng.integers(0, 10, n)
        write_batch(d / name, x, y, protocol=protocol)
        batches[name] = (x, y)
    with open(d / "batches.meta", "wb") as f:
        pickle.dump({b"label_names": CLASSES, b"num_cases_per_batch": n, b"num_vis": 3072}, f, protocol=protocol)
    return d, batches


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_load_cifar10_returns_nchw_images_labels_and_class_names(tmp_path, protocol):
    d, batches = make_cifar_dir(tmp_path, protocol=protocol)
    ds = data.load_cifar10(tmp_path)  # the directory holding cifar-10-batches-py
    assert ds.x_train.shape == (20, 3, 32, 32) and ds.x_train.dtype == np.uint8
    assert ds.y_train.shape == (20,) and ds.y_train.dtype == np.int64
    assert ds.x_test.shape == (4, 3, 32, 32) and ds.y_test.dtype == np.int64
    assert ds.classes[0] == "airplane" and ds.classes[9] == "truck" and len(ds.classes) == 10
    want_x = np.concatenate([batches[f"data_batch_{i}"][0] for i in range(1, 6)])
    want_y = np.concatenate([batches[f"data_batch_{i}"][1] for i in range(1, 6)])
    np.testing.assert_array_equal(ds.x_train, want_x)
    np.testing.assert_array_equal(ds.y_train, want_y)
    np.testing.assert_array_equal(ds.x_test, batches["test_batch"][0])


def test_load_cifar10_maps_the_first_1024_bytes_to_the_red_plane(tmp_path):
    d, _ = make_cifar_dir(tmp_path, n=1)
    row = np.zeros(3072, np.uint8)
    row[:1024] = 200            # red
    row[1024 + 5] = 7           # green, pixel (0, 5)
    row[2048 + 32 * 3 + 1] = 9  # blue, pixel (3, 1)
    with open(d / "test_batch", "wb") as f:
        pickle.dump({b"batch_label": b"testing batch 1 of 1", b"labels": [3], b"data": row[None],
                     b"filenames": [b"a.png"]}, f, protocol=2)
    x = data.load_cifar10(d).x_test[0]
    assert (x[0] == 200).all() and x[1, 0, 5] == 7 and x[1].sum() == 7 and x[2, 3, 1] == 9


def test_load_cifar10_reads_a_subset_of_training_batches(tmp_path):
    d, batches = make_cifar_dir(tmp_path)
    os.remove(d / "data_batch_5")
    ds = data.load_cifar10(d, train_batches=[2])
    np.testing.assert_array_equal(ds.x_train, batches["data_batch_2"][0])


def test_load_cifar10_names_missing_files_and_how_to_get_them(tmp_path):
    d, _ = make_cifar_dir(tmp_path)
    os.remove(d / "test_batch")
    os.remove(d / "batches.meta")
    with pytest.raises(data.DatasetNotFoundError) as e:
        data.load_cifar10(d)
    msg = str(e.value)
    assert "missing test_batch, batches.meta" in msg
    assert "cifar-10-python.tar.gz" in msg and "fix:" in msg


def test_load_cifar10_on_a_missing_directory_says_how_to_get_the_data(tmp_path):
    with pytest.raises(data.DatasetNotFoundError, match="tar xzf cifar-10-python.tar.gz"):
        data.load_cifar10(tmp_path / "nope")


def test_load_cifar10_reports_a_truncated_batch_naming_the_file(tmp_path):
    d, _ = make_cifar_dir(tmp_path)
    raw = (d / "data_batch_3").read_bytes()
    (d / "data_batch_3").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(data.DataFormatError) as e:
        data.load_cifar10(d)
    assert str(d / "data_batch_3") in str(e.value)


def test_load_cifar10_rejects_a_batch_without_data(tmp_path):
    d, _ = make_cifar_dir(tmp_path)
    with open(d / "data_batch_1", "wb") as f:
        pickle.dump({b"labels": [1]}, f)
    with pytest.raises(data.DataFormatError, match="no b'data' entry"):
        data.load_cifar10(d)


def test_load_cifar10_rejects_images_of_the_wrong_size(tmp_path):
    d, _ = make_cifar_dir(tmp_path)
    with open(d / "test_batch", "wb") as f:
        pickle.dump({b"data": np.zeros((2, 784), np.uint8), b"labels": [1, 2]}, f)
    with pytest.raises(data.DataFormatError, match=r"uint8 \[N, 3072\]"):
        data.load_cifar10(d)


def test_load_cifar10_rejects_labels_out_of_range(tmp_path):
    d, _ = make_cifar_dir(tmp_path, n=3)
    write_batch(d / "test_batch", np.zeros((3, 3, 32, 32), np.uint8), [0, 10, 2])
    with pytest.raises(data.DataFormatError, match="label 10 at index 1"):
        data.load_cifar10(d)


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_load_cifar10_refuses_pickles_that_would_run_code(tmp_path):
    d, _ = make_cifar_dir(tmp_path)
    with open(d / "batches.meta", "wb") as f:
        pickle.dump({b"label_names": [Exploit()]}, f)
    with pytest.raises(data.DataFormatError, match="refusing to load global"):
        data.load_cifar10(d)
