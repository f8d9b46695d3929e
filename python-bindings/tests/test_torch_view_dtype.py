"""Tensor.view(dtype): the bytes read as another dtype, as PyTorch documents it (same element size
keeps the shape; a different size scales the last dim, under PyTorch's layout conditions). The
expected values are IEEE-754 bit patterns (little-endian), as PyTorch gives them."""
import itertools

import numpy as np
import pytest

import glassgrad as gg


def test_same_size_reinterprets_the_bits():
    x = gg.tensor([1.0, -2.0, 0.5])
    y = x.view(gg.int32)
    assert y.dtype == gg.int32 and y.shape == (3,)
    assert y.tolist() == [1065353216, -1073741824, 1056964608]
    assert y.view(gg.float32).tolist() == [1.0, -2.0, 0.5]
    assert gg.tensor([1.0], dtype=gg.float16).view(gg.int16).tolist() == [15360]
    assert gg.tensor([1.0], dtype=gg.bfloat16).view(gg.int16).tolist() == [16256]
    assert gg.tensor([16256, 16384], dtype=gg.int16).view(gg.bfloat16).tolist() == [1.0, 2.0]


def test_dtype_keyword_and_view_copy():
    assert gg.ones(2).view(dtype=gg.int32).tolist() == [1065353216] * 2
    assert gg.view_copy(gg.ones(1), gg.int16).tolist() == [0, 16256]


def test_smaller_element_multiplies_the_last_dim():
    x = gg.tensor([1.0, -2.0, 0.5])
    assert x.view(gg.int16).tolist() == [0, 16256, 0, -16384, 0, 16128]
    assert x.view(gg.uint8).tolist() == [0, 0, 128, 63, 0, 0, 0, 192, 0, 0, 0, 63]
    rows = gg.arange(6.0).view(2, 3)[:, 1:]  # stride (3, 1), offset 1: the last dim is contiguous
    assert rows.view(gg.int16).shape == (2, 4)
    assert rows.view(gg.int16)[1].tolist() == [0, 16512, 0, 16544]


def test_larger_element_divides_the_last_dim():
    assert gg.tensor([1.0, 2.0]).view(gg.float64).tolist() == [2.000000473111868]
    x = gg.tensor([1, 2, 3, 4, 5, 6, 7, 8], dtype=gg.int8).view(2, 4)
    assert x.view(gg.int32).tolist() == [[67305985], [134678021]]


def test_bool_reads_any_nonzero_byte_as_true():
    assert gg.tensor([0, 1, 2, 0], dtype=gg.uint8).view(gg.bool).tolist() == [False, True, True, False]
    assert gg.tensor([True, False]).view(gg.uint8).tolist() == [1, 0]


def test_result_does_not_record_gradients():
    x = gg.ones(3, requires_grad=True)
    assert not x.view(gg.int32).requires_grad
    assert not x.view(gg.float32).requires_grad


@pytest.mark.parametrize("make, dtype, message", [
    (lambda: gg.tensor(1.0), gg.int16, "self.dim() cannot be 0 to view Float as Short"),
    (lambda: gg.tensor(1.0), gg.float64, "self.dim() cannot be 0 to view Float as Double"),
    (lambda: gg.ones(3), gg.float64, "self.size(-1) must be divisible by 2 to view Float as Double"),
    (lambda: gg.ones(4, 3).t(), gg.int16, "self.stride(-1) must be 1 to view Float as Short"),
    (lambda: gg.ones(3, 4)[:, 1:3], gg.float64, "self.storage_offset() must be divisible by 2"),
    (lambda: gg.ones(3, 3)[:, :2], gg.float64, "self.stride(0) must be divisible by 2"),
])
def test_pytorch_layout_errors(make, dtype, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make().view(dtype)


def test_zero_dim_same_size_keeps_its_shape():
    y = gg.tensor(1.0).view(gg.int32)
    assert y.shape == () and y.item() == 1065353216


DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _sample(lib, name):
    base = lib.arange(48).reshape(4, 12)
    return (base % 3 == 0) if name == "bool" else (base * 37 - 100).to(getattr(lib, name))


@pytest.mark.parametrize("src, dst", list(itertools.product(DTYPES, DTYPES)))
def test_matches_pytorch(src, dst):
    torch = pytest.importorskip("torch")
    for pick in (lambda x: x, lambda x: x[:, 2:10], lambda x: x[1:, 4:8], lambda x: x[0, 0], lambda x: x[:0]):
        outcome = []
        for lib in (torch, gg):
            try:
                y = pick(_sample(lib, src)).view(getattr(lib, dst))
            except RuntimeError as e:
                outcome.append(str(e).split(" (different")[0])
            else:
                values = y.float() if dst == "bfloat16" else y
                outcome.append((tuple(y.shape), np.asarray(values.tolist())))
        assert type(outcome[0]) is type(outcome[1]), outcome
        if isinstance(outcome[0], str):
            assert outcome[0] == outcome[1]
        else:  # NaN payloads aside (tolist's conversion), the same values
            assert outcome[0][0] == outcome[1][0]
            np.testing.assert_array_equal(outcome[0][1], outcome[1][1])
