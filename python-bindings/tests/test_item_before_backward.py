"""A value realized before backward(): `loss.item()` (or printing an accuracy) between the forward
pass and `loss.backward(); opt.step()`. From the second step of a loop on, the first plan keeps the
forward values the gradient reads and the backward plan binds them instead of computing the
forward again (docs/architecture.md, "Values realized before backward"). Results must be those of
the step without the early read, and of PyTorch where something is written in place between the
read and backward()."""
import numpy as np
import pytest

import glassgrad as gg
from plan_inspection import forward_ops_of_last_plan

_MODIFIED = "modified by an inplace operation"


def _model(lib, seed=0):
    rng = np.random.default_rng(seed)
    conv_w = rng.standard_normal((5, 2, 3, 3)).astype(np.float32) * 0.3
    conv_b = rng.standard_normal(5).astype(np.float32) * 0.1
    fc_w = rng.standard_normal((3, 5 * 5 * 5)).astype(np.float32) * 0.1
    fc_b = rng.standard_normal(3).astype(np.float32) * 0.1
    model = lib.nn.Sequential(lib.nn.Conv2d(2, 5, 3), lib.nn.BatchNorm2d(5), lib.nn.ReLU(), lib.nn.Flatten(),
                              lib.nn.Linear(5 * 5 * 5, 3))
    state = model.state_dict()
    for key, arr in (("0.weight", conv_w), ("0.bias", conv_b), ("4.weight", fc_w), ("4.bias", fc_b)):
        state[key] = lib.tensor(arr)
    model.load_state_dict(state)
    return model


def _batches(steps, seed=1):
    rng = np.random.default_rng(seed)
    # Odd sizes and random data (never zeros): a batch of 3 images 2x7x7, 3 classes.
    return [(rng.standard_normal((3, 2, 7, 7)).astype(np.float32), rng.integers(0, 3, 3)) for _ in range(steps)]


def _train(early, steps=4, between=None):
    """Losses and final parameters of a plain SGD loop (momentum: state that a recomputation from
    updated weights would get wrong), reading the loss before backward() when `early`."""
    model = _model(gg)
    opt = gg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for x, y in _batches(steps):
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        if early:
            losses.append(loss.item())
        if between is not None:
            between(model, loss)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if not early:
            losses.append(loss.item())
    return losses, {k: np.array(v) for k, v in model.state_dict().items()}


def _assert_same(a, b):
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6, atol=1e-7)
    assert a[1].keys() == b[1].keys()
    for k in a[1]:
        np.testing.assert_allclose(a[1][k], b[1][k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_early_item_gives_the_losses_and_weights_of_the_plain_step():
    _assert_same(_train(early=True), _train(early=False))


def test_the_backward_plan_binds_the_forward_values_instead_of_computing_them_again():
    gg.clear_plan_cache()  # what the plans keep is learnt per cached plan
    model = _model(gg)
    opt = gg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    forward_ops = []
    for x, y in _batches(4):
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        loss.item()
        loss.backward()
        opt.step()
        forward_ops.append(forward_ops_of_last_plan())
        opt.zero_grad()
    # The first step computes the forward twice (nothing is known yet about what backward reads);
    # later steps' backward plans hold no forward node.
    assert forward_ops[0]
    assert forward_ops[1:] == [[], [], []]


def test_kept_values_are_released_after_the_backward_plan_read_them():
    def held_after_steps(early):
        model = _model(gg)
        opt = gg.optim.SGD(model.parameters(), lr=0.1)
        for x, y in _batches(3):
            before = gg._C.memory_stats("cpu")["current"]
            loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
            if early:
                loss.item()
            loss.backward()
            opt.step()
            held = gg._C.memory_stats("cpu")["current"] - before
            # The loss still holds its graph: a second backward is refused as without the early
            # read (the weights it read were updated).
            with pytest.raises(RuntimeError):
                loss.backward()
            opt.zero_grad()
            assert np.isfinite(loss.item())
        return held
    # While the loss (and so its graph) is alive after the step, the forward values kept for the
    # backward plan hold no memory: the step holds what the step without the early read holds.
    assert held_after_steps(True) == held_after_steps(False)


def test_no_grad_read_before_backward():
    def between(model, loss):
        with gg.no_grad():
            assert np.isfinite(model[0].weight.sum().item())
    _assert_same(_train(early=True, between=between), _train(early=False))


def _grads(lib, early, realize_between=None):
    """Each step's parameter gradients of the model (gradients zeroed per step), the loss read
    before backward() when `early`; with realize_between (True or False), two backward() calls a
    step, the first retaining the graph, and the gradient read between them when it is True."""
    model = _model(lib)
    out = []
    for x, y in _batches(3):
        model.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
        if early:
            loss.item()
        if realize_between is not None:
            loss.backward(retain_graph=True)
            if realize_between:
                model[0].weight.grad.sum().item()
        loss.backward()
        out.append([p.grad.detach().numpy().copy() for p in model.parameters()])
    return out


def _assert_grads_close(got, ref, rtol=1e-6, atol=1e-7):
    for step_got, step_ref in zip(got, ref):
        for a, b in zip(step_got, step_ref):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_retain_graph_two_backwards_after_an_early_read():
    base = _grads(gg, False, realize_between=False)
    for early, between in ((True, False), (True, True), (False, True)):
        _assert_grads_close(_grads(gg, early, realize_between=between), base)


def test_load_state_dict_between_the_read_and_backward_matches_the_step_without_the_read():
    fresh = {k: np.array(v) for k, v in _model(gg, seed=5).state_dict().items()}

    def between(model, loss):
        model.load_state_dict({k: gg.tensor(v) for k, v in fresh.items()})
    _assert_same(_train(early=True, between=between), _train(early=False, between=between))


def _two_steps(lib, write, early):
    """Three steps of y = relu(x @ w + b), loss = (y * y).sum() with an in-place write between the
    read and backward(); returns each step's gradients (None where there is none) or the error."""
    rng = np.random.default_rng(3)
    w = lib.tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(5).astype(np.float32), requires_grad=True)
    out = []
    for _ in range(3):
        x = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32))
        h = x @ w
        y = lib.relu(h + b)
        loss = (y * y).sum()
        if early:
            loss.item()
        try:
            write(lib, w, b, h, y)
            loss.backward()
        except RuntimeError as e:
            return str(e)
        out.append([None if p.grad is None else p.grad.detach().numpy().copy() for p in (w, b)])
        w.grad = None
        b.grad = None
    return out


