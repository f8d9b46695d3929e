"""Lent graph outputs (docs/cuda.md, "Lent graph outputs"): a CUDA graph replay returns outputs that
view the graph's own buffers; the next run of the plan gives those still alive a buffer of their
own (a claim) before anything overwrites them, and an address handed out claims first. The
storage bookkeeping (lend, claim, views following, memory, the switch) is checked on the CPU
through _C.Tensor._lend; the training loops on CUDA (skipped without a GPU), each against the same
loop with lending off."""
import gc

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

cuda = pytest.mark.cuda


def _owned(values):
    return _C.Tensor.from_numpy(np.asarray(values, dtype=np.float32))


def test_a_lent_storage_views_the_owner_until_claimed():
    owner = _owned([1.0, 2.0, 3.0, 4.0])
    lent = owner._lend()
    assert lent.storage_lent and not owner.storage_lent
    owner.copy_from(_owned([5.0, 6.0, 7.0, 8.0]))  # the graph writing its buffer before a claim
    np.testing.assert_array_equal(lent.numpy(), [5.0, 6.0, 7.0, 8.0])
    address = int(lent.data_ptr)  # handing the address out claims
    assert not lent.storage_lent
    assert address != int(owner.data_ptr)
    owner.copy_from(_owned([0.0, 0.0, 0.0, 0.0]))  # the next replay: the claimed copy keeps its values
    np.testing.assert_array_equal(lent.numpy(), [5.0, 6.0, 7.0, 8.0])
    assert int(lent.data_ptr) == address


def test_views_taken_before_the_claim_follow_the_storage():
    owner = _owned(np.arange(6.0))
    lent = owner._lend().view([2, 3])
    row = lent.select(0, 1)
    assert row.storage_lent
    lent.storage_ptr  # claims the storage both views hold
    assert not row.storage_lent
    owner.copy_from(_owned(np.zeros(6)))
    np.testing.assert_array_equal(row.numpy(), [3.0, 4.0, 5.0])
    assert int(row.storage_ptr) == int(lent.storage_ptr)


def test_a_write_into_a_lent_output_is_kept_by_the_claim():
    owner = _owned([1.0, 1.0])
    lent = owner._lend()
    lent.copy_from(_owned([9.0, 8.0]))  # the user writing the output in place before the next replay
    lent.data_ptr
    owner.copy_from(_owned([0.0, 0.0]))
    np.testing.assert_array_equal(lent.numpy(), [9.0, 8.0])


def test_lending_allocates_nothing_and_a_claim_allocates_its_buffer():
    # Counted on the process's CPU memory: a cycle of an earlier test's tensors collected midway
    # would change the count (it did, by 72 bytes, in a whole-suite run), so collect first and
    # hold the collector off while counting.
    gc.collect()
    gc.disable()
    try:
        _count_lending_and_claim()
    finally:
        gc.enable()


def _count_lending_and_claim():
    n = 1 << 16
    before = _C.memory_stats("cpu")["current"]
    owner = _owned(np.ones(n))
    held = _C.memory_stats("cpu")["current"] - before
    assert held >= 4 * n
    lent = owner._lend()
    assert _C.memory_stats("cpu")["current"] - before == held
    del owner  # the graph dropping its buffer: the lent storage keeps it
    assert _C.memory_stats("cpu")["current"] - before == held
    np.testing.assert_array_equal(lent.numpy(), np.ones(n))
    lent.data_ptr  # the claim allocates, then the graph's buffer goes
    assert _C.memory_stats("cpu")["current"] - before == held
    del lent
    assert _C.memory_stats("cpu")["current"] == before


def test_the_switch_turns_lending_off_and_on():
    assert _C.lent_outputs_enabled()  # on by default (GLASSGRAD_LENT_OUTPUTS unset): docs/cuda.md
    _C.set_lent_outputs(False)
    try:
        assert not _C.lent_outputs_enabled()
    finally:
        _C.set_lent_outputs(True)
    assert _C.lent_outputs_enabled()


def test_cpu_plans_lend_nothing():
    gg.manual_seed(0)
    model = gg.nn.Linear(4, 3)
    opt = gg.SGD(model.parameters(), lr=0.1)
    for _ in range(4):
        model(gg.ones(2, 4)).sum().backward()
        opt.step()
        assert not model.weight.grad._raw().storage_lent
        opt.zero_grad()


# ---- CUDA: the plain loop and compile, against the same loops with lending off ----

