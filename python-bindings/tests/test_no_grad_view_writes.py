"""Views made under no_grad() and writes autograd does not record, as PyTorch's autograd treats them:

- an in-place op under grad mode on a view made under no_grad() (or on a view of such a view) raises
  'A view was created in no_grad mode and is being modified inplace with grad mode enabled. ...'
  ('Output 0 of <Node> is a view of a view which was created in no_grad mode ...' for a view of
  one) when the storage requires grad or the value written does;
- a write under no_grad(), or through detach() / .data, into a computed tensor that requires grad
  (through any view, made under no_grad() or not) is not recorded: the tensor keeps its grad_fn,
  and backward passes the gradient to the old version unchanged, written elements included."""
import os
import sys

import numpy as np
import pytest

import glassgrad as gg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_versions import skip_if_changed_in_2_14

_FORBIDDEN = (" no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is "
              "ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and "
              "the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or "
              "both outside (if you want the inplace to be tracked).")
_OWN = "A view was created in" + _FORBIDDEN


def _of_view(node: str) -> str:
    return f"Output 0 of {node} is a view of a view which was created in" + _FORBIDDEN


# name -> (make the base, make the view under no_grad, the in-place op under grad mode, first line)
_REFUSED = {
    "slice of a computed tensor": ("computed", lambda b: b[1:], lambda v, lib: v.mul_(2), _OWN),
    "slice of a leaf": ("leaf", lambda b: b[:2], lambda v, lib: v.add_(1), _OWN),
    "fill_": ("computed", lambda b: b[1:], lambda v, lib: v.fill_(1), _OWN),
    "zero_": ("computed", lambda b: b.view(3), lambda v, lib: v.zero_(), _OWN),
    "copy_": ("computed", lambda b: b[1:], lambda v, lib: v.copy_(lib.zeros(2)), _OWN),
    "transpose view": ("computed2d", lambda b: b.t(), lambda v, lib: v.add_(1), _OWN),
    "relu inplace": ("computed", lambda b: b[1:], lambda v, lib: lib.nn.functional.relu(v, inplace=True), _OWN),
    "unsqueeze_": ("leaf", lambda b: b[:2], lambda v, lib: v.unsqueeze_(0), _OWN),
    "split under no_grad": ("computed", lambda b: b.split(2)[0], lambda v, lib: v.mul_(2), _OWN),
    "a value that requires grad": ("plain", lambda b: b[:2],
                                   lambda v, lib: v.add_(lib.ones(2, requires_grad=True)), _OWN),
    "view of it": ("computed", lambda b: b[1:], lambda v, lib: v[:1].mul_(2), _of_view("SliceBackward0")),
    "unsqueeze of it": ("computed", lambda b: b[1:], lambda v, lib: v.unsqueeze(0).mul_(2),
                        _of_view("UnsqueezeBackward0")),
    "view() of it": ("computed", lambda b: b[1:], lambda v, lib: v.view(2).mul_(2), _of_view("ViewBackward0")),
    "t() of it": ("computed", lambda b: b[1:], lambda v, lib: v.reshape(1, 2).t().mul_(2), _of_view("TBackward0")),
    "leaf, view of it": ("leaf", lambda b: b[:2], lambda v, lib: v[:1].mul_(2), _of_view("SliceBackward0")),
}


def _base(kind: str, lib):
    if kind == "leaf":
        return lib.ones(3, requires_grad=True)
    if kind == "plain":
        return lib.ones(3)
    if kind == "computed2d":
        return lib.ones(2, 3, requires_grad=True) * 1
    return lib.ones(3, requires_grad=True) * 1


def _refused(name: str, lib):
    kind, view, write, _ = _REFUSED[name]
    b = _base(kind, lib)
    with lib.no_grad():
        v = view(b)
    write(v, lib)


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused(name):
    with pytest.raises(RuntimeError) as e:
        _refused(name, gg)
    assert str(e.value).splitlines()[0] == _REFUSED[name][3]


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused_as_torch(name):
    torch = pytest.importorskip("torch")
    if _REFUSED[name][3] != _OWN:
        skip_if_changed_in_2_14(torch, "the op's name in the view-of-a-view error (Slice, not SliceBackward0)")
    with pytest.raises(RuntimeError) as e:
        _refused(name, torch)
    assert str(e.value).splitlines()[0] == _REFUSED[name][3]


# name -> f(lib): code PyTorch runs without an error
_ALLOWED = {
    "view and write under no_grad": lambda lib: _in_no_grad(lib, lambda b: b[1:].mul_(2)),
    "view under no_grad, write under no_grad": lambda lib: _split_blocks(lib),
    "view under grad mode": lambda lib: (lib.ones(3, requires_grad=True) * 1)[1:].mul_(2),
    "through detach()": lambda lib: _detached_view(lib),
    "no gradient anywhere": lambda lib: _plain_view(lib),
}


def _in_no_grad(lib, f):
    b = lib.ones(3, requires_grad=True) * 1
    with lib.no_grad():
        f(b)
    return b


def _split_blocks(lib):
    b = lib.ones(3, requires_grad=True) * 1
    with lib.no_grad():
        v = b[1:]
    with lib.no_grad():
        v.mul_(2)
    return b


def _detached_view(lib):
    b = lib.ones(3, requires_grad=True) * 1
    with lib.no_grad():
        v = b.detach()[1:]
    return v.mul_(2)


def _plain_view(lib):
    b = lib.ones(3)
    with lib.no_grad():
        v = b[1:]
    return v.mul_(2)


