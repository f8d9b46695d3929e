"""Values computed from parameters without gradients stay usable after optimizer.step()
overwrote those parameters, as in PyTorch: the DQN tutorial's action index (argmax of the
policy under no_grad, pushed into a replay memory) is later a gather index in a loss, after
steps. Compared with torch step by step. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _nets():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 4)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    ours, theirs = gg.nn.Linear(4, 2), torch.nn.Linear(4, 2)
    ours.load_state_dict({"weight": gg.tensor(w), "bias": gg.tensor(b)})
    theirs.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(b)})
    return ours, theirs


@pytest.mark.parametrize("read_first", [True, False])
@pytest.mark.parametrize("under_no_grad", [True, False])
def test_an_index_computed_before_steps_is_a_gather_index_after_them(read_first, under_no_grad):
    xs = np.random.default_rng(1).standard_normal((4, 3, 4)).astype(np.float32)
    for fw, net in zip((gg, torch), _nets()):
        opt = fw.optim.SGD(net.parameters(), lr=0.5)
        x0 = fw.tensor(xs[0])
        if under_no_grad:
            with fw.no_grad():
                action = net(x0).max(1).indices.view(-1, 1)
        else:
            action = net(x0).max(1).indices.view(-1, 1)  # integers: never require grad
        if read_first:
            action.tolist()
        losses, grads = [], []
        for x in xs[1:]:
            loss = (net(fw.tensor(x)).gather(1, action) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            grads.append(net.weight.grad.numpy().copy())
        if fw is gg:
            ref_losses, ref_grads = losses, grads
        else:
            np.testing.assert_allclose(ref_losses, losses, rtol=1e-5)
            np.testing.assert_allclose(ref_grads, grads, rtol=1e-5, atol=1e-6)


def test_a_float_value_computed_without_gradient_before_a_step_keeps_its_value():
    ours, theirs = _nets()
    x = np.ones((1, 4), np.float32)
    got = []
    for fw, net in ((gg, ours), (torch, theirs)):
        opt = fw.optim.SGD(net.parameters(), lr=0.5)
        with fw.no_grad():
            target = net(fw.tensor(x)).max(1).values  # the DQN's target, from the net before the step
        net(fw.tensor(x)).sum().backward()
        opt.step()
        loss = ((net(fw.tensor(x))[:, 0] - target) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        got.append((target.numpy().copy(), loss.item(), net.bias.grad.numpy().copy()))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_backward_through_a_value_whose_gradient_reads_no_overwritten_weight_runs_after_the_step():
    # out = net(x) with x needing no gradient: Linear saves x for the weight's gradient, not the
    # weight, so backward after the step runs and accumulates into the updated parameters.
    got = []
    for fw, net in zip((gg, torch), _nets()):
        opt = fw.optim.SGD(net.parameters(), lr=0.5)
        out = net(fw.ones(1, 4))
        out.tolist()
        net(fw.ones(1, 4)).sum().backward()
        opt.step()
        out.sum().backward()
        got.append([net.weight.grad.numpy().copy(), net.bias.grad.numpy().copy()])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_backward_through_a_value_that_reads_an_overwritten_weight_after_the_step_still_raises():
    ours, _ = _nets()
    opt = gg.optim.SGD(ours.parameters(), lr=0.5)
    x = gg.ones(1, 4, requires_grad=True)   # x's gradient reads the weight
    out = ours(x)
    out.tolist()
    ours(gg.ones(1, 4)).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
