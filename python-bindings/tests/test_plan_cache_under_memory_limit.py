"""The plan cache under set_memory_limit (docs/architecture.md, "Plans under a memory limit"): the
budget (the limit less the memory held) moves as a loop holds more, and a trace keeps one plan
while that plan fits. Keyed by the budget in whole MiB, every MiB the held memory crossed compiled
each plan of the step again, with a new executor (on a GPU, its CUDA graphs captured again). A
budget that falls below the plan's need still gets a checkpointed plan, and once the plan without
checkpointing fits again, that one returns."""
import gc

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from training_helpers import small_resnet

_MIB = 1 << 20


def _above_held(gib: int) -> int:
    """A CPU limit `gib` GiB above what the process holds now: in a whole-suite run the earlier
    tests' caches and tensors hold more than a fixed 1 GB limit would leave."""
    return gg._C.memory_stats("cpu")["current"] + gib * (1 << 30)


@pytest.fixture(autouse=True)
def fresh_cache_and_no_limit_left_behind():
    """Counts are of this test's plans: values another test left pending would join its first one."""
    gc.collect()
    gg.realize()
    gg.clear_plan_cache()
    yield
    gg.set_memory_limit(None, "cpu")
    gg.clear_plan_cache()


def _hold(nbytes):
    """A realized tensor of `nbytes`, held by the caller: memory held outside the arena."""
    t = gg.zeros(nbytes // 4)
    gg.realize(t)
    return t


def _mlp(seed=0):
    gg.manual_seed(seed)
    return gg.nn.Sequential(gg.nn.Linear(8, 16), gg.nn.ReLU(), gg.nn.Linear(16, 4))


def _growing_loop(limit, read_loss_first, steps=6, grow=3 * _MIB // 2):
    """A training loop that holds `grow` more bytes after each step (as a loop appending its
    outputs to a list would): plan-cache counters over the loop, the budget before each step,
    and the losses. `read_loss_first`: loss.item() before backward(), which makes two plans a step
    (the loss, then the gradients and the update) and the first one learn what to keep."""
    rng = np.random.default_rng(1)
    x = gg.tensor(rng.standard_normal((5, 8)).astype(np.float32))
    y = gg.tensor(rng.integers(0, 4, 5))
    model = _mlp()
    opt = gg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    gg.set_memory_limit(limit, "cpu")
    held, budgets, losses = [_hold(grow)], [], []  # the first hold compiles its plan before the count
    gg.reset_cache_stats()
    for _ in range(steps):
        budgets.append(_C.memory_budget("cpu"))
        loss = gg.nn.functional.cross_entropy(model(x), y)
        if read_loss_first:
            losses.append(loss.item())
        loss.backward()
        opt.step()
        opt.zero_grad()
        if not read_loss_first:
            losses.append(loss.item())
        held.append(_hold(grow))
    stats = gg.cache_stats()
    gg.set_memory_limit(None, "cpu")
    return stats, budgets, losses


@pytest.mark.parametrize("read_loss_first", [False, True])
def test_a_loop_holding_more_each_step_compiles_its_plans_once_under_a_limit(read_loss_first):
    plain, _, plain_losses = _growing_loop(None, read_loss_first)
    gg.clear_plan_cache()
    stats, budgets, losses = _growing_loop(_above_held(1), read_loss_first)
    # The premise: each step's budget is in another MiB than the one before.
    assert len({b // _MIB for b in budgets}) == len(budgets), budgets
    # The plain loop compiles the step once (the loss plan and the learning of what to keep: twice
    # more); under the limit it compiles exactly as often and hits the cache as often.
    assert plain["compiles"] == (1 if not read_loss_first else 4), plain
    for k in ("compiles", "hits", "graphs_built"):
        assert stats[k] == plain[k], (k, stats, plain)
    np.testing.assert_array_equal(losses, plain_losses)


def test_the_step_keeps_one_executor_while_the_held_memory_grows():
    # An executor holds a plan's CUDA graphs: a new one per MiB crossed captured them again.
    rng = np.random.default_rng(2)
    x = gg.tensor(rng.standard_normal((5, 8)).astype(np.float32))
    y = gg.tensor(rng.integers(0, 4, 5))
    model = _mlp()
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    gg.set_memory_limit(_above_held(1), "cpu")
    held = [_hold(_MIB)]
    executors = []
    for _ in range(4):
        gg.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
        executors.append(_C.last_executor())
        held.append(_hold(5 * _MIB // 4))
    assert all(e is executors[0] for e in executors), executors


def _plan_need(plan):
    return sum(plan.arena_bytes.values()) + sum(s["bytes"] for s in plan.slots if s["kind"] == "output")


def _held_outside_arena():
    return gg.memory_stats()["current"] - _C.arena_bytes("cpu")


def test_a_budget_below_the_plans_need_checkpoints_and_the_plain_plan_returns_with_room():
    model, _, step, x, y = small_resnet(8, 16)
    step(x, y)
    step(x, y)
    plain = _C.last_plan()
    assert "checkpointing" not in plain.notes and plain.unlimited_need == 0
    need = _plan_need(plain)
    # Room for the plain plan and 4 MiB more: the step runs it.
    roomy = _held_outside_arena() + need + 4 * _MIB
    gg.set_memory_limit(roomy, "cpu")
    gg.reset_cache_stats()
    step(x, y)
    assert "checkpointing" not in _C.last_plan().notes
    assert gg.cache_stats()["compiles"] == 1
    # 2 MiB more held: still room, the same plan.
    held = _hold(2 * _MIB)
    step(x, y)
    assert gg.cache_stats()["compiles"] == 1
    # A limit with room for two thirds of the plan's need: the step is planned again with
    # checkpointing, and that plan fits.
    tight = _held_outside_arena() + 2 * need // 3
    gg.set_memory_limit(tight, "cpu")
    step(x, y)
    checkpointed = _C.last_plan()
    assert "checkpointing" in checkpointed.notes, checkpointed.notes
    assert checkpointed.recomputed_steps > plain.recomputed_steps
    assert _plan_need(checkpointed) <= 2 * need // 3
    assert checkpointed.unlimited_need == need  # what the cache compares the budget with
    assert gg.cache_stats()["compiles"] == 2
    # More room, but not enough for the plain plan: the checkpointed plan stays.
    gg.set_memory_limit(tight + need // 6, "cpu")
    step(x, y)
    assert _C.last_plan() is checkpointed
    assert gg.cache_stats()["compiles"] == 2
    # The held tensor released and the first limit back: the plain plan fits again and runs.
    del held
    gg.set_memory_limit(roomy, "cpu")
    assert _C.memory_budget("cpu") >= need
    step(x, y)
    again = _C.last_plan()
    assert "checkpointing" not in again.notes and again.unlimited_need == 0
    assert again.recomputed_steps == plain.recomputed_steps
    assert _plan_need(again) == need
    assert gg.cache_stats()["compiles"] == 3