@pytest.mark.parametrize("name", list(_ALLOWED))
def test_allowed(name):
    _ALLOWED[name](gg)


@pytest.mark.parametrize("name", list(_ALLOWED))
def test_allowed_as_torch(name):
    _ALLOWED[name](pytest.importorskip("torch"))


# Writes under no_grad into y = x * 2 (2 x 3), then (y * w).sum().backward() with w = arange(6):
# PyTorch's x.grad is 2 * w for every one of them (the write is not recorded).
_UNRECORDED = {
    "slice = 0": lambda y, lib: y.__setitem__((slice(None), slice(1, None)), 0),
    "row = 5": lambda y, lib: y.__setitem__(1, 5),
    "element = 5": lambda y, lib: y.__setitem__((1, 2), 5),
    "mask = 0": lambda y, lib: y.__setitem__(lib.tensor([[True, False, True], [False] * 3]), 0),
    "index = 0": lambda y, lib: y.__setitem__(lib.tensor([1]), 0),
    "fill_": lambda y, lib: y.fill_(3),
    "row mul_": lambda y, lib: y[0].mul_(3),
    "column copy_": lambda y, lib: y[:, 1].copy_(lib.zeros(2)),
    "t() row zero_": lambda y, lib: y.t()[0].zero_(),
    "row clamp_": lambda y, lib: y[0].clamp_(max=0),
    "view then write": lambda y, lib: y.view(6)[2:].add_(1),
}


def _unrecorded(name: str, lib, through: str = "no_grad"):
    x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    y = x * 2
    if through == "no_grad":
        with lib.no_grad():
            _UNRECORDED[name](y, lib)
    else:  # the same write through y.detach() under grad mode
        _UNRECORDED[name](y.detach(), lib)
    w = lib.arange(6, dtype=lib.float64).reshape(2, 3)
    (y * w).sum().backward()
    return x, y


@pytest.mark.parametrize("through", ["no_grad", "detach"])
@pytest.mark.parametrize("name", list(_UNRECORDED))
def test_unrecorded_write_passes_the_gradient(name, through):
    x, y = _unrecorded(name, gg, through)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.arange(6.0).reshape(2, 3))
    assert y.requires_grad and y.grad_fn.name() == "MulBackward0"


@pytest.mark.parametrize("through", ["no_grad", "detach"])
@pytest.mark.parametrize("name", list(_UNRECORDED))
def test_unrecorded_write_as_torch(name, through):
    torch = pytest.importorskip("torch")
    x, y = _unrecorded(name, gg, through)
    tx, ty = _unrecorded(name, torch, through)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    assert y.grad_fn.name() == ty.grad_fn.name()


def test_data_write_keeps_the_graph():
    # y.data[0] = 5 (PyTorch: y keeps MulBackward0 and passes its gradient to x unchanged)
    x = gg.ones(3, requires_grad=True)
    y = x * 3
    y.data[0] = 5
    y.sum().backward()
    assert y.tolist() == [5.0, 3.0, 3.0] and y.grad_fn.name() == "MulBackward0"
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_saved_value_error_names_the_recorded_op():
    # the no_grad write bumps the version, and the error names the last recorded op (Mul), as PyTorch's
    x = gg.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    with gg.no_grad():
        y[0] = 7
    with pytest.raises(RuntimeError, match=r"which is output 0 of Mul(Backward0)?, is at version 1; expected version 0"):
        z.sum().backward()


_INFERENCE = ("A view was created in inference mode and is being modified inplace in normal mode. Given that this use "
              "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view "
              "and the inplace either both inside the inference_mode block (if you don't want the inplace to be "
              "tracked) or both outside (if you want the inplace to be tracked).")


def _inference_view(lib, requires_grad: bool):
    b = lib.ones(3, requires_grad=True) * 1 if requires_grad else lib.ones(3)
    with lib.inference_mode():
        v = b[:2]
    return b, v


@pytest.mark.parametrize("lib_name", ["glassgrad", "torch"])
def test_views_of_normal_tensors_made_in_inference_mode(lib_name):
    lib = gg if lib_name == "glassgrad" else pytest.importorskip("torch")
    b, v = _inference_view(lib, False)
    assert not v.is_inference()  # a view of a normal tensor is a normal tensor
    v.add_(1)  # allowed outside the block: nothing requires grad
    assert b.tolist() == [2.0, 2.0, 1.0]
    b, v = _inference_view(lib, True)
    with pytest.raises(RuntimeError) as e:
        v.add_(1)
    assert str(e.value).splitlines()[0] == _INFERENCE
    with lib.no_grad():
        v.add_(1)  # not recorded: allowed
    with lib.inference_mode():
        w = lib.ones(3)
        assert w[:2].is_inference()  # a view of an inference tensor is one



def test_a_view_made_under_no_grad_is_recorded_once():
    # one node, as a view made with grad mode on: the view of a tensor that requires grad is
    # recorded as its marked node only (docs/inplace-and-views.md, "Views made under no_grad")
    x = gg.randn(4, 6, requires_grad=True)

    def records(make):
        was = gg._C.host_timing()
        gg._C.set_host_timing(True)
        try:
            before = gg._C.host_times()["record"][1]
            v = make()
            return gg._C.host_times()["record"][1] - before, v
        finally:
            gg._C.set_host_timing(was)

    with_grad, _ = records(lambda: x.view(24))
    with gg.no_grad():
        without, v = records(lambda: x.view(24))
    assert with_grad == without == 1
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    np.testing.assert_array_equal(v.detach().numpy(), x.detach().numpy().reshape(24))
