"""A graph recorded before optimizer.step() and differentiated after it: PyTorch computed its forward
values before the step, so backward reads them as they were. glassgrad computes them lazily, from a
copy of each parameter the step overwrote, made only when a graph that may still be differentiated
reads it (docs/inplace-and-views.md, "Backward after an optimizer step"): a plain
`backward(); step()` loop copies nothing. Compared with torch 2.14; skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(3)
_X = _RNG.standard_normal((5, 3))
_X2 = _RNG.standard_normal((5, 3))
_Y = _RNG.standard_normal((5, 1))


def _model(L):
    """Linear, Tanh, Linear in float64 with the same parameters in both libraries."""
    m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 1)).double()
    rng = np.random.default_rng(7)
    with L.no_grad():
        for p in m.parameters():
            p.copy_(L.tensor(rng.uniform(-0.9, 0.9, tuple(p.shape))))
    return m


def _t(L, a):
    return L.tensor(a, dtype=L.float64)


def _grads(m):
    return [p.grad.detach().numpy().copy() for p in m.parameters()]


def _copies():
    return gg.cache_stats()["update_copies"]


def _same(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_a_plain_loop_copies_no_parameter():
    m = _model(gg)
    opt = gg.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    before = _copies()
    for _ in range(3):
        loss = ((m(_t(gg, _X)) - _t(gg, _Y)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()  # the loss (and its graph) is still alive at the next step
    assert _copies() == before


def _read_then_step(L, m, opt, read):
    """loss = m(x)'s squared error; (read it); step with gradients of ones; backward."""
    loss = ((m(_t(L, _X)) - _t(L, _Y)) ** 2).sum()
    if read:
        loss.item()
    for p in m.parameters():
        p.grad = L.ones_like(p)
    opt.step()
    loss.backward()


@pytest.mark.parametrize("read", [False, True], ids=["pending loss", "loss read first"])
def test_a_step_between_the_forward_and_backward_uses_the_weights_before_it(read):
    results = []
    for L in (torch, gg):
        m = _model(L)
        opt = L.optim.SGD(m[0].parameters(), lr=0.1)  # the first layer: its input needs no gradient
        before = _copies()
        _read_then_step(L, m, opt, read)
        results.append(_grads(m))
    _same(results[1], results[0])
    assert _copies() == before + 2  # the first layer's weight and bias: the pending graph reads them


def test_two_steps_before_backward():
    results = []
    for L in (torch, gg):
        m = _model(L)
        opt = L.optim.SGD(m[0].parameters(), lr=0.1, momentum=0.5)
        loss = ((m(_t(L, _X)) - _t(L, _Y)) ** 2).sum()
        for p in m.parameters():
            p.grad = L.ones_like(p)
        opt.step()
        opt.step()
        loss.backward()
        results.append(_grads(m) + [p.detach().numpy().copy() for p in m.parameters()])
    _same(results[1], results[0])


def test_a_second_graph_recorded_before_the_step_is_differentiated_after_it():
    results = []
    for L in (torch, gg):
        m = _model(L)
        opt = L.optim.SGD(m[0].parameters(), lr=0.1)
        first = m(_t(L, _X)).square().sum()
        second = m(_t(L, _X2)).square().sum()
        first.backward()
        opt.step()
        opt.zero_grad()
        second.backward()
        results.append(_grads(m))
    _same(results[1], results[0])


