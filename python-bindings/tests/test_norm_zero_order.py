"""torch.norm(x, p=0) and linalg.vector_norm(x, ord=0), the count of nonzeros: in the graph as
PyTorch's (grad_fn LinalgVectorNormBackward0, backward() runs), whose gradient for x is undefined:
x.grad stays None (docs/architecture.md, "Undefined gradients")."""
import math

import pytest

import glassgrad as gg


@pytest.mark.parametrize("norm", [
    lambda x: gg.norm(x, p=0),
    lambda x: gg.linalg.vector_norm(x, ord=0),
    lambda x: x.norm(0, dim=1),
    lambda x: gg.norm(x, p=0, dim=(0, 1), keepdim=True),
])
def test_zero_norm_counts_and_leaves_the_gradient_undefined(norm):
    x = gg.tensor([[1.0, 0.0, -math.inf], [0.0, 0.0, 2.5]], requires_grad=True)
    y = norm(x)
    assert y.requires_grad and y.grad_fn.name() == "LinalgVectorNormBackward0"
    assert sorted(y.detach().reshape(-1).tolist()) in ([3.0], [1.0, 2.0])
    y.sum().backward()
    assert x.grad is None


def test_zero_norm_without_grad_is_a_plain_count():
    y = gg.norm(gg.tensor([3.0, 0.0, 1.0]), p=0)
    assert y.tolist() == 2.0 and y.grad_fn is None


def test_zero_norm_adds_nothing_to_other_gradients():
    x = gg.tensor([2.0, 0.0], requires_grad=True)
    ((x * x).sum() + gg.norm(x, p=0)).backward()
    assert x.grad.tolist() == [4.0, 0.0]


def test_against_torch():
    torch = pytest.importorskip("torch")
    t = torch.tensor([[1.0, 0.0, 3.0]], requires_grad=True)
    g = gg.tensor([[1.0, 0.0, 3.0]], requires_grad=True)
    ty, gy = torch.linalg.vector_norm(t, ord=0, dim=1), gg.linalg.vector_norm(g, ord=0, dim=1)
    assert ty.tolist() == gy.tolist() and type(ty.grad_fn).__name__ == gy.grad_fn.name()
    ty.sum().backward()
    gy.sum().backward()
    assert t.grad is None and g.grad is None
