"""Tensor members and names PyTorch keeps for older code: x.as_subclass(cls) (the same values as
a Tensor subclass, attached to the graph through AliasBackward0), x.volatile (always False, with
PyTorch's warning), the deprecated out-of-place x.resize_as(t) (with its warning), torch.GradScaler
(torch.amp.GradScaler), and fliplr/flipud's refusal of too few dims (PyTorch's RuntimeError)."""
import warnings

import pytest

import glassgrad as gg


class Marked(gg.Tensor):
    pass


def test_as_subclass_shares_values_and_keeps_the_graph():
    x = gg.ones(2, 3, requires_grad=True)
    y = x.as_subclass(Marked)
    assert type(y) is Marked and y.requires_grad and type(y.grad_fn).__name__ == "AliasBackward0"
    (y * 2).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2
    plain = gg.arange(3.0).as_subclass(Marked)
    assert type(plain) is Marked and plain.grad_fn is None and plain.tolist() == [0.0, 1.0, 2.0]


def test_as_subclass_refuses_other_classes():
    with pytest.raises(TypeError, match="Creating a Tensor subclass from a class that does not inherit from Tensor"):
        gg.ones(2).as_subclass(int)


def test_volatile_and_resize_as_warn_as_pytorch():
    x = gg.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.volatile is False
        assert x.resize_as(gg.ones(3, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert [str(w.message) for w in caught] == ["volatile was removed (Variable.volatile is always False)",
                                                "non-inplace resize_as is deprecated"]
    assert all(w.filename == __file__ for w in caught)
    with pytest.raises(RuntimeError, match="requested resize to 4x2"):
        x.resize_as(gg.ones(4, 2))


def test_grad_scaler_at_top_level():
    assert gg.GradScaler is gg.amp.GradScaler


def test_fliplr_and_flipud_need_enough_dims():
    with pytest.raises(RuntimeError, match=r"Input must be >= 2-d\."):
        gg.fliplr(gg.arange(3))
    with pytest.raises(RuntimeError, match=r"Input must be >= 1-d\."):
        gg.flipud(gg.tensor(1.0))
    assert gg.flipud(gg.arange(3)).tolist() == [2, 1, 0]
    assert gg.fliplr(gg.arange(4).reshape(2, 2)).tolist() == [[1, 0], [3, 2]]
