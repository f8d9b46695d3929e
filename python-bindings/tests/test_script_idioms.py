"""Idioms of real scripts that glassgrad must treat as PyTorch does, each checked against torch
where it is installed: a module attribute replaced keeps its place among the children, the
parameters and the state_dict; torch.where of two numbers."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def _torch():
    return pytest.importorskip("torch")


def test_replacing_a_layer_or_parameter_keeps_its_position():
    torch = _torch()
    ours, theirs = nn.Module(), torch.nn.Module()
    for m, lib in ((ours, nn), (theirs, torch.nn)):
        m.a = lib.Linear(2, 2)
        m.b = lib.ReLU()
        m.c = lib.Linear(2, 2)
        m.a = lib.Linear(2, 3)
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()] == ["a", "b", "c"]
    layer = nn.Linear(2, 2)
    layer.weight = nn.Parameter(gg.zeros(2, 2))
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    bn = nn.BatchNorm2d(2)
    bn.running_mean = gg.ones(2)
    assert list(bn.state_dict()) == list(torch.nn.BatchNorm2d(2).state_dict())
    np.testing.assert_array_equal(bn.state_dict()["running_mean"], np.ones(2))


@pytest.mark.parametrize("a,b", [(1, 0), (1.0, 0), (True, False), (1, 0.5)])
def test_where_of_two_numbers_has_torchs_dtype_and_the_conditions_device(a, b):
    torch = _torch()
    mask = np.array([True, False, True])
    got = gg.where(gg.tensor(mask), a, b)
    want = torch.where(torch.tensor(mask), a, b)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "glassgrad.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.device == gg.tensor(mask).device


@pytest.mark.parametrize("init", ["w.data.normal_(0, 0.01)", "w.data.fill_(0.01)", "w.mul_(2)", "b.data.zero_()"])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_an_optimizer_steps_parameters_written_in_place_as_torchs_does(init, optimizer):
    # d2l's `net[0].weight.data.normal_(0, 0.01)` before training; then an in-place edit between steps.
    torch = _torch()
    rng = np.random.default_rng(0)
    X, Y, W, B = rng.standard_normal((8, 3)), rng.standard_normal((8, 2)), rng.standard_normal((2, 3)), np.zeros(2)
    results = []
    for lib in (gg, torch):
        layer = lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(W))
            layer.bias.copy_(lib.tensor(B))
            w, b = layer.weight, layer.bias  # noqa: F841  (read by eval(init))
            if "normal_" in init:
                w.data.copy_(lib.tensor(W * 0.01))  # the same values in both libraries
            else:
                eval(init)
        opt = getattr(lib.optim, optimizer)(layer.parameters(), lr=0.1)
        x, y = lib.tensor(X), lib.tensor(Y)
        for _ in range(3):
            loss = ((layer(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with lib.no_grad():
                layer.bias.data.mul_(0.5)
        results.append((layer.weight.detach().numpy(), layer.bias.detach().numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_normal_with_requires_grad_gives_a_leaf():
    w = gg.normal(0, 0.01, size=(2, 1), requires_grad=True)
    assert w.requires_grad and w.is_leaf and tuple(w.shape) == (2, 1) and w.dtype == "float32"
    (w * 3).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 1), 3.0))
    assert abs(float(gg.normal(5.0, 0.1, size=(4000,)).mean().item()) - 5.0) < 0.01


def test_axis_and_keepdims_are_accepted_as_torch_accepts_them():
    torch = _torch()
    x = np.random.default_rng(1).standard_normal((3, 4))
    a, t = gg.tensor(x), torch.tensor(x)
    cases = [lambda m, v: v.sum(axis=0), lambda m, v: m.sum(v, axis=1, keepdims=True), lambda m, v: v.argmax(axis=1),
             lambda m, v: v.max(axis=1).values, lambda m, v: v.mean(axis=0, keepdim=True),
             lambda m, v: m.cumsum(v, axis=0), lambda m, v: m.cat([v, v], axis=1), lambda m, v: v.std(axis=0)]
    for case in cases:
        np.testing.assert_allclose(case(gg, a).numpy(), case(torch, t).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="alias"):
        a.sum(dim=0, axis=0)


def test_factories_take_size_as_a_keyword():
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        t = getattr(gg, name)(size=(1, 2, 3), dtype=gg.float64)
        assert tuple(t.shape) == (1, 2, 3) and t.dtype == gg.float64
    with pytest.raises(TypeError, match="once"):
        gg.rand((2,), size=(3,))


def test_a_layer_or_parameter_assigned_after_none_is_the_registered_one():
    # `self.bias = None` then `if use_bias: self.bias = nn.Parameter(...)` (pytorch/examples' gcn GraphConv)
    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = None
            self.bias = nn.Parameter(gg.zeros(3))
            self.head = None
            self.head = nn.Linear(3, 1)

        def forward(self, x):
            return self.head(x + self.bias)

    layer = Layer()
    assert isinstance(layer.bias, nn.Parameter) and isinstance(layer.head, nn.Linear)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "head.weight", "head.bias"]
    layer(gg.ones(2, 3)).sum().backward()
    np.testing.assert_allclose(layer.bias.grad.detach().numpy(), np.full(3, 2.0) * layer.head.weight.detach().numpy()[0], rtol=1e-6)


def test_scalar_first_add_takes_a_zero_dim_tensor_as_its_number():
    # fast.ai's LAMB step: p.data.add_(-lr * min(r1/r2, 10), step), the alpha a 0-d tensor;
    # PyTorch's parser reads a 0-d tensor not requiring grad as the Number of the old overload
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the overload's deprecation warning
        p = gg.zeros(2)
        p.add_(-0.5 * gg.tensor(2.0), gg.tensor([1.0, 3.0]))
        assert p.tolist() == [-1.0, -3.0]
        assert gg.tensor([1.0]).addcmul(gg.tensor(2.0), gg.tensor([3.0]), gg.tensor([4.0])).tolist() == [25.0]
        for alpha in (gg.tensor([0.5]), gg.tensor(0.5, requires_grad=True)):  # PyTorch refuses these too
            with pytest.raises(TypeError):
                gg.zeros(2).add_(alpha, gg.ones(2))