def _batches(seed, n):
    rng = np.random.default_rng(seed)
    return [(rng.random((16, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 16)) for _ in range(n)]


def _loop(lend, steps=9, zero_grad="none", keep=None, poke=None, seed=0):
    """SimpleCNN's plain loop on CUDA with whole-step graphs: (losses, state as NumPy, kept values
    read at the end, executor). zero_grad: "none" (set_to_none), "zeros" (set_to_none=False) or
    "never" (accumulate). keep(i, model, kept) may keep tensors; poke(i, model) runs after step i."""
    was = _C.lent_outputs_enabled()
    _C.set_lent_outputs(lend)
    gg.clear_plan_cache()
    try:
        gg.manual_seed(seed)
        model = gg.models.SimpleCNN().to("cuda")
        opt = gg.SGD(model.parameters(), lr=0.01, momentum=0.9)
        losses, kept = [], []
        for i, (xn, yn) in enumerate(_batches(seed, steps)):
            x, y = gg.tensor(xn, device="cuda"), gg.tensor(yn, device="cuda")
            loss = gg.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            if keep is not None:
                keep(i, model, kept)
            if poke is not None:
                poke(i, model)
            if zero_grad != "never":
                opt.zero_grad(set_to_none=zero_grad == "none")
            losses.append(loss)
        values = [float(v.item()) for v in losses]
        state = {k: v.detach().numpy(force=True) for k, v in model.state_dict().items()}
        return values, state, [k.detach().numpy(force=True) for k in kept], _C.last_executor()
    finally:
        _C.set_lent_outputs(was)


def _assert_same(run, ref):
    """Losses, final state and kept values of two loops agree, in order."""
    got = [np.asarray(run[0])] + [run[1][k] for k in ref[1]] + run[2]
    want = [np.asarray(ref[0])] + list(ref[1].values()) + ref[2]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _keep_grad(i, model, kept):
    kept.extend(p.grad for p in model.parameters())


@cuda
def test_gradients_kept_over_replays_hold_each_steps_values():
    run = _loop(True, keep=_keep_grad)
    assert run[3].graph_replays >= 5
    _assert_same(run, _loop(False, keep=_keep_grad))


@cuda
def test_replay_gradients_are_lent_and_the_switch_copies_them():
    seen = {}

    def look(i, model, kept):
        seen[i] = [p.grad._raw().storage_lent for p in model.parameters()]

    _loop(True, keep=look)
    assert any(seen[8]) and not any(seen[0])  # replays' gradients view the graph's buffers
    _loop(False, keep=look)
    assert not any(seen[8])


@cuda
@pytest.mark.parametrize("zero_grad", ["never", "zeros"])
def test_gradients_accumulated_or_zeroed_in_place_over_replays(zero_grad):
    _assert_same(_loop(True, zero_grad=zero_grad, keep=_keep_grad), _loop(False, zero_grad=zero_grad, keep=_keep_grad))


@cuda
def test_a_lent_gradient_written_in_place_before_the_next_replay():
    def poke(i, model):
        with gg.no_grad():
            for p in model.parameters():
                p.grad.mul_(0.5)

    run = _loop(True, zero_grad="never", keep=_keep_grad, poke=poke)
    _assert_same(run, _loop(False, zero_grad="never", keep=_keep_grad, poke=poke))


@cuda
def test_an_address_handed_out_stays_the_outputs_after_replays():
    ptrs = []

    def keep(i, model, kept):
        for p in model.parameters():
            ptrs.append(p.grad.data_ptr())
            kept.append(p.grad)

    run = _loop(True, keep=keep)
    _assert_same(run, _loop(False, keep=_keep_grad))
    assert len(set(ptrs)) == len(ptrs)  # each kept gradient owns its buffer


@cuda
def test_lent_gradients_hold_no_new_memory():
    def run(lend):
        currents = []

        def look(i, model, kept):
            currents.append(gg.memory_stats("cuda")["current"])

        _loop(lend, steps=10, keep=look)
        return currents

    lent, copied = run(True), run(False)
    # With the gradients alive after the step: copies of them are memory besides the graph's
    # buffers; lent ones are not. Step to step, only the kept losses' claims add memory.
    assert lent[-1] < copied[-1]
    assert lent[-1] - lent[-2] < (copied[-1] - lent[-1])


@cuda
def test_compiled_replays_keep_their_outputs():
    was = _C.lent_outputs_enabled()
    _C.set_lent_outputs(True)
    try:
        _compiled_replays_keep_their_outputs()
    finally:
        _C.set_lent_outputs(was)


def _compiled_replays_keep_their_outputs():
    x = gg.tensor(np.random.default_rng(1).random((8, 16), dtype=np.float32), device="cuda")
    ref = (x.cpu().numpy() * 2.0).sum(0)
    step = gg.compile(lambda a, s: (a * s).sum(0))
    outs = [step(x, gg.tensor(float(k), device="cuda")) for k in range(8)]
    for k, o in enumerate(outs):
        np.testing.assert_allclose(o.cpu().numpy(), ref * k / 2.0, rtol=1e-5)
