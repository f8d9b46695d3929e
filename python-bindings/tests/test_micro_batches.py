"""Gradient accumulation over micro-batches equals the full-batch gradient (no batch norm)."""
import numpy as np
import pytest

import glassgrad as gg


class MLP(gg.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = gg.Linear(6, 10)
        self.fc2 = gg.Linear(10, 4)

    def forward(self, x):
        return self.fc2(gg.tanh(self.fc1(x)))


def _grads(micro_batches):
    gg.manual_seed(0)
    model = MLP().double()
    rng = np.random.default_rng(1)
    x = gg.tensor(rng.standard_normal((30, 6)))
    y = gg.tensor(rng.integers(0, 4, 30))
    if micro_batches is None:
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        value = loss.item()
    else:
        value = gg.backward_in_micro_batches(lambda a, b: gg.cross_entropy(model(a), b), x, y,
                                             micro_batches=micro_batches).item()
    return value, {n: p.grad.numpy() for n, p in model.named_parameters()}


@pytest.mark.parametrize("k", [1, 3, 4, 7])
def test_accumulated_gradient_equals_the_full_batch_gradient(k):
    loss_full, full = _grads(None)
    loss_acc, acc = _grads(k)
    assert loss_acc == pytest.approx(loss_full, rel=1e-12)
    for name in full:
        np.testing.assert_allclose(acc[name], full[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_too_many_micro_batches_explains():
    with pytest.raises(gg.GlassgradError) as e:
        gg.backward_in_micro_batches(lambda a: a.sum(), gg.tensor(np.zeros((2, 3))), micro_batches=5)
    assert "micro_batches <= 2" in str(e.value)
