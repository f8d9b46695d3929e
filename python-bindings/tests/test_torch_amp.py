"""GradScaler against torch.amp.GradScaler('cpu'): the same scale after each step, the same skipped
step when the loss overflows, the same weights after (no autocast: PyTorch's CPU autocast computes
in bfloat16, glassgrad's in float32). Skipped when torch is not importable (CI never installs it;
tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def test_grad_scaler_matches_torch():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((8, 3)).astype(np.float32), rng.standard_normal((8, 1)).astype(np.float32)
    gg.manual_seed(0)
    model = gg.nn.Linear(3, 1)
    tmodel = torch.nn.Linear(3, 1)
    tmodel.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in model.state_dict().items()})
    opt, topt = gg.optim.SGD(model.parameters(), lr=0.05), torch.optim.SGD(tmodel.parameters(), lr=0.05)
    scaler = gg.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    tscaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    scales, tscales = [], []
    for step in range(7):
        blow = float("inf") if step == 2 else 1.0
        opt.zero_grad()
        scaler.scale(((model(gg.tensor(x)) - gg.tensor(y)) ** 2).mean() * blow).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        topt.zero_grad()
        tscaler.scale(((tmodel(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean() * blow).backward()
        tscaler.step(topt)
        tscaler.update()
        tscales.append(tscaler.get_scale())
    assert scales == tscales
    np.testing.assert_allclose(model.weight.detach().numpy(), tmodel.weight.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(model.bias.detach().numpy(), tmodel.bias.detach().numpy(), rtol=1e-5)
