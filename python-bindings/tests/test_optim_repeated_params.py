"""A parameter listed twice in one group: PyTorch warns ("optimizer contains a parameter group with
duplicate parameters", pytorch/pytorch#40967), keeps both entries and updates the parameter once per
entry in every step. Models with shared layers meet it by chaining their parts' parameters
(eriklindernoren/PyTorch-GAN's unit.py: `Adam(itertools.chain(E1.parameters(), E2.parameters(),
...))` with a shared encoder block). Two groups holding one parameter stay refused, as there."""
import itertools
import warnings

import numpy as np
import pytest

import glassgrad.torch as gtorch

CASES = [("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True, "dampening": 0.0}),
         ("Adam", {}), ("AdamW", {"weight_decay": 0.1}), ("RMSprop", {}), ("Adagrad", {})]


def _train(torch, name, kwargs, steps=3):
    """A Linear(3, 2) with fixed weights, its parameters given twice to one optimizer, `steps`
    steps on a squared loss; returns the weights, the bias and the parameter count of the group."""
    layer = torch.nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(np.arange(6.0).reshape(2, 3) / 7 - 0.3, dtype=torch.float32))
        layer.bias.copy_(torch.tensor([0.1, -0.2], dtype=torch.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = getattr(torch.optim, name)(itertools.chain(layer.parameters(), layer.parameters()), lr=0.05, **kwargs)
    assert any("duplicate parameters" in str(w.message) for w in caught), [str(w.message) for w in caught]
    x = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]])
    for _ in range(steps):
        opt.zero_grad()
        ((layer(x) - 0.25) ** 2).sum().backward()
        opt.step()
    return layer.weight.detach().numpy(), layer.bias.detach().numpy(), len(opt.param_groups[0]["params"])


@pytest.mark.parametrize("name, kwargs", CASES)
def test_a_parameter_listed_twice_is_updated_twice_a_step_as_pytorch(name, kwargs):
    mine = _train(gtorch, name, kwargs)
    assert mine[2] == 4
    torch = pytest.importorskip("torch")
    theirs = _train(torch, name, kwargs)
    assert theirs[2] == 4
    np.testing.assert_allclose(mine[0], theirs[0], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=2e-5, atol=2e-6)


def test_a_parameter_listed_twice_moves_twice_as_far_under_plain_sgd():
    # torch-free: two entries, two steps of lr * grad each (the gradient is read once, before the step)
    w = gtorch.nn.Parameter(gtorch.tensor([1.0, -2.0]))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = gtorch.optim.SGD([w, w], lr=0.1)
    (w * gtorch.tensor([3.0, 5.0])).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [1.0 - 2 * 0.3, -2.0 - 2 * 0.5], rtol=1e-6)


def test_two_groups_sharing_a_parameter_are_still_refused():
    w = gtorch.nn.Parameter(gtorch.zeros(2))
    with pytest.raises(ValueError, match="more than one parameter group"):
        gtorch.optim.Adam([{"params": [w]}, {"params": [w]}])
