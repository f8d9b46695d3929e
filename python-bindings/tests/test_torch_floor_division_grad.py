"""Floor division of tensors that require grad, as PyTorch's: x // y and floor_divide give a
result that requires grad, div(rounding_mode='floor') too, with a zero gradient for each operand
that requires it (PyTorch's DivBackward2; its // node has no derivative, and backward through it
raises there, where glassgrad gives zeros). Values as PyTorch's, broadcasting included. Skipped
when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_X = np.array([[-2.5, -1.0, 0.5, 3.75, 7.0], [1.0, -0.3, 2.2, -6.5, 4.0]])
_Y = np.array([0.75, -2.0, 1.5, 2.0, -0.4])


@pytest.mark.parametrize("which", ["x", "y", "both", "neither"])
@pytest.mark.parametrize("form", ["//", "floor_divide", "div floor", "number divisor"])
def test_floor_division_requires_grad_as_torch(form, which):
    got, want = [], []
    for lib, out in ((gg, got), (torch, want)):
        x = lib.tensor(_X, requires_grad=which in ("x", "both"))
        y = lib.tensor(_Y, requires_grad=which in ("y", "both"))
        z = {"//": lambda: x // y, "floor_divide": lambda: lib.floor_divide(x, y),
             "div floor": lambda: lib.div(x, y, rounding_mode="floor"), "number divisor": lambda: x // 1.5}[form]()
        out.extend([z.detach().numpy(), z.requires_grad])
        if form == "div floor" and z.requires_grad:
            z.sum().backward()
            out.extend([None if t.grad is None else t.grad.numpy() for t in (x, y)])
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:2] == want[1:2]
    for g, w in zip(got[2:], want[2:]):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_array_equal(g, w)


def test_div_floor_is_named_as_torchs_node_and_no_grad_leaves_it_plain():
    x = gg.tensor(_X, requires_grad=True)
    assert gg.div(x, 2.0, rounding_mode="floor").grad_fn.name() == "DivBackward2"
    with gg.no_grad():
        assert not (x // 2).requires_grad
