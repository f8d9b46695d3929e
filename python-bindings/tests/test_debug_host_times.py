"""glassgrad.debug.host_time_breakdown: the phases of a plain loop's step, counted and timed by
the runtime (docs/debugging.md, "Where a step's host time goes"). Only counts and sums are
checked: how long a phase takes is a measurement, not a test."""
import gc
import threading

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.debug.host_times import GRAPH_PHASES, PHASES


@pytest.fixture(autouse=True)
def nothing_pending():
    """Counts are per realize: values another test of this worker left pending (alive in a
    reference cycle not yet collected) would join the first counted plan. Collect them, then
    compute what is still pending, before each test."""
    gc.collect()
    gg.realize()


def make_loop(seed=0):
    gg.manual_seed(seed)
    model = gg.nn.Sequential(gg.nn.Conv2d(1, 4, 3), gg.nn.ReLU(), gg.nn.Flatten(), gg.nn.Linear(4 * 6 * 6, 3))
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(seed)
    x, y = rng.random((5, 1, 8, 8), dtype=np.float32), rng.integers(0, 3, 5)

    def step():
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    return step


def test_a_plain_loop_step_enters_every_phase_of_its_step_once():
    step = make_loop()
    step()  # compiles the plan
    with gg.debug.host_time_breakdown() as bd:
        for _ in range(3):
            step()
    assert bd.steps == bd.realizes == 3  # one plan per plain-loop step
    for phase in ("backward_export", "differentiate", "backward_import", "export", "signature", "plan_lookup",
                  "launch", "settle"):
        assert bd.calls[phase] == 3, (phase, bd.calls)
    assert bd.calls["compile"] == 0  # the plan was cached
    assert bd.calls["record"] >= 3 * 6  # conv, relu, reshape, matmul, add, loss, ... per step
    assert bd.calls["bind"] >= 3
    # two batches in; loss.item() of a CPU tensor reads its element in place (no copy to count)
    assert bd.calls["transfer"] >= 3 * 2
    assert set(PHASES).issubset(bd.seconds)  # every phase is reported, entered or not
    # Exclusive phases: the Python rest is the wall time less them (an identity of the accounting;
    # no measured duration is compared with a bound here).
    assert bd.seconds["python"] == pytest.approx(bd.wall_seconds - sum(bd.seconds[p] for p in PHASES))
    ms = bd.per_step_ms()
    assert ms["graph"] == pytest.approx(sum(ms[p] for p in GRAPH_PHASES))
    assert ms["wall"] == pytest.approx(bd.wall_seconds * 1e3 / 3)
    text = str(bd)
    assert "over 3 steps" in text and all(p in text for p in PHASES + ("python",))


def test_the_first_step_of_a_shape_compiles_and_steps_can_be_given():
    step = make_loop(1)
    gg.clear_plan_cache()
    with gg.debug.host_time_breakdown(steps=2) as bd:
        step()
        step()
    assert bd.calls["compile"] == 1
    assert bd.steps == 2
    assert bd.per_step_ms()["compile"] == pytest.approx(bd.seconds["compile"] * 1e3 / 2)


def test_timing_is_off_outside_a_block_and_blocks_nest():
    step = make_loop(2)
    step()
    assert not gg._C.host_timing()
    before = dict(gg._C.host_times())
    step()
    assert dict(gg._C.host_times()) == before  # nothing was counted while off
    with gg.debug.host_time_breakdown() as outer:
        step()
        with gg.debug.host_time_breakdown() as inner:
            step()
        assert gg._C.host_timing()  # the inner block leaves the outer one's timing on
    assert not gg._C.host_timing()
    assert inner.realizes == 1 and outer.realizes == 2
    assert inner.calls["record"] * 2 == outer.calls["record"]  # the outer block counts the inner one's work too


def test_only_the_calling_thread_is_timed():
    step, other_step = make_loop(3), make_loop(4)
    step()
    other_step()
    with gg.debug.host_time_breakdown() as bd:
        t = threading.Thread(target=other_step)
        t.start()
        t.join()
    assert bd.realizes == 0 and bd.calls["record"] == 0 and bd.calls["launch"] == 0


def test_transfers_count_numpy_in_and_out():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with gg.debug.host_time_breakdown(steps=1) as bd:
        t = gg.tensor(a)
        back = t.numpy()
    np.testing.assert_array_equal(back, a)
    assert bd.calls["transfer"] >= 2 and bd.calls["launch"] == 0


def test_a_failing_step_leaves_the_phases_consistent():
    x = gg.tensor(np.ones((2, 3), np.float32))
    with gg.debug.host_time_breakdown(steps=1) as bd:
        with pytest.raises(ValueError):
            gg.matmul(x, x)  # the shape rule refuses it while recording
        (x * 2).numpy()
    assert bd.calls["record"] >= 2 and bd.realizes == 1
    assert bd.seconds["python"] == pytest.approx(bd.wall_seconds - sum(bd.seconds[p] for p in PHASES))
