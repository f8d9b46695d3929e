"""inplace=True on activations and dropout does what PyTorch's does: the module (or F. function)
returns its input tensor itself, changed, and every alias and view of it sees the change; a leaf
that requires grad is refused; backward through a network of in-place activations gives PyTorch's
gradients, and reading a value an in-place activation overwrote raises PyTorch's error. Compared
with torch where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as gnn
import glassgrad.nn.functional as gF

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

X = np.random.default_rng(0).standard_normal((2, 3, 4)) * 3

MODULES = [
    ("ReLU", lambda nn: nn.ReLU(inplace=True)),
    ("ReLU-positional", lambda nn: nn.ReLU(True)),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(0.2, inplace=True)),
    ("ELU", lambda nn: nn.ELU(0.5, inplace=True)),
    ("SiLU", lambda nn: nn.SiLU(inplace=True)),
    ("Hardtanh", lambda nn: nn.Hardtanh(-2.0, 2.5, inplace=True)),
    ("ReLU6", lambda nn: nn.ReLU6(inplace=True)),
    ("Hardswish", lambda nn: nn.Hardswish(inplace=True)),
    ("Hardsigmoid", lambda nn: nn.Hardsigmoid(inplace=True)),
    ("Mish", lambda nn: nn.Mish(inplace=True)),
]


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


@pytest.mark.parametrize("name, make", MODULES, ids=[m[0] for m in MODULES])
def test_inplace_module_changes_its_input_and_aliases_as_torch(name, make):
    results = []
    for lib, nn in ((gg, gnn), (torch, tnn)):
        x = lib.tensor(X.copy())
        alias, row = x.view(-1), x[1]
        out = make(nn)(x)
        assert out is x, f"{name}: the module returned a new tensor"
        results.append((_np(x), _np(alias).reshape(X.shape), _np(row), x._version))
    for got, want in zip(results[0], results[1]):
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("fn", ["relu_", "leaky_relu_", "elu_", "hardtanh_"])
def test_functional_inplace_forms(fn):
    for lib, F in ((gg, gF), (torch, tF)):
        x = lib.tensor(X.copy())
        assert getattr(F, fn)(x) is x
    np.testing.assert_allclose(_np(getattr(gF, fn)(gg.tensor(X.copy()))), _np(getattr(tF, fn)(torch.tensor(X))))
    assert gg.relu_(gg.tensor(X.copy())).min().item() == 0.0


def test_dropout_inplace_zeroes_the_input_itself_in_training_only():
    for p_layer in (gnn.Dropout(0.5, inplace=True), gnn.Dropout2d(0.5, inplace=True)):
        x = gg.ones(4, 6, 2, 2)
        alias = x.view(-1)
        assert p_layer(x) is x
        zeros = (alias == 0).sum().item()
        assert 0 < zeros < alias.numel() and set(np.unique(x.numpy())) <= {0.0, 2.0}
        p_layer.eval()
        before = x.numpy().copy()
        assert p_layer(x) is x and np.array_equal(x.numpy(), before)
    y = gg.ones(8)
    assert gF.dropout(y, 0.25, training=True, inplace=True) is y


def test_a_leaf_that_requires_grad_is_refused_as_torch():
    with pytest.raises(RuntimeError):
        tnn.ReLU(inplace=True)(torch.ones(3, requires_grad=True))
    with pytest.raises(gg.GlassgradError, match="leaf[\\s\\S]*fix:"):
        gnn.ReLU(inplace=True)(gg.ones(3, requires_grad=True))


def test_an_overwritten_saved_output_raises_as_torch():
    """sigmoid saves its output; relu_ overwrites it: backward refuses, in both libraries."""
    for lib, nn in ((gg, gnn), (torch, tnn)):
        w = lib.tensor(X.copy(), requires_grad=True)
        y = (w * 2).sigmoid()
        nn.ReLU(inplace=True)(y)
        with pytest.raises((RuntimeError, gg.GlassgradError), match="modified by an inplace operation"):
            y.sum().backward()


def _network(lib, nn, seed_arrays):
    conv_w, lin_w, x = seed_arrays
    model = nn.Sequential(nn.Conv2d(2, 3, 3, bias=False), nn.BatchNorm2d(3), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(3, 4, bias=False), nn.LeakyReLU(0.1, inplace=True),
                          nn.Dropout(0.5, inplace=True), nn.Linear(4, 2, bias=False), nn.ELU(inplace=True)).double()
    with (gg if lib is gg else torch).no_grad():
        model[0].weight.copy_(lib.tensor(conv_w))
        model[5].weight.copy_(lib.tensor(lin_w))
        model[8].weight.copy_(lib.tensor(np.ones((2, 4))))
    model.train()
    model[7].eval()  # the same (no) dropout mask in both libraries; BatchNorm in training mode
    out = model(lib.tensor(x))
    (out * out).sum().backward()
    return [_np(out), _np(model[0].weight.grad), _np(model[5].weight.grad), _np(model[1].weight.grad)]


def test_a_network_of_inplace_activations_trains_as_torch():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((3, 2, 3, 3)), rng.standard_normal((4, 3)), rng.standard_normal((2, 2, 4, 4))]
    for got, want in zip(_network(gg, gnn, arrays), _network(torch, tnn, arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
