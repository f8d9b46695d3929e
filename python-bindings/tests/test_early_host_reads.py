"""Early host reads (docs/cuda.md, "Early host reads"): a small GPU output the host read after an
earlier run of its plan (a plain loop's `loss.item()` after `optimizer.step()`) is copied to the
host right after the last step that writes it, and the read waits for that copy only, while the
backward and the updates run on. The bookkeeping (where in the plan a read can go, which outputs
are candidates, the switch) is checked on the CPU; the values, the order of later reads and the
errors on CUDA (skipped without a GPU), each against the same loop with early reads off."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

cuda = pytest.mark.cuda


def _batches(seed, n):
    rng = np.random.default_rng(seed)
    return [(rng.random((16, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 16)) for _ in range(n)]


def _model(seed, device="cuda", momentum=0.0):
    gg.manual_seed(seed)
    model = gg.models.SimpleCNN().to(device)
    return model, gg.SGD(model.parameters(), lr=0.05, momentum=momentum)


def _step(model, opt, xn, yn, device="cuda", zero_grad=True):
    x, y = gg.tensor(xn, device=device), gg.tensor(yn, device=device)
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    if zero_grad:
        opt.zero_grad()
    return loss


def _numpy_state(model):
    return {k: v.detach().numpy(force=True) for k, v in model.state_dict().items()}


def _loss_output(plan):
    """The index among the plan's outputs of the step's loss: its only 0-d float32 output."""
    infos = {s["value"]: s for s in plan.slots if s["value"] in plan.output_values}
    found = [i for i, v in enumerate(plan.output_values) if tuple(infos[v]["shape"]) == () and infos[v]["dtype"] == "float32"]
    assert len(found) == 1, found
    return found[0]


def test_the_loss_is_complete_before_the_backward_and_the_updates():
    # The read goes right after the last step writing the loss: every step up to it belongs to
    # the forward pass, and the backward's and the optimizer's steps all come after it.
    model, opt = _model(0, "cpu", momentum=0.9)
    for xn, yn in _batches(0, 2):
        _step(model, opt, xn, yn, "cpu")
    plan, ex = _C.last_plan(), _C.last_executor()
    ready = ex.output_ready_steps[_loss_output(plan)]
    roles = [st["role"] for st in plan.steps]
    assert 0 <= ready < len(roles)
    assert set(roles[:ready + 1]) == {"forward"}
    assert "backward" in roles[ready + 1:] and "optimizer" in roles[ready + 1:]
    # every output is complete by the plan's end, and the ready step of each is a step that writes it
    assert len(ex.output_ready_steps) == len(plan.output_values)
    assert all(-1 <= r < len(roles) for r in ex.output_ready_steps)


def test_cpu_plans_have_no_early_reads():
    # The CPU runs its plans synchronously: no output is a candidate, reads are unchanged.
    model, opt = _model(0, "cpu")
    losses = [_step(model, opt, xn, yn, "cpu").item() for xn, yn in _batches(1, 3)]
    assert all(np.isfinite(losses))
    assert set(_C.last_executor().early_read_states) == {""}


def test_the_switch_turns_early_reads_off_and_on():
    assert _C.early_reads_enabled()  # on by default (GLASSGRAD_EARLY_READS unset): docs/cuda.md
    _C.set_early_reads(False)
    try:
        assert not _C.early_reads_enabled()
    finally:
        _C.set_early_reads(True)
    assert _C.early_reads_enabled()


@pytest.fixture
def early_reads():
    """Early reads on for one test, as they were after it."""
    was = _C.early_reads_enabled()
    _C.set_early_reads(True)
    yield
    _C.set_early_reads(was)


def _train(early, graphs=True, seed=0, steps=12, reads=None):
    """With early reads on or off: the losses read with item() after every step, what
    reads(model) gave right after each item(), the final state, the last executor and plan."""
    was = _C.early_reads_enabled()
    _C.set_early_reads(early)
    _C.set_cuda_graphs(graphs)
    gg.clear_plan_cache()
    try:
        model, opt = _model(seed, momentum=0.9)
        losses, seen = [], []
        for xn, yn in _batches(seed, steps):
            loss = _step(model, opt, xn, yn, zero_grad=False)
            losses.append(loss.item())
            if reads is not None:
                seen.append(reads(model))
            opt.zero_grad()
        return losses, seen, _numpy_state(model), _C.last_executor(), _C.last_plan()
    finally:
        _C.set_early_reads(was)
        _C.set_cuda_graphs(True)


@cuda
@pytest.mark.parametrize("graphs", [True, False])
def test_item_gives_the_synchronous_values_over_many_steps(graphs):
    run = _train(True, graphs, steps=20)
    ref = _train(False, graphs, steps=20)
    np.testing.assert_allclose(run[0], ref[0], rtol=1e-6, atol=1e-7)
    for k in ref[2]:
        np.testing.assert_allclose(run[2][k], ref[2][k], rtol=1e-5, atol=1e-6, err_msg=k)
    ex = run[3]
    # the first item() asked for a copy; from the next run on each step's loss was read from it
    assert ex.early_read_states[_loss_output(run[4])] == "read"
    if graphs:
        assert ex.graph_captured


@cuda
def test_parameters_and_gradients_read_after_item_are_the_updated_ones():
    # The suffix (backward, updates) is still running when item() returns: a parameter or a
    # gradient read next waits for the whole stream and sees the step's results.
    def weight_and_grad(model):
        return model.conv1.weight.detach().numpy(force=True), model.fc.bias.grad.numpy(force=True)

    run = _train(True, seed=3, reads=weight_and_grad)
    ref = _train(False, seed=3, reads=weight_and_grad)
    np.testing.assert_allclose(run[0], ref[0], rtol=1e-6, atol=1e-7)
    for (w, g), (w_ref, g_ref) in zip(run[1], ref[1]):
        np.testing.assert_allclose(w, w_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, g_ref, rtol=1e-5, atol=1e-6)


@cuda
def test_state_dict_right_after_an_early_item_is_complete():
    # Each step's state_dict read right after item() holds that step's updates (and the running
    # statistics): as in the loop without early reads, and unchanged once the device is idle.
    run = _train(True, seed=5, steps=6, reads=_numpy_state)
    ref = _train(False, seed=5, steps=6, reads=_numpy_state)
    for got, want in zip(run[1], ref[1]):
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    for k in run[2]:
        np.testing.assert_array_equal(run[2][k], run[1][-1][k], err_msg=k)


@cuda
def test_a_value_written_after_its_copy_is_read_anew(early_reads):
    # The loss is read early; then a later plan writes into its buffer (an in-place update of the
    # realized loss): the next read must see the new value, not the early copy.
    model, opt = _model(6)
    for xn, yn in _batches(6, 5):
        loss = _step(model, opt, xn, yn)
        first = loss.item()
        with gg.no_grad():
            loss.add_(1.0)
        assert loss.item() == pytest.approx(first + 1.0, rel=1e-6)


@cuda
def test_a_bad_label_in_the_read_part_raises_at_item(early_reads):
    model, opt = _model(7)
    batches = _batches(7, 6)
    for xn, yn in batches:
        _step(model, opt, xn, yn).item()  # warm-up, capture, early reads from then on
    xn, yn = batches[0]
    yn = yn.copy()
    yn[3] = 12  # out of range for 10 classes
    with pytest.raises(IndexError):
        _step(model, opt, xn, yn).item()
        gg.cuda.synchronize()


@cuda
def test_an_error_after_the_copy_still_surfaces(early_reads):
    # An out-of-range index in a step queued after the loss: item() may return the loss early,
    # but the error is reported by the next synchronization at the latest.
    model, opt = _model(8)
    table = gg.randn(10, 4, device="cuda")
    batches = _batches(8, 6)

    def step(xn, yn, rows):
        x, y = gg.tensor(xn, device="cuda"), gg.tensor(yn, device="cuda")
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        index = gg.tensor(np.array(rows), device="cuda")
        picked = table.index_select(0, index)  # recorded after the loss: runs after its copy
        opt.step()
        opt.zero_grad()
        loss.item()
        return picked

    for xn, yn in batches[:5]:
        assert step(xn, yn, [1, 2, 3]).shape == (3, 4)
    with pytest.raises(IndexError):
        step(*batches[5], [1, 2, 30])
        gg.cuda.synchronize()
    gg.cuda.synchronize()  # reported once: the device is usable again


@cuda
def test_reads_stop_when_the_loss_is_no_longer_read(early_reads):
    # train_mnist.py reads its loss every 500 steps: one unread copy, then no more copies.
    model, opt = _model(9)
    batches = _batches(9, 8)
    for xn, yn in batches[:4]:
        _step(model, opt, xn, yn).item()
    ex = _C.last_executor()
    k = _loss_output(_C.last_plan())
    assert ex.early_read_states[k] == "read"
    _step(model, opt, *batches[4])  # copied, never read
    assert ex.early_read_states[k] == "made"
    _step(model, opt, *batches[5])  # the unread copy stops the copies
    assert ex.early_read_states[k] == "idle"
    loss = _step(model, opt, *batches[6])
    loss.item()  # read without a copy: asks for copies again
    assert ex.early_read_states[k] == "wanted"
