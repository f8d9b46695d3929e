"""Run by test_zero_redundancy_optimizer.py under glassgrad.distributed.run: on every rank a
ZeroRedundancyOptimizer over AdamW steps a model, and its parameters must equal those of one
AdamW over all of them (the same steps, run locally); the state consolidated on rank 0 must
equal that AdamW's."""
import numpy as np

import glassgrad as gg
import glassgrad.distributed as dist
from glassgrad.distributed.optim import ZeroRedundancyOptimizer


def model():
    gg.manual_seed(0)
    return gg.nn.Sequential(gg.nn.Linear(4, 8), gg.nn.Tanh(), gg.nn.Linear(8, 3), gg.nn.Tanh(), gg.nn.Linear(3, 2))


def groups(m):
    return [{"params": [p for p in m.parameters() if p.dim() >= 2], "weight_decay": 0.1},
            {"params": [p for p in m.parameters() if p.dim() < 2], "weight_decay": 0.0}]


dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
ours, reference = model(), model()
zero = ZeroRedundancyOptimizer(groups(ours)[:1], optimizer_class=gg.optim.AdamW, lr=1e-2, betas=(0.9, 0.95))
zero.add_param_group(groups(ours)[1])
plain = gg.optim.AdamW(groups(reference), lr=1e-2, betas=(0.9, 0.95))
owned = sum(p.numel() for g in zero.optim.param_groups for p in g["params"]) if zero.optim else 0
assert owned < sum(p.numel() for p in ours.parameters()), "each rank owns a part only"
x, y = gg.randn(16, 4, generator=gg.Generator().manual_seed(1)), gg.randn(16, 2, generator=gg.Generator().manual_seed(2))
for step in range(3):
    for m, opt in ((ours, zero), (reference, plain)):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        for g in opt.param_groups:
            g["lr"] = 1e-2 / (step + 1)
        opt.step()
for p, q in zip(ours.parameters(), reference.parameters()):
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-7)
zero.consolidate_state_dict(to=0)
if rank == 0:
    got, want = zero.state_dict(), plain.state_dict()
    assert sorted(got["state"]) == sorted(want["state"]) == list(range(6))
    for k, s in want["state"].items():
        np.testing.assert_allclose(got["state"][k]["exp_avg_sq"].numpy(), s["exp_avg_sq"].numpy(), rtol=1e-5)
    assert [g["params"] for g in got["param_groups"]] == [[0, 1, 2], [3, 4, 5]]
print(f"zero ok on rank {rank} of {world}", flush=True)
dist.destroy_process_group()
