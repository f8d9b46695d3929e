"""Values kept for a later plan (docs/architecture.md, "Values realized before backward") under a
memory limit whose room moves between steps (the step after the one that learnt what to keep holds
its optimizer state, or any other tensor): the plans that step runs must keep the same values.
While a budget derived from the limit was part of the plan-cache key in whole MiB, that step
looked its plans up under another key and computed the forward again, and glassgrad.compile
captured and replayed it so: a DCGAN iteration ran the generator's transposed convolutions twice
under any limit, 8% slower on a GPU. The key no longer carries such a budget ("Plans under a
memory limit"); test_plan_cache_under_memory_limit.py holds the cache to that."""
import numpy as np
import pytest

import glassgrad as gg
from plan_inspection import forward_ops_of_last_plan

# The limits here are the CPU's, so the models, batches and held tensors are made there too: on a
# GPU machine the default device is the GPU, where a CPU limit moves nothing.
pytestmark = pytest.mark.usefixtures("on_the_cpu")

_MIB = 1 << 20


def _above_held(gib: int) -> int:
    """A CPU limit `gib` GiB above what the process holds now: in a whole-suite run the earlier
    tests' caches and tensors hold more than a fixed 1 GB limit would leave."""
    return gg._C.memory_stats("cpu")["current"] + gib * (1 << 30)


def _model(seed=0):
    rng = np.random.default_rng(seed)
    model = gg.nn.Sequential(gg.nn.Conv2d(2, 5, 3), gg.nn.BatchNorm2d(5), gg.nn.ReLU(), gg.nn.Flatten(),
                             gg.nn.Linear(5 * 5 * 5, 3))
    state = model.state_dict()
    for key in ("0.weight", "0.bias", "4.weight", "4.bias"):
        state[key] = gg.tensor((rng.standard_normal(tuple(state[key].shape)) * 0.2).astype(np.float32))
    model.load_state_dict(state)
    return model


def _batches(steps, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((3, 2, 7, 7)).astype(np.float32), rng.integers(0, 3, 3)) for _ in range(steps)]


class _Limit:
    """A CPU memory limit for the block (lifted after it), with the plan cache cleared on entry:
    what the plans keep is learnt per cached plan."""

    def __init__(self, limit):
        self.limit = limit

    def __enter__(self):
        gg.clear_plan_cache()
        gg.set_memory_limit(self.limit, "cpu")

    def __exit__(self, *exc):
        gg.set_memory_limit(None, "cpu")


def _forward_ops_of_backward_plans(limit, steps=4):
    """Per step of a loop reading its loss before backward(): the forward nodes its backward plan
    computes again. After the first step the loop holds 3 MiB more (as optimizer state created by
    the first step() would be), which moves a limit's budget by 3 MiB."""
    held = []
    with _Limit(limit):
        model = _model()
        opt = gg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        forward_ops = []
        for x, y in _batches(steps):
            loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
            loss.item()
            loss.backward()
            opt.step()
            forward_ops.append(forward_ops_of_last_plan())
            opt.zero_grad()
            if not held:
                held.append(gg.zeros(3 * _MIB // 4))
                gg.realize(held[0])
    return forward_ops


def test_the_limit_budget_moves_by_mebibytes_with_the_memory_held():
    # The premise of the tests below: the budget is the limit less what is held outside the arena.
    with _Limit(_above_held(1)):
        before = gg._C.memory_budget("cpu")
        extra = gg.zeros(3 * _MIB // 4)
        gg.realize(extra)
        assert before - gg._C.memory_budget("cpu") == 3 * _MIB
        assert before // _MIB != gg._C.memory_budget("cpu") // _MIB


def test_after_the_first_step_no_backward_plan_computes_the_forward_again_under_a_limit():
    for limit in (None, _above_held(1), _above_held(16)):
        ops = _forward_ops_of_backward_plans(limit)
        assert ops[0], limit  # the first step cannot know yet what backward reads
        assert ops[1:] == [[], [], []], limit


def _gan():
    gg.manual_seed(3)  # the biases' initial values
    rng = np.random.default_rng(3)
    netG = gg.nn.Sequential(gg.nn.Linear(4, 16), gg.nn.BatchNorm1d(16), gg.nn.ReLU(), gg.nn.Linear(16, 8),
                            gg.nn.Tanh())
    netD = gg.nn.Sequential(gg.nn.Linear(8, 16), gg.nn.LeakyReLU(0.2), gg.nn.Linear(16, 1), gg.nn.Sigmoid())
    for net in (netG, netD):
        state = net.state_dict()
        for k, v in state.items():
            if k.endswith("weight") and len(v.shape) == 2:
                state[k] = gg.tensor((rng.standard_normal(tuple(v.shape)) * 0.3).astype(np.float32))
        net.load_state_dict(state)
    return netG, netD


def _gan_step(netD, netG, optD, optG, criterion, real, noise):
    """pytorch/examples' DCGAN iteration: the generator's forward is computed with the
    discriminator's step and read again by the generator's backward."""
    ones, zeros = gg.ones(real.shape[0], 1), gg.zeros(real.shape[0], 1)
    netD.zero_grad()
    criterion(netD(real), ones).backward()
    fake = netG(noise)
    criterion(netD(fake.detach()), zeros).backward()
    optD.step()
    netG.zero_grad()
    errG = criterion(netD(fake), ones)
    errG.backward()
    optG.step()
    return errG


def _captured_gan(limit, monkeypatch, calls=4):
    """The plans glassgrad.compile captured for the GAN step (as [op, ...] per plan) and the
    losses of `calls` calls; 3 MiB more is held after the first call (the warm-up, which creates
    the optimizers' state), so the capture (the second call) plans under another budget."""
    captured = []
    real_end = gg._C.capture_end

    def capture_end():
        runs = real_end()
        captured.append([[s["op"] for s in r.plan.steps] for r in runs])
        return runs

    monkeypatch.setattr(gg._C, "capture_end", capture_end)
    rng = np.random.default_rng(4)
    real = gg.tensor(rng.uniform(-1, 1, (6, 8)).astype(np.float32))
    noise = gg.tensor(rng.standard_normal((6, 4)).astype(np.float32))
    held, losses = [], []
    with _Limit(limit):
        netG, netD = _gan()
        optD = gg.optim.Adam(netD.parameters(), lr=0.01, betas=(0.5, 0.999))
        optG = gg.optim.Adam(netG.parameters(), lr=0.01, betas=(0.5, 0.999))
        step, criterion = gg.compile(_gan_step), gg.nn.BCELoss()
        for _ in range(calls):
            losses.append(step(netD, netG, optD, optG, criterion, real, noise).item())
            if not held:
                held.append(gg.zeros(3 * _MIB // 4))
                gg.realize(held[0])
        assert step.replays == calls - 2
    monkeypatch.undo()
    assert len(captured) == 1
    return captured[0], losses


def test_a_compiled_gan_step_replays_the_same_plans_with_and_without_a_limit(monkeypatch):
    plain, plain_losses = _captured_gan(None, monkeypatch)
    # The second plan (the generator's step) binds the forward values the first plan kept: it
    # computes the generator's forward (its BatchNorm among it) no more.
    assert "BatchNorm2DTrain" not in plain[1]
    for limit in (_above_held(1), _above_held(16)):
        plans, losses = _captured_gan(limit, monkeypatch)
        assert "BatchNorm2DTrain" not in plans[1], limit
        assert plans == plain, limit
        np.testing.assert_allclose(losses, plain_losses, rtol=1e-6, atol=1e-7)
