"""clamp and clip take their bounds as PyTorch's two overloads do: both tensors or both numbers
(either may be None). A tensor beside a number is PyTorch's TypeError "clamp() received an invalid
combination of arguments", except a 0-d tensor that does not require grad, which PyTorch's argument
parser reads as a number. Neither bound is PyTorch's RuntimeError "torch.clamp: At least one of 'min'
or 'max' must not be None". The expected values and messages are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg


def _x():
    return gg.tensor([-2.0, 0.5, 3.0])


def _lo():
    return gg.tensor([-1.0, -1.0, -1.0])


def _hi():
    return gg.tensor([1.0, 1.0, 1.0])


MIXED = [
    ("clamp", "Tensor, Tensor, float", lambda: gg.clamp(_x(), _lo(), 1.0)),
    ("clamp", "Tensor, float, Tensor", lambda: gg.clamp(_x(), -1.0, _hi())),
    ("clamp", "Tensor, Tensor, int", lambda: gg.clamp(_x(), min=_lo(), max=1)),
    ("clamp", "Tensor, bool, Tensor", lambda: gg.clamp(_x(), min=False, max=_hi())),
    ("clip", "Tensor, Tensor, float", lambda: gg.clip(_x(), _lo(), 1.0)),
    ("clip", "Tensor, int, Tensor", lambda: gg.clip(_x(), -1, _hi())),
    ("clamp", "Tensor, Tensor, float", lambda: _x().clamp(_lo(), 1.0)),
    ("clip", "Tensor, float, Tensor", lambda: _x().clip(-1.0, _hi())),
    ("clamp", "Tensor, Tensor, float", lambda: _x().clamp_(_lo(), 1.0)),
    ("clip", "Tensor, float, Tensor", lambda: _x().clip_(min=-1.0, max=_hi())),
    ("clamp", "Tensor, Tensor, float", lambda: gg.clamp(_x(), _lo(), 1.0, out=gg.empty(3))),
    ("clamp", "Tensor, Tensor, numpy.float64", lambda: gg.clamp(_x(), _lo(), np.float64(1.0))),
    # a 0-d tensor that requires grad is not read as a number
    ("clamp", "Tensor, Tensor, int", lambda: gg.clamp(_x(), gg.tensor(-1.0, requires_grad=True), 1)),
]


@pytest.mark.parametrize("name,got,call", MIXED)
def test_a_tensor_bound_beside_a_number_is_a_type_error(name, got, call):
    with pytest.raises(TypeError, match=rf"^{name}\(\) received an invalid combination of arguments - "
                                        rf"got \({got}\), but expected one of:") as info:
        call()
    text = str(info.value)
    assert " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)" in text
    assert " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)" in text
    assert "fix:" in text


def test_a_0d_tensor_without_grad_beside_a_number_is_that_number():
    x = gg.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    y = gg.clamp(x, gg.tensor(-1.0), 1)
    np.testing.assert_array_equal(y.detach().numpy(), [-1.0, 0.5, 1.0])
    assert type(y.grad_fn).__name__ == "ClampBackward1"  # the number overload's node
    z = gg.clamp(gg.tensor([1, 5]), gg.tensor(0.5), 3)  # a float number bound makes the result float32
    assert z.dtype == gg.float32
    np.testing.assert_array_equal(z.numpy(), [1.0, 3.0])
    w = gg.tensor([1, 5]).clip(1, gg.tensor(3))
    assert w.dtype == gg.int64
    np.testing.assert_array_equal(w.numpy(), [1, 3])


@pytest.mark.parametrize("call", [lambda: gg.clamp(_x(), _lo(), _hi()), lambda: gg.clip(_x(), -1, 1),
                                  lambda: _x().clamp(_lo(), None).clamp(None, 1.0), lambda: _x().clip(max=_hi()).clamp(min=-1)])
def test_bounds_of_one_kind_still_clamp(call):
    out = call().numpy()
    assert out.dtype == np.float32 and out.min() >= -1.0 and out.max() <= 1.0


@pytest.mark.parametrize("call", [lambda: gg.clamp(_x()), lambda: gg.clip(_x(), None, None),
                                  lambda: _x().clamp_(min=None)])
def test_no_bound_is_torch_s_runtime_error(call):
    with pytest.raises(RuntimeError, match=r"^torch\.clamp: At least one of 'min' or 'max' must not be None\n"):
        call()


def test_against_torch():
    torch = pytest.importorskip("torch")
    for mod in (torch, gg):
        x = mod.tensor([-2.0, 0.5, 3.0])
        for call in (lambda: mod.clamp(x, mod.tensor([-1.0, -1.0, -1.0]), 1.0),
                     lambda: x.clip(-1, mod.tensor([1.0, 1.0, 1.0]))):
            with pytest.raises(TypeError, match="received an invalid combination of arguments"):
                call()
        assert mod.clamp(x, mod.tensor(-1.0), 1).tolist() == [-1.0, 0.5, 1.0]
