"""torch.distributed.optim.ZeroRedundancyOptimizer (glassgrad/distributed/optim/): each rank
updates its share of the parameters and broadcasts it, ending every step with the parameters
one optimizer over them all gives (2 MPI ranks: zero_redundancy_worker.py); in a job of one
process it is its optimizer_class. Ownership follows PyTorch's rule (largest first, to the rank
with the fewest elements); state_dict() needs consolidate_state_dict() first, as PyTorch's."""
import datetime
import os

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributed as dist
from glassgrad.distributed.optim import ZeroRedundancyOptimizer
from test_distributed import launch, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def one_process():
    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=30), rank=0,
                            world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def _pair():
    out = []
    for _ in range(2):
        gg.manual_seed(0)
        out.append(gg.nn.Sequential(gg.nn.Linear(4, 8), gg.nn.Tanh(), gg.nn.Linear(8, 2)))
    return out


def test_one_process_steps_as_its_optimizer_class_and_follows_group_changes(one_process):
    ours, reference = _pair()
    zero = ZeroRedundancyOptimizer(ours.parameters(), optimizer_class=gg.optim.SGD, lr=0.1, momentum=0.9)
    plain = gg.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    x, y = gg.randn(8, 4), gg.randn(8, 2)
    for step in range(3):
        for m, opt in ((ours, zero), (reference, plain)):
            opt.zero_grad()
            ((m(x) - y) ** 2).mean().backward()
            opt.param_groups[0]["lr"] = 0.1 / (step + 1)  # a schedule sets the whole group's lr
            opt.step()
    for p, q in zip(ours.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6)
    assert zero.optim.param_groups[0]["lr"] == pytest.approx(0.1 / 3)
    with pytest.raises(RuntimeError, match="consolidate_state_dict"):
        zero.state_dict()
    zero.consolidate_state_dict(to=0)
    saved = zero.state_dict()
    assert sorted(saved["state"]) == [0, 1, 2, 3] and saved["param_groups"][0]["params"] == [0, 1, 2, 3]
    np.testing.assert_allclose(saved["state"][2]["momentum_buffer"].numpy(),
                               plain.state_dict()["state"][2]["momentum_buffer"].numpy(), rtol=1e-6)
    again = ZeroRedundancyOptimizer(_pair()[0].parameters(), optimizer_class=gg.optim.SGD, lr=0.5, momentum=0.9)
    again.load_state_dict(saved)
    assert again.param_groups[0]["lr"] == pytest.approx(0.1 / 3) and again.optim.param_groups[0]["lr"] == again.param_groups[0]["lr"]
    assert len(again.optim.state) == 4


def test_ownership_is_pytorchs_largest_first_to_the_least_loaded_rank(one_process):
    params = [gg.nn.Parameter(gg.zeros(n)) for n in (3, 10, 4, 7)]
    zero = ZeroRedundancyOptimizer(params, optimizer_class=gg.optim.SGD, lr=0.1)
    zero.world_size = 2  # the rule itself, for two ranks: 10 -> 0, 7 -> 1, 4 -> 1, 3 -> 0
    parts = zero._partition()
    assert [[p.numel() for p in part] for part in parts[0]] == [[10, 3], [7, 4]]


def test_it_needs_a_process_group_and_refuses_overlap_with_ddp():
    params = [gg.nn.Parameter(gg.zeros(2))]
    with pytest.raises(ValueError, match="init_process_group"):
        ZeroRedundancyOptimizer(params, optimizer_class=gg.optim.SGD, lr=0.1)
    with pytest.raises(Exception, match="overlap_with_ddp"):
        ZeroRedundancyOptimizer(params, optimizer_class=gg.optim.SGD, overlap_with_ddp=True, lr=0.1)


def test_distributed_optimizer_stays_left_out_with_the_reason():
    import glassgrad.distributed.optim as optim
    with pytest.raises(AttributeError, match="rpc"):
        optim.DistributedOptimizer


@needs_mpi
def test_two_ranks_end_each_step_with_one_optimizers_parameters():
    r = launch(2, os.path.join(HERE, "zero_redundancy_worker.py"), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in range(2):
        assert f"zero ok on rank {rank} of 2" in r.stdout, r.stdout + r.stderr
