"""A leaf written in place (under no_grad, or through .data) after a graph that uses it was
recorded and before that graph's backward(): the gradient accumulates into the tensor, whose
handle now shows the newer version, as PyTorch's AccumulateGrad accumulates into the tensor and
not into a version of it. Before, it went to the old version, and `b.grad` stayed None or missed
a backward's share (docs/inplace-and-views.md)."""
import numpy as np
import pytest

import glassgrad as gg


def _linear(lib):
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3) / 10, dtype=lib.float32))
        lin.bias.fill_(0.5)
    return lin, lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float32)


def _grads(lib, case):
    lin, x = _linear(lib)
    if case == "no_grad_write":
        y = lin(x).sum()
        with lib.no_grad():
            lin.bias.add_(1)
            lin.bias.mul_(2)
        y.backward()
    elif case == "retain_graph":
        y = lin(x).sum()
        y.backward(retain_graph=True)
        with lib.no_grad():
            lin.bias.add_(1)
        y.backward()
    elif case == "data_write":
        y = lin(x).sum()
        lin.bias.data.add_(1)
        y.backward()
    elif case == "then_more":
        y = (lin(x) * 3).sum()
        with lib.no_grad():
            lin.bias.sub_(0.25)
        y.backward()
        (lin(x) ** 2).sum().backward()
    return [p.grad.detach().numpy().copy() if p.grad is not None else None for p in lin.parameters()], \
        [p.detach().numpy().copy() for p in lin.parameters()]


def test_the_gradient_reaches_the_tensor_written_under_no_grad():
    grads, params = _grads(gg, "no_grad_write")
    np.testing.assert_allclose(grads[0], [[3, 5, 7], [3, 5, 7]])
    np.testing.assert_allclose(grads[1], [2, 2])  # was None: it had gone to the bias before the writes
    np.testing.assert_allclose(params[1], [3, 3])


def test_a_second_backward_after_a_write_adds_its_share():
    grads, _ = _grads(gg, "retain_graph")
    np.testing.assert_allclose(grads[1], [4, 4])  # was [2, 2]: the second share went to the old version


@pytest.mark.parametrize("case", ["no_grad_write", "retain_graph", "data_write", "then_more"])
def test_as_pytorch(case):
    torch = pytest.importorskip("torch")
    got_g, got_p = _grads(gg, case)
    want_g, want_p = _grads(torch, case)
    for a, b in zip(got_g + got_p, want_g + want_p):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_hooks_of_the_parameter_see_the_gradient_once():
    lin, x = _linear(gg)
    seen = []
    lin.bias.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    y = lin(x).sum()
    with gg.no_grad():
        lin.bias.add_(1)
    y.backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], [2, 2])
    np.testing.assert_allclose(lin.bias.grad.detach().numpy(), [2, 2])
