"""Memory budgets: over budget, plans recompute activations (checkpointing) and fit; the numbers
do not change; when nothing fits, the error names the smallest budget that would."""
import gc

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from training_helpers import small_resnet


def _setup(width=8, batch=16):
    return small_resnet(width, batch)


@pytest.fixture(autouse=True)
def no_budget_left_behind():
    yield
    _C.set_memory_budget(0)
    gg.set_memory_limit(None)


def _plan_need(plan):
    return sum(plan.arena_bytes.values()) + sum(s["bytes"] for s in plan.slots if s["kind"] == "output")


def test_over_budget_plans_recompute_and_fit():
    model, _, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    budget = int(0.6 * (plain.arena + plain.outputs))
    _C.set_memory_budget(budget)
    report = gg.memory_report(step, x, y)
    assert report.plan.recomputed_steps > 0
    assert _plan_need(report.plan) <= budget
    assert "checkpointing" in report.plan.notes
    assert "(recompute)" in report.plan.str(buffers=False)


def test_checkpointed_training_gives_the_same_numbers():
    results = []
    for budget_fraction in (None, 0.6):
        model, _, step, x, y = _setup()
        step(x, y)
        if budget_fraction:
            plain = gg.memory_report(step, x, y)
            _C.set_memory_budget(int(budget_fraction * (plain.arena + plain.outputs)))
        losses = [step(x, y).item() for _ in range(3)]
        results.append((losses, model.state_dict()))
        _C.set_memory_budget(0)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    for k in results[0][1]:
        np.testing.assert_array_equal(results[0][1][k], results[1][1][k], err_msg=k)


def test_a_memory_limit_is_respected():
    model, _, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    held = gg.memory_stats()["current"] - _C.arena_bytes("cpu")
    limit = held + int(0.65 * (plain.arena + plain.outputs))
    gg.set_memory_limit(limit)
    gg.reset_peak_memory()
    step(x, y)
    assert gg.memory_stats()["peak"] <= limit


def test_an_impossible_budget_names_the_smallest_that_fits():
    model, _, step, x, y = _setup()
    step(x, y)
    _C.set_memory_budget(1024)
    with pytest.raises(gg.OutOfMemoryError) as e:
        step(x, y)
    msg = str(e.value)
    assert "the smallest budget that fits" in msg and "micro-batches" in msg


def test_compile_with_a_memory_limit_checkpoints_and_replays():
    model, _, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    limit = int(0.6 * (plain.arena + plain.outputs))
    compiled = gg.compile(step, memory_limit=limit)
    for _ in range(3):
        compiled(x, y)
    assert compiled.replays == 1
    plan = _C.last_plan()
    assert plan.recomputed_steps > 0 and _plan_need(plan) <= limit


def test_each_explicit_budget_gets_a_plan_that_fits_it():
    # Plans are cached by budget. An explicit budget is a key to the byte: a budget just under
    # a cached plan's need (often in the same MiB) must get its own plan, never the cached one.
    model, _, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    first = int(0.6 * (plain.arena + plain.outputs))
    _C.set_memory_budget(first)
    need = _plan_need(gg.memory_report(step, x, y).plan)
    assert need <= first
    for budget in (need - 1, need - 4096):
        _C.set_memory_budget(budget)
        try:
            report = gg.memory_report(step, x, y)
        except gg.OutOfMemoryError:
            continue
        assert _plan_need(report.plan) <= budget, (budget, _plan_need(report.plan))


def test_a_cached_plan_over_a_smaller_limit_is_not_reused():
    # Every limit derived from set_memory_limit shares one plan-cache key; a plan cached for a
    # larger limit must be replaced, not run over the smaller one.
    model, _, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    held = gg.memory_stats()["current"] - _C.arena_bytes("cpu")
    gg.set_memory_limit(held + int(0.6 * (plain.arena + plain.outputs)))
    step(x, y)
    need = _plan_need(_C.last_plan())
    limit = held + need - 1
    gg.set_memory_limit(limit)
    gg.reset_peak_memory()
    try:
        step(x, y)
    except gg.OutOfMemoryError:
        return
    assert _plan_need(_C.last_plan()) < need
    assert gg.memory_stats()["peak"] <= limit


