"""Liveness is checked by poisoning: with every arena buffer filled with NaN the moment its
planned lifetime ends, training gives bit-identical results, so no step ever reads a buffer
after the planner let it go (fused, in-place-reusing and checkpointed plans alike)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C


def _train(poison, budget_fraction=None, steps=2):
    _C.set_poison_freed(poison)
    gg.clear_plan_cache()
    try:
        gg.manual_seed(0)
        model = gg.models.ResNet18(width=8)
        opt = gg.SGD(model.parameters(), lr=0.05, momentum=0.9)
        rng = np.random.default_rng(0)
        x = gg.tensor(rng.random((8, 3, 32, 32), dtype=np.float32))
        y = gg.tensor(rng.integers(0, 10, 8))

        def step():
            loss = gg.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss

        step()
        if budget_fraction:
            plain = gg.memory_report(lambda: step())
            _C.set_memory_budget(int(budget_fraction * (plain.arena + plain.outputs)))
        losses = [step().item() for _ in range(steps)]
        return losses, model.state_dict()
    finally:
        _C.set_poison_freed(False)
        _C.set_memory_budget(0)


@pytest.mark.parametrize("budget_fraction", [None, 0.7])
def test_poisoned_buffers_never_change_the_numbers(budget_fraction):
    clean_losses, clean_state = _train(False, budget_fraction)
    losses, state = _train(True, budget_fraction)
    assert all(np.isfinite(losses))
    np.testing.assert_array_equal(losses, clean_losses)
    for k in clean_state:
        np.testing.assert_array_equal(state[k], clean_state[k], err_msg=k)


def test_poisoning_does_fill_dead_buffers():
    g = _C.Graph()
    x = g.add_leaf("x", [4], "float32")
    a = g.add("Exp", [x])[0]
    b = g.add("Neg", [a])[0]
    c = g.add("Log", [g.add("Exp", [b])[0]])[0]
    plan = _C.compile(g, [c], fuse=False, inplace_reuse=False)
    ex = _C.Executor(plan, poison_freed=True)
    out = ex.run([_C.Tensor.from_numpy(np.ones(4, np.float32))])[0]
    np.testing.assert_allclose(out.numpy(), -np.e * np.ones(4), rtol=1e-6)
    arena = [s for s in plan.slots if s["kind"] == "arena"]
    assert arena and all(s["last_step"] < len(plan.steps) for s in arena)