def test_a_graph_whose_rule_reads_the_stepped_weight_still_raises():
    for L in (torch, gg):
        m = _model(L)
        opt = L.optim.SGD(m.parameters(), lr=0.1)  # the second layer's weight: its input's gradient reads it
        loss = m(_t(L, _X)).square().sum()
        for p in m.parameters():
            p.grad = L.ones_like(p)
        opt.step()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_a_generator_loss_made_before_the_discriminator_steps():
    """G's loss is recorded, D steps on its own loss, then G's loss is differentiated: PyTorch
    raises, as D's first layer saved its weight (its input, G's output, needs a gradient), and so
    does glassgrad, although the D(fake) values are computed from a copy of D's old weights."""
    outcomes = []
    for L in (torch, gg):
        g = L.nn.Linear(2, 3).double()
        d = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.LeakyReLU(0.2), L.nn.Linear(4, 1)).double()
        for k, p in enumerate(list(g.parameters()) + list(d.parameters())):
            with L.no_grad():
                p.copy_(L.tensor(np.random.default_rng(k).uniform(-0.8, 0.8, tuple(p.shape))))
        opt_d = L.optim.SGD(d.parameters(), lr=0.1)
        z = _t(L, _X[:, :2])
        fake = g(z)
        g_loss = -d(fake).mean()
        d_loss = d(fake.detach()).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        try:
            g_loss.backward()
            outcomes.append(_grads(g))
        except RuntimeError as e:
            outcomes.append(str(e))
    assert isinstance(outcomes[0], str) == isinstance(outcomes[1], str), outcomes
    if isinstance(outcomes[0], str):
        assert "modified by an inplace operation" in outcomes[1]
    else:
        _same(outcomes[1], outcomes[0])


def test_a_graph_held_only_through_an_index_is_not_copied_for():
    """An action index taken with gradients on (no no_grad) and kept, as a replay memory keeps it:
    its graph holds the parameters' versions, but no backward can reach it, so the steps after it
    copy nothing."""
    m = _model(gg)
    opt = gg.optim.SGD(m.parameters(), lr=0.1)
    kept = []
    before = _copies()
    for _ in range(3):
        kept.append(m(_t(gg, _X)).max(1).indices)
        kept[-1].tolist()
        loss = m(_t(gg, _X2)).square().sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert _copies() == before
    out = m(_t(gg, _X))  # a value that needs a gradient, held: a step after it copies what it read
    loss = m(_t(gg, _X2)).square().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert _copies() == before + 4
    del out


@pytest.mark.parametrize("write", ["x[:] = value", "x.copy_(value)", "x[1:3] = value[1:3]"])
def test_a_write_computed_from_a_parameter_before_the_step_keeps_the_weights_before_it(write):
    # A hand-written batch norm's running mean (`moving_mean[:] = m * moving_mean + (1 - m) * mean`
    # into a detached buffer), written in the forward pass and read after optimizer.step()
    def run(L):
        m = _model(L)
        opt = L.optim.SGD(m.parameters(), lr=0.5)
        buf = L.zeros(4, dtype=L.float64).detach()
        value = L.tanh(m[0](_t(L, _X))).mean(0) * 0.9
        if write == "x[:] = value":
            buf[:] = value
        elif write == "x.copy_(value)":
            buf.copy_(value)
        else:
            buf[1:3] = value[1:3]
        del value
        loss = m(_t(L, _X)).pow(2).mean()
        loss.backward()
        opt.step()
        return buf.detach().numpy().copy()

    np.testing.assert_allclose(run(gg), run(torch), rtol=1e-10, atol=1e-12)


def test_a_write_from_a_forward_value_no_variable_holds_is_computed_from_the_weights_before_the_step():
    # The hand-written batch norm of a course notebook: the running mean is written from the layer's
    # output inside forward(), whose name is then rebound to the next layer's output
    def run(L):
        m = _model(L)
        opt = L.optim.SGD(m.parameters(), lr=0.5)
        buf = L.zeros(4, dtype=L.float64).detach()
        h = m[0](_t(L, _X))
        buf[:] = h.mean(0)
        h = m[2](m[1](h))
        h.pow(2).mean().backward()
        opt.step()
        return buf.detach().numpy().copy()

    np.testing.assert_allclose(run(gg), run(torch), rtol=1e-10, atol=1e-12)


_OPTIMIZERS = {
    "SGD": lambda L, ps: L.optim.SGD(ps, lr=0.5),
    "SGD with momentum": lambda L, ps: L.optim.SGD(ps, lr=0.3, momentum=0.9),
    "Adam": lambda L, ps: L.optim.Adam(ps, lr=0.05),
}