def _full_size_gpt_step():
    """The GPT benchmark's full-size training step (benchmarks/gpt_workload.py: char_gpt's GPT at
    nanoGPT's shakespeare_char size, 6 layers, 6 heads, 384 features, context 256, batch 64, AdamW)
    and a batch of ids."""
    import argparse
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    import gpt_workload as W
    import char_gpt as G
    s = W.sizes(argparse.Namespace(tiny=False, gpt_size="full", gpt_batch=64))
    gg.manual_seed(0)
    state = G.GPT(W.VOCAB, s["block"], s["layers"], s["heads"], s["dim"], 0.2).state_dict()
    step = W.gg_step_function(gg, G, s, 0.2, state)
    rng = np.random.default_rng(0)
    x, y = (gg.tensor(rng.integers(0, W.VOCAB, (s["batch"], s["block"])).astype(np.int64)) for _ in range(2))
    gg.realize(x, y)
    gg.memory_report(step, x, y)  # the optimizer's state now exists, as after a first real step
    return step, x, y


def test_the_full_size_gpt_step_fits_a_2gb_card_under_a_memory_limit():
    # Planned on the CPU (nothing runs): the prediction is the one the limit's check makes on any
    # device. Without a limit the plan needs about 1.7 GiB; a 2 GB card keeps some of its memory
    # for the CUDA context and libraries, so the step must also fit 1.5 GB, by checkpointing.
    # The card holds this step alone: what earlier tests in this process still hold (cached plans'
    # arenas, tensors awaiting collection) is counted against the limit too, so it is added to it.
    gc.collect()
    others = gg.memory_stats()["current"]
    step, x, y = _full_size_gpt_step()
    plain = gg.memory_report(step, x, y)
    assert 1.5e9 < plain.predicted_peak - others <= 2e9, (plain.predicted_peak, others)
    for limit in ("2GB", "1.5GB", "1GB"):
        gg.set_memory_limit(_C.parse_bytes(limit) + others)
        gg.reset_peak_memory()
        report = gg.memory_report(step, x, y)
        assert report.predicted_peak - others <= _C.parse_bytes(limit), (limit, report.predicted_peak, others)
        # A dry run binds no buffer for the plan's views of its arena: planning allocates nothing
        # beyond the step's results.
        assert gg.memory_stats()["peak"] <= report.baseline + report.outputs + 2**20
        if limit != "2GB":
            assert "checkpointing" in report.plan.notes
            assert report.plan.recomputed_steps > plain.plan.recomputed_steps


def _mlp_input_grad(budget_fraction):
    """x.grad of four blocks Linear -> tanh -> Linear -> tanh (width 128, batch 256, float32),
    under a budget of budget_fraction of the plain plan's need (None: no budget)."""
    gg.manual_seed(0)
    layers = [(gg.nn.Linear(128, 128), gg.nn.Linear(128, 128)) for _ in range(4)]
    x = gg.tensor(np.random.default_rng(3).standard_normal((256, 128)).astype(np.float32), requires_grad=True)

    def step(x):
        h = x
        for a, b in layers:
            h = b(a(h).tanh()).tanh()
        (h * h).sum().backward()
        return x.grad
    if budget_fraction:
        plain = gg.memory_report(step, x)
        x.grad = None
        for a, b in layers:
            a.zero_grad(), b.zero_grad()
        _C.set_memory_budget(int(budget_fraction * (plain.arena + plain.outputs)))
    try:
        return step(x).numpy()  # realized while the budget holds
    finally:
        _C.set_memory_budget(0)


def test_checkpointed_mlp_gives_the_plain_gradient():
    # The least budget checkpointing fits depends on the CPU's GEMM workspace (its instruction
    # set's block sizes): the first of these fractions of the plain need that fits is used, and
    # each is below the plain need, so the step is checkpointed.
    plain = _mlp_input_grad(None)
    for fraction in (0.8, 0.85, 0.9, 0.95):
        try:
            checkpointed = _mlp_input_grad(fraction)
        except gg.OutOfMemoryError:
            continue
        np.testing.assert_allclose(checkpointed, plain, rtol=1e-5, atol=1e-6)
        return
    pytest.fail("no budget of 0.8 to 0.95 of the plain plan's need fits the checkpointed MLP step")


