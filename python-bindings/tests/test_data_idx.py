"""glassgrad.data's IDX reader and the MNIST / Fashion-MNIST loaders, on tiny files written
byte by byte in the IDX format (magic 2051 for images, 2049 for labels), plain and gzip."""
import gzip
import os
import struct

import numpy as np
import pytest

import glassgrad
from glassgrad import data


def idx_bytes(array, code=0x08):
    """IDX encoding written out by hand (independent of data.write_idx)."""
    a = np.asarray(array)
    header = bytes([0, 0, code, a.ndim]) + b"".join(struct.pack(">I", d) for d in a.shape)
    big = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}[code]
    return header + a.astype(big).tobytes()


def write(path, payload, gz=False):
    with open(path, "wb") as f:
        f.write(gzip.compress(payload) if gz else payload)
    return str(path)


def make_mnist_dir(d, n_train=5, n_test=3, h=28, w=28, gz=False, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (n_train, h, w), dtype=np.uint8),
        "train-labels-idx1-ubyte": rng.integers(0, 10, n_train, dtype=np.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (n_test, h, w), dtype=np.uint8),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, n_test, dtype=np.uint8),
    }
    for name, a in arrays.items():
        write(os.path.join(d, name + (".gz" if gz else "")), idx_bytes(a), gz=gz)
    return arrays


def test_idx_images_header_has_magic_2051_and_labels_2049():
    assert int.from_bytes(idx_bytes(np.zeros((2, 3, 3), np.uint8))[:4], "big") == 2051
    assert int.from_bytes(idx_bytes(np.zeros(2, np.uint8))[:4], "big") == 2049


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_read_idx_returns_the_written_uint8_images(tmp_path, gz):
    a = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    p = write(tmp_path / "imgs", idx_bytes(a), gz=gz)
    got = data.read_idx(p)
    assert got.dtype == np.uint8 and got.shape == (2, 3, 4)
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("code,dtype", [(0x09, np.int8), (0x0B, np.int16), (0x0C, np.int32),
                                        (0x0D, np.float32), (0x0E, np.float64)])
def test_read_idx_decodes_big_endian_types_to_native(tmp_path, code, dtype):
    a = np.array([[-3, 1, 2], [7, -100, 5]], dtype=dtype)
    got = data.read_idx(write(tmp_path / "x", idx_bytes(a, code)))
    assert got.dtype == np.dtype(dtype) and got.dtype.isnative
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("name", ["x.idx", "x.idx.gz"])
def test_write_idx_round_trips_every_dtype(tmp_path, dtype, name):
    a = (np.arange(24).reshape(2, 3, 4) % 100).astype(dtype)
    data.write_idx(tmp_path / name, a)
    raw = (tmp_path / name).read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    np.testing.assert_array_equal(data.read_idx(tmp_path / name), a)


def test_read_idx_rejects_a_wrong_magic_number_naming_the_file(tmp_path):
    p = write(tmp_path / "page.html", b"<html>404 Not Found</html>")
    with pytest.raises(data.DataFormatError) as e:
        data.read_idx(p)
    msg = str(e.value)
    assert p in msg and "magic number" in msg and "00 00 08 03" in msg


def test_read_idx_rejects_an_unknown_type_code(tmp_path):
    p = write(tmp_path / "x", bytes([0, 0, 0x42, 1, 0, 0, 0, 1, 7]))
    with pytest.raises(data.DataFormatError, match="not an IDX file"):
        data.read_idx(p)


def test_read_idx_reports_truncated_data_with_expected_and_found_sizes(tmp_path):
    full = idx_bytes(np.zeros((4, 28, 28), np.uint8))
    p = write(tmp_path / "train-images-idx3-ubyte", full[:-100])
    with pytest.raises(data.DataFormatError) as e:
        data.read_idx(p)
    msg = str(e.value)
    assert p in msg and "truncated" in msg and "[4, 28, 28]" in msg
    assert str(4 * 28 * 28) in msg and str(4 * 28 * 28 - 100) in msg


def test_read_idx_reports_extra_bytes(tmp_path):
    p = write(tmp_path / "x", idx_bytes(np.zeros(3, np.uint8)) + b"\0")
    with pytest.raises(data.DataFormatError, match="extra bytes"):
        data.read_idx(p)


def test_read_idx_reports_a_truncated_header(tmp_path):
    p = write(tmp_path / "x", bytes([0, 0, 8, 3, 0, 0, 0, 2]))
    with pytest.raises(data.DataFormatError, match="truncated header"):
        data.read_idx(p)
    with pytest.raises(data.DataFormatError, match="too short"):
        data.read_idx(write(tmp_path / "y", b"\0\0"))


