"""Factory and conversion edges found by a differential sweep against PyTorch: arange with an
integer dtype and float bounds or step accumulates in integers (start and step truncated, the
count from the float bounds); a 0-d random draw stays 0-d; a one-element bool tensor is an index."""
import pytest

import glassgrad as gg

ARANGE = [  # int64 counts from the truncated bounds and step; the other dtypes from the float ones
    ((0, 5, 1.5), "int64", [0, 1, 2, 3, 4]),
    ((0.5, 5, 1.5), "int32", [0, 1, 2]),
    ((0, 5, 0.5), "int32", [0] * 10),
    ((-2.5, 3, 1.7), "int64", [-2, -1, 0, 1, 2]),
    ((-2.5, 3, 1.7), "uint8", [254, 255, 0, 1]),
    ((5, 0, -1.5), "int64", [5, 4, 3, 2, 1]),
    ((5, 0, -1.5), "int16", [5, 4, 3, 2]),
    ((0.9, 4), "int16", [0, 1, 2, 3]),
    ((1.5,), "int64", [0]),
    ((0, 5, 1.5), "float16", [0.0, 1.5, 3.0, 4.5]),
    ((0, 10, 3), "int64", [0, 3, 6, 9]),
]


@pytest.mark.parametrize("args,dtype,expected", ARANGE, ids=[f"{a}-{d}" for a, d, _ in ARANGE])
def test_arange_with_an_integer_dtype_truncates_start_and_step(args, dtype, expected):
    r = gg.arange(*args, dtype=getattr(gg, dtype))
    assert r.dtype == getattr(gg, dtype) and r.tolist() == expected


@pytest.mark.parametrize("make", [
    lambda: gg.rand(()), lambda: gg.randn(()), lambda: gg.rand([]), lambda: gg.rand(size=()),
    lambda: gg.randint(3, ()), lambda: gg.rand((), dtype=gg.bfloat16), lambda: gg.randn((), dtype=gg.float64),
    lambda: gg.rand_like(gg.tensor(1.0)), lambda: gg.randint_like(gg.tensor(1), 4),
])
def test_a_zero_dim_draw_stays_zero_dim(make):
    r = make()
    assert r.shape == () and r.ndim == 0 and r.numel() == 1


def test_a_bool_tensor_is_an_index():
    assert [1, 2, 3][gg.tensor(True)] == 2 and range(5)[gg.tensor(False)] == 0
    assert gg.tensor([True]).__index__() == 1 and gg.tensor([[False]]).__index__() == 0
    with pytest.raises(TypeError):
        [1, 2][gg.tensor([True, False])]
    with pytest.raises(TypeError):
        [1, 2][gg.tensor(1.0)]


def test_against_torch():
    torch = pytest.importorskip("torch")
    for args, dtype, _ in ARANGE:
        assert gg.arange(*args, dtype=getattr(gg, dtype)).tolist() == torch.arange(*args, dtype=getattr(torch, dtype)).tolist()
    for fw in (torch, gg):
        assert fw.rand(()).shape == () and fw.randint(3, ()).shape == ()
        assert [1, 2, 3][fw.tensor(True)] == 2


def test_a_list_of_many_element_tensors_is_a_type_error():
    # PyTorch: TypeError (glassgrad's error is a ValueError too)
    for data in ([gg.tensor([1, 2]), gg.tensor([3, 4])], [gg.tensor([1, 2])]):
        with pytest.raises(TypeError, match="stack"):
            gg.tensor(data)
        with pytest.raises(ValueError):
            gg.tensor(data)
    assert gg.tensor([[gg.tensor(1)], [gg.tensor(2)]]).tolist() == [[1], [2]]
