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


def test_grad_scaler_factors_that_round_and_its_errors_match_torch():
    """Factors that are no powers of two: the scale is rounded to float32 at each update, as
    PyTorch's scale tensor; a growth past float32's range leaves the scale; the misuse errors."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    blows = [1.0, float("nan"), 1.0, 1.0, float("inf"), 1.0, 1.0, 1.0]
    runs = []
    for lib in (torch, gg):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        scaler = lib.amp.GradScaler("cpu", init_scale=3.3e38, growth_factor=1.7, backoff_factor=0.3,
                                    growth_interval=1)
        xs = lib.tensor(x) if lib is gg else torch.from_numpy(x)
        scales = []
        for blow in blows:
            opt.zero_grad()
            scaler.scale(model(xs).mean() * 1e-30 * blow).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        opt.zero_grad()
        scaler.scale(model(xs).mean()).backward()
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
            scaler.unscale_(opt)
        scaler.update()
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: 0.0)
        runs.append((scales, scaler.state_dict()))
    assert runs[1][0] == runs[0][0]
    assert runs[1][1] == runs[0][1]
