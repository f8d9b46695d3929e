"""Floor division of tensors that require grad, as PyTorch's: x // y and floor_divide give a
result that requires grad, div(rounding_mode='floor') too, with a zero gradient for each operand
that requires it (PyTorch's DivBackward2); a backward through // (which PyTorch defines no
derivative for) raises PyTorch's "derivative for aten::floor_divide is not implemented", and so
does heaviside's. The other piecewise-constant ops give PyTorch's gradients (a table decided by
torch). Values as PyTorch's, broadcasting included. Skipped when torch is not importable."""
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


# name: f(lib, x, y) of two tensors that require grad
_PIECEWISE = {
    "//": lambda L, x, y: x // y,
    "floor_divide": lambda L, x, y: L.floor_divide(x, y),
    "// number": lambda L, x, y: x // 2,
    "number //": lambda L, x, y: 2 // x,
    "div floor": lambda L, x, y: L.div(x, y, rounding_mode="floor"),
    "div trunc": lambda L, x, y: L.div(x, y, rounding_mode="trunc"),
    "remainder": lambda L, x, y: x % y,
    "remainder number": lambda L, x, y: x % 2,
    "fmod": lambda L, x, y: L.fmod(x, y),
    "heaviside": lambda L, x, y: L.heaviside(x, y),
    "heaviside of a constant": lambda L, x, y: L.heaviside(x, L.tensor([0.5], dtype=L.float64)),
    "sign": lambda L, x, y: L.sign(x),
    "round": lambda L, x, y: L.round(x),
    "round decimals": lambda L, x, y: L.round(x, decimals=1),
    "floor": lambda L, x, y: L.floor(x),
    "ceil": lambda L, x, y: L.ceil(x),
    "trunc": lambda L, x, y: L.trunc(x),
    "frac": lambda L, x, y: L.frac(x),
    "copysign": lambda L, x, y: L.copysign(x, y),
    "copysign of a number": lambda L, x, y: L.copysign(x, -1.0),
}


def _backward(L, name):
    x = L.tensor(_X, requires_grad=True)
    y = L.tensor(_Y, requires_grad=True)
    z = _PIECEWISE[name](L, x, y)
    if not z.requires_grad:
        return "no grad"
    try:
        z.sum().backward()
    except RuntimeError as e:
        return e
    return [None if t.grad is None else t.grad.numpy() for t in (x, y)]


@pytest.mark.parametrize("name", sorted(_PIECEWISE))
def test_backward_through_a_piecewise_constant_op_as_torch(name):
    want, got = _backward(torch, name), _backward(gg, name)
    if isinstance(want, Exception):
        assert isinstance(got, RuntimeError), f"PyTorch raised {want}; glassgrad gave {got}"
        assert str(want).splitlines()[0] in str(got).splitlines()[0]
        return
    assert not isinstance(got, Exception), f"PyTorch ran; glassgrad raised {got}"
    assert isinstance(got, list) == isinstance(want, list), (got, want)
    if isinstance(want, list):
        for g, w in zip(got, want):
            assert (g is None) == (w is None)
            if g is not None:
                np.testing.assert_array_equal(g, w)


def test_floor_division_of_a_detached_operand_still_differentiates_the_other():
    x = gg.tensor(_X, requires_grad=True)
    (x * 2 + x.detach() // 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full_like(_X, 2.0))
