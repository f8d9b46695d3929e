"""Whole-step CUDA graphs: a cached plan on the GPU is captured once and replayed; new batches are
bound without capturing again; replays give the numbers step-by-step execution gives."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from training_helpers import train_step

pytestmark = pytest.mark.cuda


def _setup(seed=0, n=256):
    """SimpleCNN, its SGD optimizer, the compiled training step and n images with labels."""
    gg.manual_seed(seed)
    model = gg.models.SimpleCNN().to("cuda")
    opt = gg.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(seed)
    X = gg.tensor(rng.random((n, 1, 28, 28), dtype=np.float32), device="cuda")
    y = gg.tensor(rng.integers(0, 10, n), device="cuda")
    return model, opt, gg.compile(train_step(model, opt)), X, y


def _train(graphs, seed=0, n=256, before_step=None):
    """Batches of 32 with or without whole-step graphs; before_step(i, opt) runs before step i."""
    _C.set_cuda_graphs(graphs)
    gg.clear_plan_cache()
    try:
        model, opt, step, X, y = _setup(seed, n)
        losses = []
        for i, b in enumerate(range(0, n, 32)):
            if before_step is not None:
                before_step(i, opt)
            losses.append(step(X[b:b + 32], y[b:b + 32]).item())
        return losses, model.state_dict(), step
    finally:
        _C.set_cuda_graphs(True)


def _assert_same_training(run, ref):
    (losses, state, _), (ref_losses, ref_state, _) = run, ref
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    for k in ref_state:
        np.testing.assert_allclose(state[k], ref_state[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_replayed_graph_matches_step_by_step_execution():
    _assert_same_training(_train(True), _train(False))


def test_new_batches_replay_one_capture():
    _, _, step, X, y = _setup(1)
    for i in range(0, 256, 32):
        step(X[i:i + 32], y[i:i + 32])
    replay = step._entries[next(iter(step._entries))]["replay"]
    executors = [r[0] for r in replay.runs]
    assert any(e.graph_captured for e in executors)
    # calls 1-2 trace, 3-4 warm the executor, then every call is one graph launch
    assert max(e.graph_replays for e in executors) >= 4


def test_a_bad_label_in_a_replayed_graph_is_reported_at_synchronization():
    _, _, step, X, y = _setup(2)
    for i in range(0, 160, 32):
        step(X[i:i + 32], y[i:i + 32])
    bad = gg.tensor(np.full(32, 12, dtype=np.int64), device="cuda")
    with pytest.raises(IndexError) as e:
        step(X[:32], bad).item()
    assert "out of range" in str(e.value)


def test_inputs_that_move_after_warm_up_cost_one_recapture_at_most():
    """The warm-up runs decide which inputs are bound directly into the graph. A small read-only
    input (a scalar such as a learning rate) is always staged, even when the allocator gave both
    warm-ups the same address, so a new one every step never recaptures; a large read-only input
    that kept its address is bound, and when it moves it is staged from then on: one recapture."""
    rng = np.random.default_rng(3)
    big = rng.random((640, 1024), dtype=np.float32)  # 2.5 MiB: bound directly while it stays
    f = gg.compile(lambda a, s: (a * s).sum())
    a0 = gg.tensor(big, device="cuda")
    s0 = gg.tensor(np.float32(0.5), device="cuda")
    for _ in range(5):  # trace, trace, warm, warm, capture: the same two tensors every time
        np.testing.assert_allclose(f(a0, s0).item(), 0.5 * big.sum(dtype=np.float64), rtol=1e-4)
    assert f.cuda_graphs["captures"] == 1, f.cuda_graphs
    for k in range(4):  # a new scalar every call: staged, no recapture
        s = gg.tensor(np.float32(k + 1.5), device="cuda")
        np.testing.assert_allclose(f(a0, s).item(), (k + 1.5) * big.sum(dtype=np.float64), rtol=1e-4)
    assert f.cuda_graphs["captures"] == 1, f.cuda_graphs
    for k in range(3):  # the large input moves: staged from the first move on
        a = gg.tensor(big * (k + 2), device="cuda")
        np.testing.assert_allclose(f(a, s0).item(), 0.5 * (k + 2) * big.sum(dtype=np.float64), rtol=1e-4)
    graphs = f.cuda_graphs
    assert graphs["captures"] == 2 and graphs["captured"] == graphs["plans"] == 1, graphs


def test_a_learning_rate_changed_between_replays_is_read_without_a_recapture():
    """The optimizer's learning-rate tensor is state that keeps its address (a change fills it in
    place), so the graph binds it directly instead of copying it every replay: a new lr takes
    effect at the next replay, with no recapture, and the run matches step-by-step execution."""
    def raise_lr(i, opt):
        if i == 7:  # after the capture (calls 1-2 trace, 3-4 warm up, 5 captures)
            opt.lr = 0.5

    run = _train(True, seed=4, n=320, before_step=raise_lr)
    _assert_same_training(run, _train(False, seed=4, n=320, before_step=raise_lr))
    assert run[2].cuda_graphs["captures"] == 1, run[2].cuda_graphs


def test_a_replay_under_a_tight_memory_limit_counts_the_graph_outputs_once():
    # A captured graph already holds its output buffers (in the memory in use): a replay adds
    # only the copy it hands out. A limit with room for one more output (and half) lets the
    # capture and every replay run; counting the graph's outputs twice refused the replays.
    x = gg.tensor(np.random.default_rng(3).random((16, 1 << 18), dtype=np.float32), device="cuda")
    out_bytes = (1 << 18) * 4

    def run(steps):
        step = gg.compile(lambda a: (a * 2.0).sum(0))
        for _ in range(steps):
            step(x)  # each result freed before the next call
        gg.cuda.synchronize()
        replay = step._entries[next(iter(step._entries))]["replay"]
        assert any(r[0].graph_captured for r in replay.runs)
        return step

    step = run(6)  # unlimited: what a captured step holds beside its inputs
    held = gg.memory_stats("cuda")["current"]
    del step
    gg.clear_plan_cache()
    before = gg.memory_stats("cuda")["limit"] or None
    gg.set_memory_limit(held + out_bytes + out_bytes // 2, "cuda")
    try:
        step = run(6)  # warm-up, capture, then replays under the limit
        np.testing.assert_allclose(step(x).cpu().numpy(), (x.cpu().numpy() * 2.0).sum(0), rtol=1e-5)
    finally:
        gg.set_memory_limit(before, "cuda")