@pytest.mark.parametrize("make_opt", list(_OPTIMIZERS.values()), ids=list(_OPTIMIZERS))
def test_several_writes_and_a_view_write_from_forward_values_over_steps(make_opt):
    # Running statistics written inside the forward pass, as a hand-written batch norm keeps
    # them: two whole writes (one into a detached buffer) and a write into a view, every step
    def run(L):
        m = _model(L)
        opt = make_opt(L, m.parameters())
        mean = L.zeros(4, dtype=L.float64)
        square = L.zeros(4, dtype=L.float64).detach()
        tail = L.zeros(4, dtype=L.float64)
        seen = []
        for x in (_X, _X2, _X):
            h = m[0](_t(L, x))
            mean[:] = 0.9 * mean.detach() + 0.1 * h.mean(0)
            square.copy_(h.pow(2).mean(0))
            tail[1:] = h.mean(0)[1:] * 2
            h = m[2](m[1](h))
            opt.zero_grad()
            ((h - _t(L, _Y)) ** 2).mean().backward()
            opt.step()
            seen.append([t.detach().numpy().copy() for t in (mean, square, tail)])
        return seen

    _same(sum(run(gg), []), sum(run(torch), []))


def test_the_written_values_are_the_forward_values_before_the_step():
    m = _model(gg)
    w, b = (p.detach().numpy().copy() for p in m[0].parameters())
    opt = gg.optim.SGD(m.parameters(), lr=0.5)
    buf = gg.zeros(4, dtype=gg.float64).detach()
    h = m[0](_t(gg, _X))
    buf[:] = h.mean(0)
    m[2](m[1](h)).pow(2).mean().backward()
    opt.step()
    np.testing.assert_allclose(buf.detach().numpy(), (_X @ w.T + b).mean(0), rtol=1e-12)
    assert not np.allclose(m[0].bias.detach().numpy(), b)  # the step did run


class _RunningMean:
    """A layer keeping the running mean of its input in a registered buffer, written in forward."""

    @staticmethod
    def make(L, detach):
        class RunningMean(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("running_mean", L.zeros(4, dtype=L.float64))

            def forward(self, x):
                new = 0.8 * self.running_mean + 0.2 * (x.detach() if detach else x).mean(0)
                self.running_mean[:] = new.detach() if detach else new
                return x

        return RunningMean()


@pytest.mark.parametrize("detach", [False, True], ids=["tracked", "detached"])
def test_a_module_buffer_written_in_forward_is_read_after_the_step(detach):
    def run(L):
        m = _model(L)
        net = L.nn.Sequential(m[0], _RunningMean.make(L, detach), m[1], m[2])
        opt = L.optim.SGD(net.parameters(), lr=0.5, momentum=0.5)
        out = []
        for x in (_X, _X2):
            opt.zero_grad()
            net(_t(L, x)).pow(2).mean().backward()
            opt.step()
            out.append(net[1].running_mean.detach().numpy().copy())
        return out

    _same(run(gg), run(torch))


def test_a_write_recorded_without_gradients_into_a_tensor_not_computed_yet():
    # No node of the write's graph tracks a gradient, so none counts as a reader of the weights
    def run(L):
        m = _model(L)
        opt = L.optim.SGD(m.parameters(), lr=0.5)
        buf = _t(L, _X2[0]).repeat(2)[:4] * 1.5  # computed from data, not a stored tensor
        with L.no_grad():
            buf[1:] = m[0](_t(L, _X)).mean(0)[1:]
        for p in m.parameters():
            p.grad = L.ones_like(p)
        opt.step()
        return [buf.numpy().copy()]

    _same(run(gg), run(torch))


def test_a_plain_loop_with_a_running_mean_copies_no_parameter():
    m = _model(gg)
    opt = gg.optim.SGD(m.parameters(), lr=0.1)
    buf = gg.zeros(4, dtype=gg.float64).detach()
    before = _copies()
    for _ in range(3):
        h = m[0](_t(gg, _X))
        buf[:] = 0.5 * buf + 0.5 * h.mean(0)
        loss = m[2](m[1](h)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    buf.detach().numpy()
    assert _copies() == before  # the step's plan computes the write before it updates
