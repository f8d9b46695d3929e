"""torch.FloatStorage, torch.ByteStorage and the other CPU legacy storage classes, their
from_buffer, and the legacy tensor constructors of a storage (ByteTensor(storage)), as PyTorch's
(values from PyTorch 2.x's documented behaviour). fast.ai's course-v3 notebook 08_data_block turns
a PIL image into a tensor with `torch.ByteTensor(torch.ByteStorage.from_buffer(img.tobytes()))`."""
import sys
import warnings

import numpy as np
import pytest

import glassgrad as gg


@pytest.fixture(autouse=True)
def _no_deprecation_noise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning, as PyTorch's
        yield


def test_from_buffer_reads_the_bytes_in_the_byte_order_given():
    assert gg.ByteStorage.from_buffer(b"abc").tolist() == [97, 98, 99]  # bytes need no byte order
    assert gg.IntStorage.from_buffer(bytes([1, 0, 0, 0]), "little").tolist() == [1]
    assert gg.IntStorage.from_buffer(bytes([0, 0, 0, 1]), "big").tolist() == [1]
    assert gg.IntStorage.from_buffer(bytes([1, 0, 0, 0]), "native").tolist() == [1 if sys.byteorder == "little"
                                                                               else 1 << 24]
    assert gg.IntStorage.from_buffer(bytes(4) + bytes([2, 0, 0, 0]) + bytes(4), "little", 1, 4).tolist() == [2]
    assert gg.FloatStorage.from_buffer(np.float32([1.5, -2]).tobytes(), "little").tolist() == [1.5, -2.0]
    assert gg.BFloat16Storage.from_buffer(bytes([0x80, 0x3F]), "little").tolist() == [1.0]
    s = gg.DoubleStorage.from_buffer(bytes(16), byte_order="little")
    assert s.dtype == gg.float64 and s.size() == 2 and s.device.type == "cpu"


def test_from_buffer_refusals_say_what_pytorch_says():
    with pytest.raises(RuntimeError, match="missing required argument 'byte_order'"):
        gg.IntStorage.from_buffer(bytes(4))
    with pytest.raises(ValueError, match=r"buffer size \(7\) must be a multiple of element size \(4\)"):
        gg.FloatStorage.from_buffer(bytes(7), "little")
    with pytest.raises(ValueError, match="byte_order"):
        gg.FloatStorage.from_buffer(bytes(4), "middle")


def test_cpu_storage_classes_make_storages_and_match_tensors_storages():
    assert gg.ByteStorage(3).size() == 3 and gg.FloatStorage([1, 2]).tolist() == [1.0, 2.0]
    assert gg.LongStorage().size() == 0 and gg.LongStorage([5]).dtype == gg.int64
    assert isinstance(gg.zeros(2).storage(), gg.FloatStorage)
    assert not isinstance(gg.zeros(2).storage(), gg.ByteStorage)
    assert not isinstance(gg.zeros(2).storage(), gg.cuda.FloatStorage)  # a CPU tensor's
    assert isinstance(gg.zeros(2, dtype=gg.uint8).storage(), gg.ByteStorage)


def test_typed_constructor_of_a_storage_shares_its_elements():
    s = gg.ByteStorage.from_buffer(b"abc")
    t = gg.ByteTensor(s)
    assert t.dtype == gg.uint8 and t.tolist() == [97, 98, 99]
    t[0] = 0
    assert s.tolist() == [0, 98, 99]
    row = gg.arange(6.0)[2:]
    assert gg.FloatTensor(row.storage()).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # the whole storage
    with pytest.raises(RuntimeError, match="Expected a Storage of type"):
        gg.FloatTensor(gg.ByteStorage.from_buffer(b"ab"))


def test_image_bytes_to_a_chw_tensor_as_fastai_does():
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)  # an H=2, W=4 RGB image's bytes
    res = gg.ByteTensor(gg.ByteStorage.from_buffer(image.tobytes()))
    chw = res.view(2, 4, -1).permute(2, 0, 1)
    np.testing.assert_array_equal(chw.numpy(), image.transpose(2, 0, 1))
