"""Over the memory limit: the plan's predicted need is checked before anything runs, and the
error names the need, the limit, the largest buffers with their layers, and the options."""
import gc
import re

import numpy as np
import pytest

import glassgrad
from glassgrad import debug


@pytest.fixture
def limit():
    # Work still pending from earlier tests in this process would join the step's plan (a realize
    # computes everything pending): compute it first, so the plan is this test's step alone.
    gc.collect()
    glassgrad.realize()
    yield lambda extra: glassgrad.set_memory_limit(glassgrad.memory_stats()["current"] + extra)
    glassgrad.set_memory_limit(None)


class Net(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(1, 8, 3)
        self.conv2 = glassgrad.Conv2D(8, 8, 3)
        self.fc = glassgrad.Linear(8 * 12 * 12, 10)

    def forward(self, x):
        return self.fc(glassgrad.flatten(glassgrad.relu(self.conv2(glassgrad.relu(self.conv1(x))))))


def _step(rng):
    glassgrad.manual_seed(0)
    model = Net()
    x = glassgrad.tensor(rng.standard_normal((16, 1, 16, 16)).astype(np.float32))
    y = glassgrad.tensor(np.arange(16) % 10)
    return model, x, y


def test_a_step_over_the_limit_fails_before_running_naming_need_budget_and_largest_buffers(rng, limit):
    model, x, y = _step(rng)
    opt = glassgrad.SGD(model.parameters(), lr=0.1)
    glassgrad._C.empty_cache("cpu")
    limit(64 * 1024)
    loss = glassgrad.cross_entropy(model(x), y)
    loss.backward()
    with debug.allocation_log() as log:
        with pytest.raises(glassgrad.OutOfMemoryError) as e:
            opt.step()
    msg = str(e.value)
    lines = msg.splitlines()
    # The compiler's verdict (no plan fits, even with checkpointing) ...
    assert lines[0].startswith("this step does not fit in its memory budget of ")
    assert lines[1].startswith("  without checkpointing it needs ")
    # ... completed with what is held outside the step and what is large inside it.
    held = next(l for l in lines if l.startswith("  held outside this step: "))
    assert re.search(r'a limit must cover it too: glassgrad\.set_memory_limit\("\d+(KiB|MiB|GiB)"\) runs this step '
                     r'without checkpointing', held)
    i = lines.index("  largest buffers without checkpointing:")
    big = lines[i + 1:i + 6]
    assert all(l.startswith("    ") for l in big) and not lines[i + 6].startswith("    ")
    assert "conv1/Conv2D.out  [16, 8, 14, 14] float32  <- arena from Conv2D 'conv1' (forward)" in msg
    assert any("conv2" in l for l in big)
    assert lines[-2].startswith("  cause:") and lines[-1].startswith("  fix: a smaller batch, micro-batches")
    assert isinstance(e.value, MemoryError)
    # Nothing ran: no arena and no outputs were allocated.
    assert [ev for ev in log.allocations() if ev["name"] != "lr"] == []


def test_the_suggested_limit_is_enough(rng, limit):
    model, x, y = _step(rng)
    glassgrad._C.empty_cache("cpu")
    limit(16 * 1024)
    out = model(x)
    with pytest.raises(glassgrad.OutOfMemoryError) as e:
        out.detach().numpy()
    suggested = re.search(r'set_memory_limit\("([^"]+)"\) runs this step', str(e.value)).group(1)
    glassgrad.set_memory_limit(suggested)
    assert out.detach().numpy().shape == (16, 10)  # the same pending computation now fits and runs


def test_a_replayed_step_over_the_limit_is_refused_before_running(rng, limit):
    """glassgrad.compile replays plans without compiling: the executor checks the plan's need
    against the limit itself."""
    model, x, y = _step(rng)
    opt = glassgrad.SGD(model.parameters(), lr=0.1)

    @glassgrad.compile
    def train_step(x, y):
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    for _ in range(3):
        train_step(x, y)
    assert train_step.replays == 1
    glassgrad._C.empty_cache("cpu")
    limit(64 * 1024)
    with debug.allocation_log() as log:
        with pytest.raises(glassgrad.OutOfMemoryError) as e:
            train_step(x, y)
    msg = str(e.value)
    lim = glassgrad._C.memory_limit("cpu")
    # the need counts what the process already holds: GiB after tests that held a lot
    assert re.match(r"this step needs \d+\.\d\d (KiB|MiB|GiB) on cpu but the memory limit is "
                    + re.escape(glassgrad._C.format_bytes(lim)) + r" \(checked before running it\)", msg)
    assert "the plan's predicted peak: " in msg and "arena 'arena'" in msg and "in use now: " in msg
    assert "largest buffers:" in msg and "conv1/Conv2D.out  [16, 8, 14, 14] float32" in msg
    assert "smaller batch" in msg and "micro-batches" in msg and "checkpointing" in msg
    assert re.search(r'fix: halve the batch size, or raise the limit: glassgrad\.set_memory_limit\("\d+(KiB|MiB|GiB)"\)',
                     msg)
    assert log.allocations() == []


def test_plans_under_the_limit_run(rng, limit):
    model, x, y = _step(rng)
    limit(64 * 1024 * 1024)
    assert np.isfinite(glassgrad.cross_entropy(model(x), y).item())


def test_predicted_need_counts_the_arena_and_outputs(rng):
    model, x, y = _step(rng)
    glassgrad._C.empty_cache("cpu")
    plan = debug.explain(model(x)).plan
    need = glassgrad._C.predicted_need(plan, "cpu")
    current = glassgrad.memory_stats()["current"]
    assert need == current + plan.arena_bytes["cpu"] + 16 * 10 * 4


def test_after_a_refused_step_the_model_is_unchanged_and_still_trains(rng, limit):
    model, x, y = _step(rng)
    opt = glassgrad.SGD(model.parameters(), lr=0.1, momentum=0.9)
    before = {k: v.numpy() for k, v in model.state_dict().items()}  # copies: state_dict() shares the values
    glassgrad._C.empty_cache("cpu")
    limit(64 * 1024)
    glassgrad.cross_entropy(model(x), y).backward()
    with pytest.raises(glassgrad.OutOfMemoryError):
        opt.step()
    glassgrad.set_memory_limit(None)
    for name, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[name], err_msg=name)  # nothing ran
    assert all(p.is_leaf and p.requires_grad for p in model.parameters())
    opt.zero_grad()
    loss = glassgrad.cross_entropy(model(x[:4]), y[:4])  # e.g. a smaller batch
    loss.backward()
    opt.step()
    assert not np.array_equal(model.fc.weight.detach().numpy(), before["fc.weight"])


def test_a_refused_training_step_says_its_gradients_stay(rng, limit):
    # The step records backward() before it is refused: the gradients stay pending on the
    # parameters, and the message says to clear them before trying again.
    model, x, y = _step(rng)
    opt = glassgrad.SGD(model.parameters(), lr=0.1)
    glassgrad._C.empty_cache("cpu")
    limit(16 * 1024)
    with pytest.raises(glassgrad.OutOfMemoryError) as e:
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        loss.item()
    assert "optimizer.zero_grad() before running it again" in str(e.value)
