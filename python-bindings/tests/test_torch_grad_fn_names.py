"""Tensor.grad_fn named as PyTorch's node: type(y.grad_fn).__name__ and y.grad_fn.name() give
the class name PyTorch's autograd gives ('AddBackward0', 'DivBackward0', 'SumBackward1'), for
the same expression in both libraries. glassgrad records some ops under other names (x / 2 as a
multiplication, t() as a permutation); the recording function names PyTorch's node then.
Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_W = np.random.default_rng(3).standard_normal((4, 4))

# name: f(lib, x, w) with x a (4, 4) float64 leaf that requires grad, w a constant
_EXPRESSIONS = {
    "x + 1": lambda L, x, w: x + 1, "1 + x": lambda L, x, w: 1 + x, "x - 1": lambda L, x, w: x - 1,
    "1 - x": lambda L, x, w: 1 - x, "sub(x, 1, alpha=2)": lambda L, x, w: L.sub(x, 1, alpha=2),
    "x * 2": lambda L, x, w: x * 2, "x / 2": lambda L, x, w: x / 2, "x / 3": lambda L, x, w: x / 3,
    "div(x, 0.25)": lambda L, x, w: L.div(x, 0.25), "true_divide(x, 2)": lambda L, x, w: L.true_divide(x, 2),
    "2 / x": lambda L, x, w: 2 / x, "1 / x": lambda L, x, w: 1 / x, "reciprocal": lambda L, x, w: x.reciprocal(),
    "x / w": lambda L, x, w: x / w, "x - w": lambda L, x, w: x - w, "-x": lambda L, x, w: -x,
    "x ** 2": lambda L, x, w: x ** 2,
    "sum": lambda L, x, w: x.sum(), "sum(1)": lambda L, x, w: x.sum(1), "sum((0, 1))": lambda L, x, w: x.sum((0, 1)),
    "mean": lambda L, x, w: x.mean(), "mean(-1, keepdim)": lambda L, x, w: x.mean(-1, keepdim=True),
    "t": lambda L, x, w: x.t(), "transpose": lambda L, x, w: x.transpose(0, 1), "T": lambda L, x, w: x.T,
    "mT": lambda L, x, w: x.mT, "permute": lambda L, x, w: x.permute(1, 0), "swapaxes": lambda L, x, w: x.swapaxes(0, 1),
    "unsqueeze": lambda L, x, w: x.unsqueeze(1), "squeeze()": lambda L, x, w: x.unsqueeze(0).squeeze(),
    "squeeze(0)": lambda L, x, w: x.unsqueeze(0).squeeze(0), "squeeze((0,))": lambda L, x, w: x.unsqueeze(0).squeeze((0,)),
    "select": lambda L, x, w: x.select(1, 2), "view": lambda L, x, w: x.view(16), "reshape": lambda L, x, w: x.reshape(2, 8),
    "flatten": lambda L, x, w: x.flatten(),
    "cat": lambda L, x, w: L.cat([x, x]), "stack": lambda L, x, w: L.stack([x, x], 1), "hstack": lambda L, x, w: L.hstack([x, x]),
    "cumprod": lambda L, x, w: x.cumprod(0), "log1p": lambda L, x, w: x.abs().log1p(),
    "mm": lambda L, x, w: x.mm(w), "x @ v": lambda L, x, w: x @ w[0], "dot": lambda L, x, w: x[0] @ w[0],
    "einsum i,i->": lambda L, x, w: L.einsum("i,i->", x[0], w[0]),
    "einsum ij,jk->ik": lambda L, x, w: L.einsum("ij,jk->ik", x, w),
    "einsum ij,j->i": lambda L, x, w: L.einsum("ij,j->i", x, w[0]),
    "einsum bij,bjk->bik": lambda L, x, w: L.einsum("bij,bjk->bik", x.reshape(2, 2, 4), w.reshape(2, 4, 2)),
    "einsum i,j->ij": lambda L, x, w: L.einsum("i,j->ij", x[0], w[0]),
    "einsum ij,ij->ij": lambda L, x, w: L.einsum("ij,ij->ij", x, w),
    "einsum ij->": lambda L, x, w: L.einsum("ij->", x), "einsum ii->": lambda L, x, w: L.einsum("ii->", x),
    "exp": lambda L, x, w: x.exp(), "relu": lambda L, x, w: F.relu(x) if L is gg else torch.nn.functional.relu(x),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w, w[0]),
    "Linear of a batch of matrices": lambda L, x, w: L.nn.Linear(4, 2).double()(x.reshape(2, 2, 4)),
    "mse_loss": lambda L, x, w: L.nn.functional.mse_loss(x, w),
    "MSELoss(reduction='sum')": lambda L, x, w: L.nn.MSELoss(reduction="sum")(x, w),
    "cross_entropy": lambda L, x, w: L.nn.functional.cross_entropy(x, L.tensor([0, 3, 1, 1])),
    "cross_entropy none": lambda L, x, w: L.nn.functional.cross_entropy(x, L.tensor([0, 3, 1, 1]), reduction="none"),
    "nll_loss": lambda L, x, w: L.nn.functional.nll_loss(x.log_softmax(1), L.tensor([0, 3, 1, 1])),
    "nll_loss sum": lambda L, x, w: L.nn.functional.nll_loss(x, L.tensor([0, 3, 1, 1]), reduction="sum"),
    "binary_cross_entropy": lambda L, x, w: L.nn.functional.binary_cross_entropy(x.sigmoid(), w.sigmoid()),
    "binary_cross_entropy_with_logits": lambda L, x, w: L.nn.functional.binary_cross_entropy_with_logits(
        x, w.sigmoid(), reduction="sum"),
    "smooth_l1_loss": lambda L, x, w: L.nn.functional.smooth_l1_loss(x, w),
    "huber_loss": lambda L, x, w: L.nn.functional.huber_loss(x, w, delta=0.5),
    "l1_loss": lambda L, x, w: L.nn.functional.l1_loss(x, w),
    "x[0]": lambda L, x, w: x[0], "x[:, 1]": lambda L, x, w: x[:, 1], "x[1:]": lambda L, x, w: x[1:],
    "x[0, 1:]": lambda L, x, w: x[0, 1:], "x[1:, 0]": lambda L, x, w: x[1:, 0], "x[None]": lambda L, x, w: x[None],
    "x[0, None]": lambda L, x, w: x[0, None], "x[None, 0]": lambda L, x, w: x[None, 0],
    "x[..., 2]": lambda L, x, w: x[..., 2], "x[-1, -1]": lambda L, x, w: x[-1, -1],
    "x[None, 1:]": lambda L, x, w: x[None, 1:], "x[:, ::2]": lambda L, x, w: x[:, ::2],
    "x[index]": lambda L, x, w: x[L.tensor([2, 0])], "x[mask]": lambda L, x, w: x[x > 0],
    "clamp(min=0)": lambda L, x, w: x.clamp(min=0), "clamp(-1, 1)": lambda L, x, w: x.clamp(-1, 1),
    "clamp(max=tensor)": lambda L, x, w: x.clamp(max=w), "clip": lambda L, x, w: x.clip(max=0.5),
    "masked_fill number": lambda L, x, w: x.masked_fill(w > 0, 0.5),
    "masked_fill 0-d tensor": lambda L, x, w: x.masked_fill(w > 0, L.tensor(0.5, dtype=L.float64)),
    "max()": lambda L, x, w: x.max(), "amax(1)": lambda L, x, w: x.amax(1), "amax((0, 1))": lambda L, x, w: x.amax((0, 1)),
    "amax()": lambda L, x, w: x.amax(), "min()": lambda L, x, w: x.min(), "amin()": lambda L, x, w: x.amin(),
    "amin(0)": lambda L, x, w: x.amin(0), "max(1).values": lambda L, x, w: x.max(1).values,
    "min(0, keepdim).values": lambda L, x, w: x.min(0, keepdim=True).values,
    "std": lambda L, x, w: x.std(), "std(1)": lambda L, x, w: x.std(1), "var": lambda L, x, w: x.var(0),
}




def _written(write):
    """f(lib, x, w) that writes x-derived values into a new tensor (write(lib, target, x)) and
    returns the tensor written."""
    def f(L, x, w):
        target = L.zeros(4, 4, dtype=L.float64)
        write(L, target, x)
        return target
    return f


def _computed(write):
    """f(lib, x, w) that writes into a computed tensor y = x * 3 (write(lib, y, w)) and returns y."""
    def f(L, x, w):
        y = x * 3
        write(L, y, w)
        return y
    return f


def _setitem(key, value):
    return lambda L, t, v: t.__setitem__(key, value(v))


# in-place writes: PyTorch names copy_ CopyBackwards, fill_ FillBackward2/3, a write into a part
# of a tensor CopySlices
_EXPRESSIONS.update({
    "zeros.copy_(x)": _written(lambda L, t, x: t.copy_(x)),
    "zeros.copy_(x * 2)": _written(lambda L, t, x: t.copy_(x * 2)),
    "zeros.copy_(x[0]) broadcast": _written(lambda L, t, x: t.copy_(x[0])),
    "zeros.copy_(x.float())": _written(lambda L, t, x: t.copy_(x.float())),
    "zeros[:] = x": _written(_setitem(slice(None), lambda x: x)),
    "zeros[...] = x": _written(_setitem(Ellipsis, lambda x: x)),
    "zeros[:, :] = x": _written(_setitem((slice(None), slice(None)), lambda x: x)),
    "zeros[:] = x[0]": _written(_setitem(slice(None), lambda x: x[0])),
    "zeros[0] = x[1]": _written(_setitem(0, lambda x: x[1])),
    "zeros[1:] = x[1:]": _written(_setitem(slice(1, None), lambda x: x[1:])),
    "zeros[:, 0] = x[0]": _written(_setitem((slice(None), 0), lambda x: x[0])),
    "zeros.fill_(x.sum())": _written(lambda L, t, x: t.fill_(x.sum())),
    "y.fill_(2)": _computed(lambda L, y, w: y.fill_(2.0)),
    "y.zero_()": _computed(lambda L, y, w: y.zero_()),
    "y[:] = 0": _computed(_setitem(slice(None), lambda w: 0)),
    "y[0] = 0": _computed(_setitem(0, lambda w: 0)),
    "y.copy_(w)": _computed(lambda L, y, w: y.copy_(w)),
    "y.add_(w)": _computed(lambda L, y, w: y.add_(w)),
    "y.mul_(2)": _computed(lambda L, y, w: y.mul_(2)),
    "y.clamp_(min=0)": _computed(lambda L, y, w: y.clamp_(min=0)),
    "y.relu_()": _computed(lambda L, y, w: y.relu_()),
})


def _node_names(lib, f):
    x = lib.tensor(np.random.default_rng(4).standard_normal((4, 4)), requires_grad=True)
    y = f(lib, x, lib.tensor(_W))
    return type(y.grad_fn).__name__, y.grad_fn.name(), repr(y).rpartition("grad_fn=")[2]


@pytest.mark.parametrize("name", list(_EXPRESSIONS))
def test_grad_fn_is_named_as_torch(name):
    # the class name, name() (which gives the namespace of a node PyTorch writes by hand:
    # torch::autograd::CopyBackwards) and the tensor's repr
    assert _node_names(gg, _EXPRESSIONS[name]) == _node_names(torch, _EXPRESSIONS[name])


def test_the_blitz_tutorial_prints_pytorchs_nodes():
    walks = []
    for lib in (gg, torch):
        lib.manual_seed(0)
        net = lib.nn.Linear(4, 2)
        loss = lib.nn.MSELoss()(net(lib.ones(3, 4)), lib.zeros(3, 2))
        walks.append((loss.grad_fn.name(), type(loss.grad_fn).__name__))
    assert walks[0] == walks[1] == ("MseLossBackward0", "MseLossBackward0")


def test_grad_fn_classes_stay_grad_fn_nodes():
    x = gg.ones(2, requires_grad=True)
    a, b = (x + 1).grad_fn, (x + 2).grad_fn
    assert type(a) is type(b) and type(a).__name__ == "AddBackward0"
    assert type((x * 2).grad_fn) is not type(a)
    assert repr(a).startswith("<AddBackward0 object at ")
    assert isinstance(a.next_functions, tuple)
