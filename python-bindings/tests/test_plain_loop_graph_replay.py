"""A plain training loop (loss.backward(); optimizer.step(), data from NumPy every step) replays
its step as one CUDA graph once the plan repeats, as glassgrad.compile does, and stays correct
under the cases that make a replay stale (docs/architecture.md, "Design decisions, and why": whole-step
CUDA graphs): a state_dict loaded between steps, a learning rate changed, new NumPy batches,
hooks registered mid-training. Each case trains with graphs on and off and compares; on the CPU
the same comparisons run without graphs (the step-by-step reference is then the same path), and
the replay counts are checked on CUDA only."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]


def _batches(seed, n=8):
    rng = np.random.default_rng(seed)
    return [(rng.random((16, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 16)) for _ in range(n)]


def _train(device, graphs, seed=0, steps=8, before_step=None):
    """The plain loop of the README on `device`: (losses, final state_dict as NumPy, executor of
    the last step's plan). before_step(i, model, opt) runs before step i."""
    _C.set_cuda_graphs(graphs)
    gg.clear_plan_cache()
    try:
        gg.manual_seed(seed)
        model = gg.models.SimpleCNN().to(device)
        opt = gg.SGD(model.parameters(), lr=0.05, momentum=0.9)
        losses = []
        for i, (xn, yn) in enumerate(_batches(seed, steps)):
            if before_step is not None:
                before_step(i, model, opt)
            x, y = gg.tensor(xn, device=device), gg.tensor(yn, device=device)
            loss = gg.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.item())
        state = {k: np.array(v) for k, v in model.state_dict().items()}
        return losses, state, _C.last_executor()
    finally:
        _C.set_cuda_graphs(True)


def _assert_same(run, ref):
    np.testing.assert_allclose(run[0], ref[0], rtol=1e-5, atol=1e-6)
    for k in ref[1]:
        np.testing.assert_allclose(run[1][k], ref[1][k], rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("device", DEVICES)
def test_a_repeated_plain_step_replays_one_graph(device):
    run = _train(device, True)
    _assert_same(run, _train(device, False))
    ex = run[2]
    if device == "cuda":
        # steps 1-2 warm up the cached plan step by step, 3 captures, then one launch per step
        assert ex.graph_captured and ex.graph_captures == 1 and ex.graph_replays >= 4
    else:
        assert not ex.graph_captured and ex.graph_replays == 0


@pytest.mark.parametrize("device", DEVICES)
def test_a_state_dict_loaded_between_replays_is_what_trains(device):
    gg.manual_seed(7)
    other = {k: np.array(v) * 0.5 for k, v in gg.models.SimpleCNN().state_dict().items()}

    def load(i, model, opt):
        if i == 5:  # after the capture
            model.load_state_dict({k: gg.tensor(v, device=device) for k, v in other.items()})

    run = _train(device, True, seed=1, before_step=load)
    _assert_same(run, _train(device, False, seed=1, before_step=load))


@pytest.mark.parametrize("device", DEVICES)
def test_a_learning_rate_changed_between_replays_takes_effect(device):
    def raise_lr(i, model, opt):
        if i == 5:
            opt.param_groups[0]["lr"] = 0.5

    run = _train(device, True, seed=2, before_step=raise_lr)
    ref = _train(device, False, seed=2, before_step=raise_lr)
    _assert_same(run, ref)
    unchanged = _train(device, True, seed=2)
    assert run[0][6] != unchanged[0][6]  # the new rate changed the training


@pytest.mark.parametrize("device", DEVICES)
def test_new_numpy_batches_are_read_every_replay(device):
    run = _train(device, True, seed=3)
    assert len(set(run[0])) == len(run[0])  # every step saw its own batch
    same = _train(device, True, seed=3, steps=4)
    np.testing.assert_allclose(run[0][:4], same[0], rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_a_hook_registered_between_replays_sees_every_step(device):
    def hooked_run(graphs):
        seen, handles = [], []

        def add_hook(i, model, opt):
            if i == 5:  # after the capture
                handles.append(gg.debug.register_hook(model.fc, lambda node, ins, outs: seen.append((node.op, outs[0].shape))))

        try:
            return _train(device, graphs, seed=4, before_step=add_hook), seen
        finally:
            for h in handles:
                h.remove()

    (run, seen), (ref, ref_seen) = hooked_run(True), hooked_run(False)
    _assert_same(run, ref)
    # steps 5, 6 and 7 each ran fc's forward matmul once, seen by the hook: a hooked plan is never replayed
    assert seen == ref_seen and seen.count(("MatMul", (16, 10))) == 3
