"""Cheap recomputation in every plan (autodiff-engine remat.h, cheap_recomputes): a transformer
MLP's LayerNorm and GELU outputs, which the backward pass reads for the weight gradients, are
recomputed there from values it keeps anyway instead of being kept from the forward pass; the
gradients are PyTorch's all the same."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn

torch = pytest.importorskip("torch")

ROWS, DIM = 512, 64  # LayerNorm's output 128 KiB, GELU's 512 KiB: above the 64 KiB kept as they are


def _mlp():
    gg.manual_seed(0)
    return nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))


def _step(model):
    def step(x):
        loss = (model(x) ** 2).mean()
        loss.backward()
        return loss
    return step


def _roles(report):
    return {(s["op"], s["role"]) for s in report.plan.steps}


def test_the_mlp_recomputes_layer_norm_and_gelu_in_the_backward_and_keeps_the_matmuls():
    model = _mlp()
    x = gg.tensor(np.random.default_rng(1).standard_normal((ROWS, DIM)).astype(np.float32))
    roles = _roles(gg.memory_report(_step(model), x))
    assert ("GELU", "recompute") in roles and ("LayerNorm", "recompute") in roles
    assert ("MatMul", "recompute") not in roles  # a GEMM is no cheap pass: its output stays saved
    # each recomputed op also ran once in the forward pass
    assert ("GELU", "forward") in roles and ("LayerNorm", "forward") in roles


def test_small_activations_stay_saved():
    model = _mlp()
    x = gg.tensor(np.random.default_rng(1).standard_normal((4, DIM)).astype(np.float32))
    assert not any(role == "recompute" for _, role in _roles(gg.memory_report(_step(model), x)))


def test_gradients_through_recomputed_activations_are_pytorchs():
    model = _mlp()
    xn = np.random.default_rng(2).standard_normal((ROWS, DIM)).astype(np.float32)
    tmodel = torch.nn.Sequential(torch.nn.LayerNorm(DIM), torch.nn.Linear(DIM, 4 * DIM), torch.nn.GELU(),
                                 torch.nn.Linear(4 * DIM, DIM))
    tmodel.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in model.state_dict().items()})
    loss = gg.compile(_step(model))(gg.tensor(xn))
    tloss = (tmodel(torch.from_numpy(xn)) ** 2).mean()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    tparams = dict(tmodel.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), rtol=2e-4, atol=2e-6, err_msg=name)
