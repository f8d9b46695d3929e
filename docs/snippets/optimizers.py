"""Optimizers, schedules and weight averaging in a port (docs/optimizers.md), checked by the test suite."""
import numpy as np

import glassgrad.torch as torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(6)]

# --8<-- [start:swa]
from glassgrad.optim.swa_utils import SWALR, AveragedModel, update_bn

optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CyclicLR(optimizer, base_lr=0.01, max_lr=0.1, step_size_up=4)
swa_model = AveragedModel(model)              # running mean of the weights (SWA)
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2)
for epoch in range(4):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if epoch < 2:
            scheduler.step()                  # cyclical rate, per batch
    if epoch >= 2:                            # the last epochs: average the weights
        swa_model.update_parameters(model)
        swa_scheduler.step()
update_bn([x for x, _ in batches], swa_model)  # BatchNorm statistics for the averaged weights
print(int(swa_model.n_averaged), round(swa_scheduler.get_last_lr()[0], 4))
# --8<-- [end:swa]
assert int(swa_model.n_averaged) == 2

# --8<-- [start:rprop]
w = torch.tensor([3.0, -2.0], requires_grad=True)
opt = torch.optim.Rprop([w], lr=0.1)          # sign-based steps; ASGD(params, lr, lambd, alpha, t0) too
for _ in range(40):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
print(sorted(opt.state_dict()["state"][0]))   # PyTorch's entries: prev, step, step_size
# --8<-- [end:rprop]
assert np.abs(w.detach().numpy()).max() < 0.1

# --8<-- [start:parametrize]
layer = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3))
print(list(layer.state_dict()))               # bias, then g and v: parametrizations.weight.original0/1
layer.weight = torch.ones(3, 4)               # stored through right_inverse: g = 2 (each row's norm), v = ones
print(layer.parametrizations.weight.original0.flatten().tolist())
torch.nn.utils.parametrize.remove_parametrizations(layer, "weight")   # a plain Linear again
print(type(layer).__name__, list(layer.state_dict()))
# --8<-- [end:parametrize]
assert type(layer).__name__ == "Linear"

# --8<-- [start:muon]
net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
matrices = [p for p in net.parameters() if p.ndim == 2]   # Muon takes 2-d weights only
others = [p for p in net.parameters() if p.ndim != 2]
muon = torch.optim.Muon(matrices, lr=0.02)            # momentum, Newton-Schulz in bfloat16
adafactor = torch.optim.Adafactor(others)             # factored second moments, relative steps
for x, y in batches:
    muon.zero_grad()
    adafactor.zero_grad()
    torch.nn.functional.mse_loss(net(x), y).backward()
    muon.step()
    adafactor.step()
print(list(muon.state_dict()["state"][0]), list(adafactor.state_dict()["state"][0]))
# --8<-- [end:muon]
assert list(adafactor.state_dict()["state"][0]) == ["step", "variance"]