def test_read_idx_reports_a_damaged_gzip_file(tmp_path):
    payload = gzip.compress(idx_bytes(np.zeros((2, 28, 28), np.uint8)))
    p = write(tmp_path / "x.gz", payload[: len(payload) // 2])
    with pytest.raises(data.DataFormatError) as e:
        data.read_idx(p)
    assert p in str(e.value) and "gzip" in str(e.value)


def test_data_errors_are_glassgrad_errors_and_builtins():
    assert issubclass(data.DataFormatError, glassgrad.GlassgradError)
    assert issubclass(data.DataFormatError, ValueError)
    assert issubclass(data.DatasetNotFoundError, FileNotFoundError)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_load_mnist_returns_nchw_uint8_images_and_int64_labels(tmp_path, gz):
    arrays = make_mnist_dir(tmp_path, gz=gz)
    x_train, y_train, x_test, y_test = data.load_mnist(tmp_path)
    assert x_train.shape == (5, 1, 28, 28) and x_train.dtype == np.uint8
    assert x_test.shape == (3, 1, 28, 28) and x_test.dtype == np.uint8
    assert y_train.dtype == np.int64 and y_test.dtype == np.int64
    np.testing.assert_array_equal(x_train[:, 0], arrays["train-images-idx3-ubyte"])
    np.testing.assert_array_equal(y_test, arrays["t10k-labels-idx1-ubyte"])


def test_load_mnist_accepts_dotted_file_names(tmp_path):
    arrays = make_mnist_dir(tmp_path)
    for n in list(arrays):
        os.rename(tmp_path / n, tmp_path / n.replace("-idx", ".idx", 1))
    ds = data.load_mnist(tmp_path)
    np.testing.assert_array_equal(ds.y_train, arrays["train-labels-idx1-ubyte"])


def test_load_mnist_names_the_missing_file_and_all_four_expected(tmp_path):
    make_mnist_dir(tmp_path)
    os.remove(tmp_path / "t10k-labels-idx1-ubyte")
    with pytest.raises(data.DatasetNotFoundError) as e:
        data.load_mnist(tmp_path)
    msg = str(e.value)
    assert "no t10k-labels-idx1-ubyte in " + str(tmp_path) in msg
    for n in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte"):
        assert n in msg
    assert "fix:" in msg


def test_load_mnist_rejects_labels_that_do_not_match_the_images(tmp_path):
    make_mnist_dir(tmp_path)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.zeros(4, np.uint8)))
    with pytest.raises(data.DataFormatError, match="4 labels for 5 images"):
        data.load_mnist(tmp_path)


def test_load_mnist_rejects_swapped_images_and_labels(tmp_path):
    make_mnist_dir(tmp_path)
    os.replace(tmp_path / "train-labels-idx1-ubyte", tmp_path / "tmp")
    os.replace(tmp_path / "train-images-idx3-ubyte", tmp_path / "train-labels-idx1-ubyte")
    os.replace(tmp_path / "tmp", tmp_path / "train-images-idx3-ubyte")
    with pytest.raises(data.DataFormatError, match="swapped"):
        data.load_mnist(tmp_path)


def test_load_mnist_rejects_labels_outside_the_classes(tmp_path):
    make_mnist_dir(tmp_path)
    write(tmp_path / "t10k-labels-idx1-ubyte", idx_bytes(np.array([1, 12, 3], np.uint8)))
    with pytest.raises(data.DataFormatError, match="label 12 at index 1"):
        data.load_mnist(tmp_path)


def test_load_fashion_mnist_explains_how_to_get_the_data(tmp_path):
    with pytest.raises(data.DatasetNotFoundError) as e:
        data.load_fashion_mnist(tmp_path / "nowhere")
    msg = str(e.value)
    assert "apt-get install dataset-fashion-mnist" in msg
    assert "train-images-idx3-ubyte" in msg and "t10k-labels-idx1-ubyte" in msg


def test_load_fashion_mnist_reads_a_given_directory(tmp_path):
    arrays = make_mnist_dir(tmp_path, gz=True)
    ds = data.load_fashion_mnist(tmp_path)
    np.testing.assert_array_equal(ds.y_train, arrays["train-labels-idx1-ubyte"])
    assert len(data.FASHION_MNIST_CLASSES) == 10


@pytest.mark.skipif(not os.path.isdir(data.FASHION_MNIST_DIR),
                    reason="Debian's dataset-fashion-mnist is not installed (apt-get install dataset-fashion-mnist)")
def test_load_fashion_mnist_reads_the_debian_package():
    x_train, y_train, x_test, y_test = data.load_fashion_mnist()
    assert x_train.shape == (60000, 1, 28, 28) and x_test.shape == (10000, 1, 28, 28)
    assert np.bincount(y_train, minlength=10).tolist() == [6000] * 10
    assert np.bincount(y_test, minlength=10).tolist() == [1000] * 10
