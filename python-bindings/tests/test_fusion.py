"""Fusion: fused plans compute the same numbers as unfused ones, and the printed plan shows the
fusion groups."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C


@pytest.fixture
def fusion_state():
    before = _C.fusion_enabled()
    yield
    _C.set_fusion(before)


def _mlp_step(fuse, seed=0):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(seed)
    rng = np.random.default_rng(seed)
    fc1, fc2 = gg.Linear(5, 7), gg.Linear(7, 3)
    x = gg.tensor(rng.standard_normal((6, 5)).astype(np.float32))
    h = (fc1(x) * 0.5 + 0.1).tanh().sigmoid()   # an elementwise chain
    loss = (fc2(h) ** 2).mean()
    loss.backward()
    return [loss.numpy()] + [p.grad.numpy() for p in (fc1.weight, fc1.bias, fc2.weight, fc2.bias)]


def test_fused_plan_matches_unfused_plan(fusion_state):
    fused, plain = _mlp_step(True), _mlp_step(False)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def test_elementwise_chain_becomes_one_step_and_is_printed(fusion_state):
    _C.set_fusion(True)
    x = gg.tensor(np.random.rand(4, 8).astype(np.float32))
    y = ((x * 2.0 + 1.0).relu() - 0.5).tanh()
    plan = _C.plan_for([y._h])
    ops = [s["op"] for s in plan.steps]
    assert ops == ["FusedElementwise"], ops
    assert "[fusion 0]" in str(plan)
    assert "MulScalar+AddScalar+ReLU+AddScalar+Tanh" in str(plan)
    np.testing.assert_allclose(y.numpy(), np.tanh(np.maximum(x.numpy() * 2 + 1, 0) - 0.5), rtol=1e-6)


def test_values_read_elsewhere_stay_unfused_outputs(fusion_state):
    _C.set_fusion(True)
    x = gg.tensor(np.random.rand(4, 8).astype(np.float32))
    a = x * 2.0            # read by two consumers: cannot disappear into a group
    b = a.relu() + a
    np.testing.assert_allclose(b.numpy(), np.maximum(2 * x.numpy(), 0) + 2 * x.numpy(), rtol=1e-6)
