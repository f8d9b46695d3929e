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


def test_unrealized_positions():
    # The runtime call step() asks: positions (ascending) of the tensors not computed yet.
    stored = [gg.ones(2), gg.zeros(3)]
    w = gg.ones(2, requires_grad=True)
    pending = gg.relu(w * 3)  # recorded, not run
    written = gg.zeros(2)
    written.add_(1)  # an in-place write since it was computed
    handles = [stored[0]._h, pending._h, stored[1]._h, written._h]
    assert gg._C.lazy_unrealized(handles) == [i for i, h in enumerate(handles) if not h.realized]
    assert gg._C.lazy_unrealized(handles) == [1, 3]
    assert gg._C.lazy_unrealized([]) == []
    gg._C.lazy_realize([pending._h, written._h])
    assert gg._C.lazy_unrealized(handles) == []
    np.testing.assert_array_equal(written.numpy(), [1, 1])
    np.testing.assert_array_equal(pending.detach().numpy(), [3, 3])


@pytest.mark.parametrize("n_pending", [0, 1, 2])
def test_some_parameters_written_in_place_among_many(n_pending):
    # Only the written parameters are computed first; the others are updated from their stored values.
    model, opt, x, y = _model_and_step(lambda ps: gg.optim.SGD(ps, lr=0.5))
    gg.cross_entropy(model(x), y).backward()
    params = list(model.parameters())
    before = [p.detach().numpy().copy() for p in params]
    grads = [p.grad.numpy().copy() for p in params]
    for k in range(n_pending):
        params[2 * k + 1].data.fill_(0.5 + k)  # the biases
        before[2 * k + 1][...] = 0.5 + k
    opt.step()
    for p, b, g in zip(params, before, grads):
        np.testing.assert_allclose(p.detach().numpy(), b - 0.5 * g, rtol=1e-6, atol=1e-7)
