"""The exception classes PyTorch documents for common mistakes: where PyTorch raises RuntimeError
(shape mismatches, impossible views, backward of a tensor without grad, bool() of several elements,
integer division by zero, a dtype an op refuses), glassgrad's error is a RuntimeError too, and it
stays the ValueError/TypeError/ZeroDivisionError glassgrad's own documentation names."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("name,fn,also", [
    ("broadcast mismatch", lambda: gg.ones(2, 3) + gg.ones(3, 2), ValueError),
    ("mm of unfitting matrices", lambda: gg.mm(gg.ones(2, 3), gg.ones(2, 3)), ValueError),
    ("view of an impossible shape", lambda: gg.ones(2, 3).view(4, 2), ValueError),
    ("backward of a tensor without grad", lambda: gg.ones(2).sum().backward(), ValueError),
    ("implicit gradient of a non-scalar", lambda: (gg.ones(2, requires_grad=True) * 2).backward(), ValueError),
    ("bool of several elements", lambda: bool(gg.ones(2)), ValueError),
    ("requires_grad_(False) on a non-leaf", lambda: (gg.ones(2, requires_grad=True) * 2).requires_grad_(False),
     ValueError),
    ("integer tensor requiring grad", lambda: gg.ones(2, dtype=gg.int64).requires_grad_(), TypeError),
    ("mean of an integer tensor", lambda: gg.tensor([1, 2]).mean(), TypeError),
    ("negation of a bool tensor", lambda: -gg.tensor([True]), TypeError),
    ("integer floor division by zero", lambda: gg.tensor([5, -3]) // 0, ZeroDivisionError),
    ("integer remainder by zero", lambda: gg.tensor([5, -3]) % 0, ZeroDivisionError),
])
def test_pytorch_runtime_errors_are_runtime_errors(name, fn, also):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert isinstance(info.value, also)


def test_the_error_classes_keep_their_builtin_bases():
    assert issubclass(gg.ShapeError, ValueError) and issubclass(gg.ShapeError, RuntimeError)
    assert issubclass(gg.InvalidArgumentError, ValueError) and issubclass(gg.InvalidArgumentError, RuntimeError)
    assert issubclass(gg.DTypeError, TypeError) and issubclass(gg.DTypeError, RuntimeError)
    assert issubclass(gg.OutOfMemoryError, MemoryError) and issubclass(gg.OutOfMemoryError, RuntimeError)
    assert all(issubclass(c, gg.GlassgradError) for c in (gg.ShapeError, gg.InvalidArgumentError, gg.DTypeError))


def test_an_index_out_of_range_stays_an_index_error():
    with pytest.raises(IndexError):
        gg.ones(2, 3)[5]
