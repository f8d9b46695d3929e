"""Fusion of a residual Add into the dropout before it (fuse_dropout_residual, docs/architecture.md
"fusion"): Dropout(x) whose output only an Add of a same-shaped addend reads becomes one Dropout
step writing dropout(x) + residual; the numbers are the unfused plan's, bitwise."""

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

from fusion_checks import LAYERS, fused_gpt_backward_plan, plan_ops





def _block(fuse, dtype, seed=0):
    """A residual block h + dropout(f(h)) trained one step: loss, gradients and the plan."""
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(seed)
    lin = gg.nn.Linear(6, 6).to(dtype=dtype)
    drop = gg.nn.Dropout(0.3)
    h = gg.tensor(np.random.default_rng(seed).standard_normal((4, 5, 6))).to(dtype=dtype).requires_grad_()
    out = h + drop(gg.nn.functional.gelu(lin(h)))
    loss = (out * out).sum()
    loss.backward()
    grads = [loss.detach().numpy(), h.grad.numpy(), lin.weight.grad.numpy(), lin.bias.grad.numpy()]
    return out.detach().numpy(), grads, _C.last_plan()


@pytest.mark.parametrize("dtype", [gg.float32, gg.float64])
def test_dropout_then_residual_add_is_one_step_and_matches_unfused(fusion_state, dtype):
    out, grads, plan = _block(True, dtype)
    ref_out, ref_grads, plain = _block(False, dtype)
    np.testing.assert_array_equal(out, ref_out)
    for a, b in zip(grads, ref_grads):
        np.testing.assert_array_equal(a, b)
    assert ("Dropout", "Dropout+Add") in plan_ops(plan), plan_ops(plan)
    assert ("Dropout", "Dropout+Add") not in plan_ops(plain)


def test_dropout_with_residual_is_dropout_plus_the_residual():
    # The op itself: y = x * keep / (1 - p) + residual, keep the mask of Dropout(x, seed) alone.
    rng = np.random.default_rng(1)
    x, r = rng.standard_normal((3, 50)), rng.standard_normal((3, 50))
    seed = np.array(77, np.int64)
    t = _C.Tensor.from_numpy
    (plain,) = _C.run_op("Dropout", [t(x), t(seed)], {"p": 0.4}, "")
    (fused,) = _C.run_op("Dropout", [t(x), t(seed), t(r)], {"p": 0.4}, "")
    kept = plain.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(plain.numpy()[kept], x[kept] / 0.6, rtol=1e-15)
    np.testing.assert_array_equal(fused.numpy(), plain.numpy() + r)
    with pytest.raises(Exception, match="residual must have x's shape"):
        _C.run_op("Dropout", [t(x), t(seed), t(r[:, :49].copy())], {"p": 0.4}, "")


def test_dropout_read_elsewhere_or_broadcast_stays_unfused(fusion_state):
    _C.set_fusion(True)
    gg.clear_plan_cache()
    gg.manual_seed(3)
    x = gg.tensor(np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32))
    d1 = gg.nn.functional.dropout(x, 0.5)
    a = d1 + x                       # d1 is read again below: stays a separate Add
    b = d1 * 2.0
    d2 = gg.nn.functional.dropout(x, 0.5)
    c = d2 + gg.ones(6)              # broadcast addend: stays separate
    plan = _C.plan_for([a._h, b._h, c._h])
    assert ("Dropout", "Dropout+Add") not in plan_ops(plan), plan_ops(plan)
    np.testing.assert_array_equal(a.numpy(), d1.numpy() + x.numpy())


def test_the_gpt_steps_residual_adds_are_fused_into_their_dropouts(fusion_state):
    # char_gpt's blocks: x + dropout(c_proj(...)) and x + dropout(mlp(...)). With the Linear
    # biases in their products, the forward pass keeps one Add: the token and position embeddings'.
    plan = fused_gpt_backward_plan()
    steps = plan.steps
    assert plan_ops(plan).count(("Dropout", "Dropout+Add")) == 2 * LAYERS
    assert [s["op"] for s in steps if s["role"] == "forward"].count("Add") == 1, [(s["op"], s["scope"]) for s in steps]
