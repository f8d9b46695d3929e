"""What a computed value keeps of its graph (docs/architecture.md, "What a computed value keeps"):
a loss kept after its backward(), an accuracy or a prediction kept from each batch, holds no batch
of images or labels, as in PyTorch; what it keeps of autograd (grad_fn, the second-backward error,
retain_graph) is unchanged. Memory is counted on the CPU allocator of the process."""
import gc

import numpy as np
import pytest

import glassgrad as gg


@pytest.fixture(autouse=True)
def _cpu(on_the_cpu):
    yield


def _current():
    gc.collect()
    return gg.memory_stats("cpu")["current"]


def _model():
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Conv2d(1, 4, 3), gg.nn.ReLU(), gg.nn.Flatten(), gg.nn.Linear(4 * 26 * 26, 10))
    return model, gg.SGD(model.parameters(), lr=0.01, momentum=0.9)


def _batch(rng):
    return (gg.tensor(rng.random((16, 1, 28, 28), dtype=np.float32)), gg.tensor(rng.integers(0, 10, 16)))


BATCH_BYTES = 16 * 28 * 28 * 4  # one batch's images


def _growth_per_step(keep, steps=6, train=True):
    """Bytes the process holds more after each step, with keep(step outputs) appending to a list."""
    model, opt = _model()
    rng = np.random.default_rng(0)
    kept, seen = [], []
    for _ in range(steps):
        x, y = _batch(rng)
        if train:
            out = model(x)
            loss = gg.cross_entropy(out, y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        else:
            with gg.no_grad():
                out = model(x)
            loss = None
        keep(kept, out, y, loss)
        del x, y, out, loss
        seen.append(_current())
    return [b - a for a, b in zip(seen[1:], seen[2:])], kept


def test_kept_losses_hold_no_batch():
    growth, kept = _growth_per_step(lambda kept, out, y, loss: kept.append(loss))
    assert max(growth) < BATCH_BYTES // 4, growth  # a 0-d loss a step, not the batch it came from
    assert all(k.grad_fn is not None and k.requires_grad for k in kept)
    values = [k.item() for k in kept]
    assert all(np.isfinite(values))


def test_kept_accuracies_hold_no_batch():
    def keep(kept, out, y, loss):
        acc = (out.argmax(dim=1) == y).float().mean()
        acc.item()
        kept.append(acc)
    growth, kept = _growth_per_step(keep)
    assert max(growth) < BATCH_BYTES // 4, growth
    assert all(0.0 <= k.item() <= 1.0 for k in kept)


def test_kept_predictions_under_no_grad_hold_no_batch():
    def keep(kept, out, y, loss):
        pred = out.argmax(dim=1)
        pred.tolist()
        kept.append(pred)
    growth, kept = _growth_per_step(keep, train=False)
    assert max(growth) < BATCH_BYTES // 4, growth
    assert all(tuple(k.shape) == (16,) for k in kept)


def test_a_kept_loss_still_refuses_a_second_backward_and_shows_its_graph():
    model, opt = _model()
    x, y = _batch(np.random.default_rng(1))
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    del x, y
    _current()
    names = []
    node = loss.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        nxt = [f for f, _ in node.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        node = nxt[0] if nxt else None
    assert names[0] == "NllLossBackward0" and len(names) >= 4
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_retain_graph_keeps_what_a_second_backward_reads():
    w = gg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x = gg.tensor([0.5, 1.5, 2.5])
    loss = (w * x).pow(2).sum()
    loss.backward(retain_graph=True)
    first = w.grad.numpy().copy()
    del x
    _current()
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-6)
    np.testing.assert_allclose(first, 2 * np.array([1.0, -2.0, 3.0]) * np.array([0.5, 1.5, 2.5]) ** 2, rtol=1e-6)


def test_a_computed_value_without_gradient_is_a_leaf_and_keeps_its_values():
    x = gg.tensor([1.0, 2.0, 3.0])
    y = x * 2 + 1
    assert y.tolist() == [3.0, 5.0, 7.0]
    assert y.is_leaf and y.grad_fn is None
    x.add_(10)  # the input changes after y was computed: y is its own tensor, as in PyTorch
    assert y.tolist() == [3.0, 5.0, 7.0]
    z = y * 3
    y.mul_(2)
    assert z.tolist() == [9.0, 15.0, 21.0] and y.tolist() == [6.0, 10.0, 14.0]
    v = y[1:]
    v.fill_(0)
    assert y.tolist() == [6.0, 0.0, 0.0]


def test_a_value_computed_from_parameters_under_no_grad_survives_the_step():
    model, opt = _model()
    x, y = _batch(np.random.default_rng(2))
    with gg.no_grad():
        before = model(x)
    first = before.numpy().copy()
    gg.cross_entropy(model(x), y).backward()
    opt.step()
    np.testing.assert_array_equal(before.numpy(), first)
    with gg.no_grad():
        after = model(x)
    assert not np.array_equal(after.numpy(), first)
