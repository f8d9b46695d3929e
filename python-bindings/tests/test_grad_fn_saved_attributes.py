"""grad_fn._saved_<name> as PyTorch's nodes expose them (expected values written from PyTorch 2:
the autograd "saved tensors" tutorial's `y.grad_fn._saved_self is x`, `_saved_result` equal to y,
x * 2's _saved_other a 0-d int64 tensor and _saved_self None, sizes and strides as tuples); a
node without the attribute raises AttributeError."""
import numpy as np
import pytest

import glassgrad as gg

_X = np.arange(6.0).reshape(2, 3) / 5 + 0.1
_W = np.arange(6.0).reshape(3, 2) / 7


def _inputs(lib):
    x = lib.tensor(_X, requires_grad=True)
    w = lib.tensor(_W, requires_grad=True)
    b = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    return x, w, b


def test_saved_inputs_are_the_script_tensors():
    x, w, _ = _inputs(gg)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x
    assert y.grad_fn._saved_exponent == 2
    z = x * w.t()
    assert z.grad_fn._saved_self is x and z.grad_fn._saved_other.equal(w.t())


def test_saved_result_has_the_outputs_values():
    x, _, _ = _inputs(gg)
    for y in (x.exp(), x.tanh(), x.sigmoid(), x.relu(), x.sqrt(), x.softmax(1)):
        r = y.grad_fn._saved_result
        assert r.equal(y) and r.dtype == y.dtype


def test_number_operands():
    x, _, _ = _inputs(gg)
    y = x * 2
    assert y.grad_fn._saved_self is None
    other = y.grad_fn._saved_other
    assert other.dtype == gg.int64 and other.shape == () and other.item() == 2
    other = (x * 2.5).grad_fn._saved_other
    assert other.dtype == gg.float64 and other.item() == 2.5
    assert (x / 2).grad_fn._saved_other.item() == 2 and (x / 2).grad_fn._saved_self is None
    assert (x * x.detach()).grad_fn._saved_self is None  # other needs no gradient: self is not saved
    assert (2 ** x).grad_fn._saved_self == 2 and (2 ** x).grad_fn._saved_exponent is x
    assert (x + 1).grad_fn._saved_alpha == 1 and (x - x).grad_fn._saved_alpha == 1


def test_shapes_dims_and_flags():
    x, w, b = _inputs(gg)
    mm = (x @ w).grad_fn
    assert (mm._saved_self_sym_sizes, mm._saved_self_sym_strides) == ((2, 3), (3, 1))
    assert (mm._saved_mat2_sym_sizes, mm._saved_mat2_sym_strides) == ((3, 2), (2, 1))
    addmm = gg.nn.functional.linear(x, w.t(), b).grad_fn
    assert type(addmm).__name__ == "AddmmBackward0"
    assert addmm._saved_mat1 is x and addmm._saved_mat2.shape == (3, 2)
    assert (addmm._saved_alpha, addmm._saved_beta, addmm._saved_mat2_sym_strides) == (1, 1, (2, 1))
    s = x.sum(1).grad_fn
    assert (s._saved_dim, s._saved_keepdim, s._saved_self_sym_sizes) == ((1,), False, (2, 3))
    m = x.mean(1, keepdim=True).grad_fn
    assert (m._saved_dim, m._saved_keepdim, m._saved_self_sym_numel) == ((1,), True, 6)
    assert x.view(6).grad_fn._saved_self_sym_sizes == (2, 3)
    assert x.permute(1, 0).grad_fn._saved_dims == (1, 0)
    assert x.log_softmax(1).grad_fn._saved_dim == 1
    assert gg.nn.functional.mse_loss(x, x.detach(), reduction="sum").grad_fn._saved_reduction == 2
    assert gg.nn.functional.mse_loss(x, x.detach()).grad_fn._saved_reduction == 1


def test_missing_attribute_raises_attribute_error():
    x, _, _ = _inputs(gg)
    with pytest.raises(AttributeError, match="'NegBackward0' object has no attribute '_saved_self'"):
        _ = (-x).grad_fn._saved_self
    with pytest.raises(AttributeError):
        _ = x.exp().grad_fn._saved_self
    assert "_saved_result" in dir(x.exp().grad_fn)


_EXPRESSIONS = {
    "mul": lambda L, x, w, b: x * x, "mul const": lambda L, x, w, b: x * x.detach(),
    "mul 2": lambda L, x, w, b: x * 2, "mul 2.5": lambda L, x, w, b: x * 2.5, "add": lambda L, x, w, b: x + 2,
    "sub": lambda L, x, w, b: x - x, "rsub": lambda L, x, w, b: 1 - x, "div": lambda L, x, w, b: x / x,
    "div 2": lambda L, x, w, b: x / 2, "pow": lambda L, x, w, b: x ** 2, "pow 0.5": lambda L, x, w, b: x ** 0.5,
    "pow tensor": lambda L, x, w, b: x ** x, "rpow": lambda L, x, w, b: 2 ** x, "exp": lambda L, x, w, b: x.exp(),
    "log": lambda L, x, w, b: x.log(), "sin": lambda L, x, w, b: x.sin(), "cos": lambda L, x, w, b: x.cos(),
    "tanh": lambda L, x, w, b: x.tanh(), "sigmoid": lambda L, x, w, b: x.sigmoid(),
    "relu": lambda L, x, w, b: x.relu(), "sqrt": lambda L, x, w, b: x.sqrt(), "rsqrt": lambda L, x, w, b: x.rsqrt(),
    "abs": lambda L, x, w, b: x.abs(), "silu": lambda L, x, w, b: L.nn.functional.silu(x),
    "mm": lambda L, x, w, b: x @ w, "bmm": lambda L, x, w, b: L.bmm(x[None], w[None]),
    "linear": lambda L, x, w, b: L.nn.functional.linear(x, w.t(), b), "sum": lambda L, x, w, b: x.sum(),
    "sum(1)": lambda L, x, w, b: x.sum(1), "mean": lambda L, x, w, b: x.mean(),
    "mean(1, keepdim)": lambda L, x, w, b: x.mean(1, keepdim=True), "view": lambda L, x, w, b: x.view(6),
    "softmax": lambda L, x, w, b: x.softmax(1), "log_softmax": lambda L, x, w, b: x.log_softmax(1),
    "mse": lambda L, x, w, b: L.nn.functional.mse_loss(x, x.detach() * 2),
    "permute": lambda L, x, w, b: x.permute(1, 0), "max": lambda L, x, w, b: x.max(),
    "square": lambda L, x, w, b: x.square(), "neg": lambda L, x, w, b: -x,
}


def _saved(lib, f):
    x, w, b = _inputs(lib)
    node = f(lib, x, w, b).grad_fn
    out = {"node": type(node).__name__}
    for name in (a for a in dir(node) if a.startswith("_saved_")):
        v = getattr(node, name)
        if isinstance(v, lib.Tensor):
            v = (str(v.dtype).rpartition(".")[2], np.round(v.detach().numpy(), 12).tolist(), v is x, v is w)
        out[name] = v
    return out


@pytest.mark.parametrize("name", list(_EXPRESSIONS))
def test_saved_attributes_match_torch(name):
    torch = pytest.importorskip("torch")
    assert _saved(gg, _EXPRESSIONS[name]) == _saved(torch, _EXPRESSIONS[name])
