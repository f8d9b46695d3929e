"""Optimizers written the way PyTorch users write them (pytorch/examples' mnist: p.add_(...) under
no_grad, a state dict of tensors) give the built-in optimizer's parameters, in a plain loop and
in a compiled step, where every update writes its parameter's own buffer (no copy, no Assign)."""
import numpy as np
import pytest

import glassgrad as gg


class Net(gg.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = gg.Linear(6, 5)
        self.fc2 = gg.Linear(5, 3)

    def forward(self, x):
        return self.fc2(gg.relu(self.fc1(x)))


def _model(seed=0):
    gg.manual_seed(seed)
    return Net().astype("float64")


def _data(step):
    rng = np.random.default_rng(step)
    return gg.tensor(rng.standard_normal((8, 6))), gg.tensor(rng.integers(0, 3, 8))


def sgd_momentum_step(params, state, lr, momentum, weight_decay=0.0):
    """torch.optim.SGD's rule, as a user writes it."""
    with gg.no_grad():
        for p in params:
            d_p = p.grad
            if weight_decay:
                d_p = d_p.add(p, alpha=weight_decay)
            if p not in state:
                buf = state[p] = d_p.clone().detach()
            else:
                buf = state[p]
                buf.mul_(momentum).add_(d_p)
            p.add_(buf, alpha=-lr)


def adadelta_step(params, state, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0):
    """torch.optim.Adadelta's rule, as a user writes it."""
    with gg.no_grad():
        for p in params:
            grad = p.grad
            if weight_decay:
                grad = grad.add(p, alpha=weight_decay)
            st = state.setdefault(p, {})
            if not st:
                st["square_avg"] = gg.zeros(*p.shape, dtype="float64")
                st["acc_delta"] = gg.zeros(*p.shape, dtype="float64")
            square_avg, acc_delta = st["square_avg"], st["acc_delta"]
            square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
            p.add_(delta, alpha=-lr)


def _train(model, update, steps=4, compiled=False):
    """Losses of `steps` steps, and the plan of the second (the one a compiled step records)."""
    def step(x, y):
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        update()
        for p in model.parameters():
            p.grad = None
        return loss

    run = gg.compile(step) if compiled else step
    losses, recorded = [], None
    for s in range(steps):
        losses.append(float(run(*_data(s))))
        if s == 1:
            recorded = str(gg._C.last_plan())
    return losses, run, recorded


def _params(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_handwritten_sgd_with_momentum_matches_the_builtin_sgd():
    builtin = _model()
    opt = gg.SGD(builtin.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    hand = _model()
    state = {}
    want, _, _ = _train(builtin, opt.step)
    got, _, _ = _train(hand, lambda: sgd_momentum_step(list(hand.parameters()), state, 0.1, 0.9, 0.01))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for a, b in zip(_params(hand), _params(builtin)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_handwritten_adadelta_matches_the_builtin_adadelta():
    builtin = _model()
    opt = gg.optim.Adadelta(builtin.parameters(), lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.01)
    hand = _model()
    state = {}
    want, _, _ = _train(builtin, opt.step)
    got, _, _ = _train(hand, lambda: adadelta_step(list(hand.parameters()), state, 1.0, 0.9, 1e-6, 0.01))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for a, b in zip(_params(hand), _params(builtin)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("rule", ["sgd", "adadelta"])
def test_handwritten_optimizer_compiled_matches_plain_and_writes_in_place(rule):
    def make(model):
        state = {}
        params = list(model.parameters())
        if rule == "sgd":
            return lambda: sgd_momentum_step(params, state, 0.1, 0.9)
        return lambda: adadelta_step(params, state, lr=1.0)

    plain = _model()
    want, _, _ = _train(plain, make(plain), steps=5)
    compiled = _model()
    pointers = [p._raw().storage_ptr for p in compiled.parameters()]
    got, run, recorded = _train(compiled, make(compiled), steps=5, compiled=True)
    assert run.replays == 3  # a warm-up call, a recording call, then replays
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for a, b in zip(_params(compiled), _params(plain)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert [p._raw().storage_ptr for p in compiled.parameters()] == pointers
    ops = [line.split()[1] for line in recorded.splitlines() if line.strip().startswith("#")]
    assert "Assign" not in ops, "an update copied its value instead of writing the parameter's buffer"
