"""item(), float(), int() and bool() of a tensor without exactly one element raise what PyTorch
raises, with its first line: item() 'a Tensor with N elements cannot be converted to Scalar'
(RuntimeError), float()/int() 'only one element tensors can be converted to Python scalars'
(ValueError), bool() 'Boolean value of Tensor with more than one value is ambiguous' ('no values'
for an empty one; RuntimeError). glassgrad's InvalidArgumentError is both a ValueError and a
RuntimeError, so the except clauses scripts write catch it either way; the lines after the first
give the shape and a fix."""
import pytest

import glassgrad as gg

CASES = [
    (lambda t: t.item(), (2, 3), RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"),
    (lambda t: t.item(), (0,), RuntimeError, "a Tensor with 0 elements cannot be converted to Scalar"),
    (float, (2,), ValueError, "only one element tensors can be converted to Python scalars"),
    (int, (2, 2), ValueError, "only one element tensors can be converted to Python scalars"),
    (float, (0,), ValueError, "only one element tensors can be converted to Python scalars"),
    (bool, (2,), RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    (bool, (0,), RuntimeError, "Boolean value of Tensor with no values is ambiguous"),
]


@pytest.mark.parametrize("convert, shape, kind, first", CASES)
def test_conversion_of_other_than_one_element_raises_pytorchs_first_line(convert, shape, kind, first):
    with pytest.raises(kind) as info:
        convert(gg.ones(shape))
    lines = str(info.value).split("\n")
    assert lines[0] == first
    assert str(list(shape)) in lines[1] and "fix:" in lines[-1]


@pytest.mark.parametrize("convert, expected", [(lambda t: t.item(), 1.0), (float, 1.0), (int, 1), (bool, True)])
def test_one_element_of_any_shape_converts(convert, expected):
    value = convert(gg.ones((1, 1, 1)))
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("convert, shape, kind, first", CASES)
def test_first_line_as_pytorch(convert, shape, kind, first):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as info:
        convert(torch.ones(shape))
    assert str(info.value).split("\n")[0] == first
