"""optimizer.step() records its updates under the scope "optimizer" with the role "optimizer"
(pushed onto the thread's stacks without a scope object, docs/performance.md "The plain loop's
host work (issue 34)"), and leaves the stacks as it found them, a failed step included; and the
parameters it computes first (written in place since last computed) are found in one call."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _trace


def _stacks():
    return tuple(list(s) for s in _trace._local.stacks)


def _model_and_step(make=lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9)):
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.ReLU(), gg.nn.Linear(4, 2))
    opt = make(model.parameters())
    x = gg.tensor(np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32))
    y = gg.tensor(np.array([0, 1, 1, 0, 1]))
    return model, opt, x, y


@pytest.mark.parametrize("make", [lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: gg.optim.Adam(ps), lambda ps: gg.optim.RMSprop(ps)],
                         ids=["sgd", "adam", "rmsprop"])
def test_updates_are_recorded_in_the_optimizer_scope(make):
    model, opt, x, y = _model_and_step(make)
    seen = []
    before = _stacks()
    for _ in range(2):  # the first step makes the state row by row, the second records groups whole
        gg.cross_entropy(model(x), y).backward()
        with gg.debug.register_hook("optimizer", lambda node, i, o: seen.append((node.scope, node.role)),
                                    when="optimizer"):
            opt.step()
        opt.zero_grad()
        assert _stacks() == before
    assert seen and set(seen) == {("optimizer", "optimizer")}


def test_a_failed_step_leaves_the_stacks_as_they_were():
    model, opt, x, y = _model_and_step()
    gg.cross_entropy(model(x), y).backward()
    before = _stacks()

    def hook(node, inputs, outputs):
        raise KeyboardInterrupt("stop")

    with gg.debug.register_hook("optimizer", hook, when="optimizer"):
        with pytest.raises(KeyboardInterrupt):
            opt.step()
    assert _stacks() == before
    with _trace.scope("outer", role="forward", layer="L"):  # a step inside a scope pops only its own
        inside = _stacks()
        opt.step()
        assert _stacks() == inside
    assert _stacks() == before


def test_parameters_written_in_place_are_computed_before_the_update():
    # w.data.fill_(...) leaves a pending in-place result: step() computes it first, then updates
    # it (PyTorch: the update reads the filled values).
    model, opt, x, y = _model_and_step(lambda ps: gg.optim.SGD(ps, lr=0.5))
    gg.cross_entropy(model(x), y).backward()
    first = model[0]
    grad_w = first.weight.grad.numpy().copy()
    first.weight.data.fill_(0.25)
    opt.step()
    np.testing.assert_allclose(first.weight.detach().numpy(), 0.25 - 0.5 * grad_w, rtol=1e-6, atol=1e-7)
