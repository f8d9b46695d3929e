"""One-element integer tensors where PyTorch's argument parser takes an int: a 0-d one as a dim
(movedim) or a start (narrow), a one-element one as a size (view(tensor([6]))); other tensors
there are refused with PyTorch's exception and first line. torch.where's out= overload takes
tensors only."""
import pytest

import glassgrad as gg


def test_movedim_takes_0_d_integer_tensors():
    x = gg.ones(2, 3, 4)
    assert x.movedim(gg.tensor(0), 2).shape == (3, 4, 2)
    assert x.movedim([gg.tensor(0)], [gg.tensor(1)]).shape == (3, 2, 4)
    assert gg.movedim(x, gg.tensor(-1), gg.tensor(0)).shape == (4, 2, 3)


@pytest.mark.parametrize("dim", [gg.tensor([0]), gg.tensor(0.0)], ids=["1-d", "float"])
def test_movedim_refuses_other_tensors(dim):
    with pytest.raises(TypeError) as caught:
        gg.ones(2, 3).movedim(dim, 1)
    assert str(caught.value).splitlines()[0] == ("movedim() received an invalid combination of arguments - got "
                                                 "(Tensor, int), but expected one of:")


def test_narrow_takes_a_0_d_integer_start():
    x = gg.arange(6).reshape(2, 3)
    assert x.narrow(1, gg.tensor(1), 2).tolist() == [[1, 2], [4, 5]]
    assert gg.narrow(x, 1, gg.tensor(-2), 1).tolist() == [[1], [4]]


@pytest.mark.parametrize("start", [gg.tensor([1]), gg.tensor(1.0), gg.tensor(True)], ids=["1-d", "float", "bool"])
def test_narrow_refuses_other_start_tensors(start):
    with pytest.raises(RuntimeError) as caught:
        gg.ones(2, 3).narrow(1, start, 2)
    assert str(caught.value).splitlines()[0] == "start must be an 0-dim integral Tensor."


def test_view_takes_a_one_element_integer_tensor_as_a_size():
    x = gg.arange(6.0).reshape(2, 3)
    assert x.view(gg.tensor([6])).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert x.view(gg.tensor(6)).shape == (6,)
    assert x.view(gg.tensor([3]), 2).shape == (3, 2)
    assert x.view(gg.Size([3, 2])).shape == (3, 2)


@pytest.mark.parametrize("size", [gg.tensor([3, 2]), gg.tensor([6.0])], ids=["two elements", "float"])
def test_view_refuses_other_tensors(size):
    with pytest.raises(TypeError) as caught:
        gg.ones(2, 3).view(size)
    assert str(caught.value).splitlines()[0] == ("view() received an invalid combination of arguments - got "
                                                 "(Tensor), but expected one of:")


def test_where_with_out_takes_tensors_only():
    c = gg.tensor([True, False])
    x = gg.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"where\(\): argument 'other' \(position 3\) must be Tensor, not float"):
        gg.where(c, x, 0.0, out=gg.zeros(2))
    with pytest.raises(TypeError, match=r"where\(\): argument 'input' \(position 2\) must be Tensor, not int"):
        gg.where(c, 1, x, out=gg.zeros(2))
    out = gg.zeros(2)
    gg.where(c, gg.tensor(5.0), x, out=out)
    assert out.tolist() == [5.0, 2.0]
    assert gg.where(c, x, 0.0).tolist() == [1.0, 0.0]  # without out=, numbers are taken


def test_where_with_out_needs_the_result_dtype():
    # PyTorch's where checks out's dtype ("Expected out type to be Float but got Double"): no cast
    c = gg.tensor([True, False])
    with pytest.raises(RuntimeError, match="dtype float, but got double"):
        gg.where(c, gg.ones(2), gg.zeros(2), out=gg.zeros(2, dtype=gg.float64))
    out = gg.zeros(2, dtype=gg.int64)
    gg.where(c, gg.ones(2, dtype=gg.int32), gg.zeros(2, dtype=gg.int64), out=out)
    assert out.tolist() == [1, 0]