def _bias_in_place(lib, w, b, h, y):
    with lib.no_grad():
        b.add_(1.0)  # b is read by an Add, which saves nothing: backward uses the values it had


def _saved_output_in_place(lib, w, b, h, y):
    y.mul_(2.0)  # y is saved by y * y


def _weight_in_place(lib, w, b, h, y):
    with lib.no_grad():
        w.mul_(0.5)  # w is saved by x @ w


@pytest.mark.parametrize("write", [_bias_in_place, _saved_output_in_place, _weight_in_place])
def test_in_place_writes_between_the_read_and_backward_change_nothing(write):
    late, early = _two_steps(gg, write, False), _two_steps(gg, write, True)
    assert isinstance(late, str) == isinstance(early, str), (late, early)
    if isinstance(late, str):
        assert late == early
        return
    for step_late, step_early in zip(late, early):
        for a, b in zip(step_late, step_early):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_a_saved_output_written_in_place_after_the_read_is_refused_as_by_pytorch():
    torch = pytest.importorskip("torch")
    assert _MODIFIED in _two_steps(torch, _saved_output_in_place, True)
    assert _MODIFIED in _two_steps(gg, _saved_output_in_place, True)


def test_gradients_after_an_early_read_match_pytorch():
    torch = pytest.importorskip("torch")
    _assert_grads_close(_grads(gg, True), _grads(torch, True), rtol=1e-4, atol=1e-5)


def test_a_buffer_written_in_place_each_step_is_not_kept_apart():
    """A hand-written momentum buffer (`buf = grad.clone().detach()`, then `buf.mul_(m).add_(grad)`
    under no_grad each step) is read at a version its own in-place write has replaced: it is not a
    value to keep for a later plan. Kept apart, it made the plans differ from step to step (a
    compile each time) and copied every buffer (an Assign node) instead of writing it in place."""
    model = _model(gg)
    params = list(model.parameters())
    state = {}
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    plans = []
    for x, y in _batches(8):
        loss = gg.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        loss.backward()
        with gg.no_grad():
            for p in params:
                if p not in state:
                    state[p] = p.grad.clone().detach()
                else:
                    state[p].mul_(0.9).add_(p.grad)
                p.add_(state[p], alpha=-0.1)
                p.grad = None
        float(loss)
        plans.append(str(gg._C.last_plan()))
    stats = gg.cache_stats()
    assert stats["hits"] >= 4, stats
    assert all(" Assign " not in plan for plan in plans[3:]), plans[-1]