# Gradients under a budget equal the unbudgeted ones, at every budget that fits. A Linear's
# weight.T is a forward view that the backward pass reads: checkpointing recomputes it, and the
# input gradient's weight.T.T must still read the weight itself (docs/architecture.md, "From
# Python to kernels").
class _TanhBlock(gg.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.a, self.b, self.drop = gg.nn.Linear(width, width), gg.nn.Linear(width, width), gg.nn.Dropout(0.0)

    def forward(self, x):
        return self.b(self.drop(self.a(x).tanh()) * 1.5).tanh()


def _mlp():
    return gg.nn.Sequential(*[_TanhBlock(128) for _ in range(4)]), (256, 128)


def _cnn():
    net = gg.nn.Sequential(
        gg.nn.Conv2d(3, 16, 3, padding=1), gg.nn.BatchNorm2d(16), gg.nn.ReLU(),
        gg.nn.Conv2d(16, 32, 3, padding=1), gg.nn.BatchNorm2d(32), gg.nn.ReLU(),
        gg.nn.Conv2d(32, 32, 3, padding=1), gg.nn.BatchNorm2d(32), gg.nn.ReLU(),
        gg.nn.Flatten(), gg.nn.Linear(32 * 16 * 16, 10))
    return net, (16, 3, 16, 16)


def _gradients(make, dtype, budget):
    """(gradients by parameter name, recomputed steps, the plan's need), or None when the
    budget does not fit."""
    gg.manual_seed(0)
    model, shape = make()
    model = model.to(dtype)
    x = gg.tensor(np.random.default_rng(3).standard_normal(shape), dtype=dtype, requires_grad=True)
    _C.set_memory_budget(budget)
    try:
        h = model(x)
        (h * h).sum().backward()
        grads = {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}
        grads["input"] = x.grad.detach().numpy().copy()
    except gg.OutOfMemoryError:
        return None
    finally:
        _C.set_memory_budget(0)
    plan = _C.last_plan()
    return grads, plan.recomputed_steps, plan.budget_bytes()


@pytest.mark.parametrize("make", [_mlp, _cnn], ids=["mlp", "cnn_batchnorm"])
@pytest.mark.parametrize("dtype", [gg.float32, gg.float64], ids=["float32", "float64"])
def test_gradients_under_a_budget_equal_the_unbudgeted_ones(make, dtype):
    plain, plain_recomputed, need = _gradients(make, dtype, 0)
    checked = 0
    for fraction in (0.97, 0.94, 0.9, 0.85, 0.8, 0.75, 0.7):
        got = _gradients(make, dtype, int(fraction * need))
        if got is None:
            break
        grads, recomputed, _ = got
        assert recomputed > plain_recomputed, fraction
        checked += 1
        for name in plain:
            np.testing.assert_allclose(grads[name], plain[name], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name} at {fraction} of the unbudgeted need")
    assert checked >= 2


def test_small_gpt_gradients_under_a_budget_equal_the_unbudgeted_ones():
    # The GPT benchmark's small size (benchmarks/gpt_workload.py), without dropout: its every
    # Linear reads weight.T.T in the backward pass, as the full-size step under a 1.5 GB limit does.
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials"))
    import char_gpt as G
    vocab, layers, heads, dim, block, batch = 65, 2, 4, 128, 64, 8
    rng = np.random.default_rng(0)
    x, y = (rng.integers(0, vocab, (batch, block)).astype(np.int64) for _ in range(2))

    def gradients(budget):
        gg.manual_seed(0)
        model = G.GPT(vocab, block, layers, heads, dim, 0.0)
        _C.set_memory_budget(budget)
        try:
            model(gg.tensor(x), gg.tensor(y))[1].backward()
            grads = {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}
        finally:
            _C.set_memory_budget(0)
        return grads, _C.last_plan()

    plain, plan = gradients(0)
    grads, budgeted = gradients(int(0.8 * plan.budget_bytes()))
    assert budgeted.recomputed_steps > plan.recomputed_steps
    for name in plain:
        np.testing.assert_allclose(grads[name], plain[name], rtol=1e-5, atol=1e-6, err_msg=name)
