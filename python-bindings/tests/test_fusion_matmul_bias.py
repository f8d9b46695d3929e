"""Fusion of a Linear layer's bias into its product (fuse_matmul_bias, docs/architecture.md
"fusion"): MatMul(a, b) whose output only an Add of a [N] bias reads becomes one MatMul step that
adds the bias as it stores each row; the numbers are the unfused plan's, bitwise."""

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

from fusion_checks import LAYERS, plan_ops, small_gpt





def _linear_forward(fuse, dtype, shape=(2, 5, 4)):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(0)
    lin = gg.nn.Linear(shape[-1], 3).to(dtype=dtype)
    x = gg.tensor(np.random.default_rng(1).standard_normal(shape).astype(np.float32 if dtype == gg.float32 else np.float64))
    y = lin(x)
    plan = _C.plan_for([y._h])
    return y.detach().numpy(), plan, x.numpy(), lin.weight.detach().numpy(), lin.bias.detach().numpy()


@pytest.mark.parametrize("dtype", [gg.float32, gg.float64])
@pytest.mark.parametrize("shape", [(2, 5, 4), (7, 4), (1, 4)])
def test_linear_bias_add_is_one_matmul_step_and_matches_unfused(fusion_state, dtype, shape):
    fused, plan, x, w, b = _linear_forward(True, dtype, shape)
    assert plan_ops(plan) == [("MatMul", "MatMul+Add")], plan_ops(plan)
    assert "[fusion 0: MatMul+Add]" in str(plan)
    plain, plain_plan, _, _, _ = _linear_forward(False, dtype, shape)
    assert [op for op, _ in plan_ops(plain_plan)] == ["MatMul", "Add"]
    np.testing.assert_array_equal(fused, plain)
    np.testing.assert_allclose(fused, x @ w.T + b, rtol=1e-5 if dtype == gg.float32 else 1e-12)


def _mixed_graph(fuse):
    """Products followed by bias-like Adds, some of which must stay separate: the product read
    again, a [1, N] bias, a [M, N] addend, a batched product, a strided bias view."""
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    rng = np.random.default_rng(3)
    a = gg.tensor(rng.standard_normal((3, 6, 5)).astype(np.float32))
    w = gg.tensor(rng.standard_normal((5, 4)).astype(np.float32))
    wide = gg.tensor(rng.standard_normal(8).astype(np.float32))
    bias = wide[::2]                                   # a strided view: element j at 2j
    row = gg.tensor(rng.standard_normal((1, 4)).astype(np.float32))
    full = gg.tensor(rng.standard_normal((6, 4)).astype(np.float32))
    bw = gg.tensor(rng.standard_normal((3, 5, 4)).astype(np.float32))
    shared = a @ w
    outs = [
        a @ w + bias,          # fused
        bias + a @ w,          # fused (the bias on the left)
        shared + bias,         # not fused: `shared` is read again below
        shared * 2.0,
        a @ w + row,           # not fused: a [1, N] bias
        a @ w + full,          # not fused: an addend of more than one row
        a @ bw + bias,         # fused: a batch of products
    ]
    plan = _C.plan_for([o._h for o in outs])
    npa, npw, npb = a.numpy(), w.numpy(), bias.numpy()
    want = [npa @ npw + npb, npb + npa @ npw, npa @ npw + npb, 2 * (npa @ npw), npa @ npw + row.numpy(),
            npa @ npw + full.numpy(), npa @ bw.numpy() + npb]
    return [o.numpy() for o in outs], want, plan


def test_only_a_product_read_by_one_vector_bias_add_is_fused(fusion_state):
    fused, want, plan = _mixed_graph(True)
    plain, _, _ = _mixed_graph(False)
    for got, ref, unfused in zip(fused, want, plain):
        np.testing.assert_array_equal(got, unfused)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    ops = plan_ops(plan)
    assert ops.count(("MatMul", "MatMul+Add")) == 3, ops
    assert [op for op, _ in ops].count("Add") == 3, ops   # shared + bias, + row, + full


def test_linear_gradients_with_the_fused_bias_match_unfused(fusion_state):
    def step(fuse):
        _C.set_fusion(fuse)
        gg.clear_plan_cache()
        gg.manual_seed(0)
        fc1, fc2 = gg.nn.Linear(6, 9), gg.nn.Linear(9, 4)
        x = gg.tensor(np.random.default_rng(2).standard_normal((3, 5, 6)).astype(np.float32))
        loss = (fc2(gg.nn.functional.gelu(fc1(x))) ** 2).mean()
        loss.backward()
        loss.item()
        plan = _C.last_plan()
        return [loss.detach().numpy()] + [p.grad.numpy() for p in (fc1.weight, fc1.bias, fc2.weight, fc2.bias)], plan

    fused, plan = step(True)
    plain, _ = step(False)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert [f for _, f in plan_ops(plan)].count("MatMul+Add") == 2, plan_ops(plan)


def test_matmul_with_a_bias_adds_it_to_every_row_and_checks_its_shape():
    # The fused form is the engine's; run as an op here: out = a @ b + bias, and a bias that is
    # not one value per output column is refused, naming both shapes.
    rng = np.random.default_rng(4)
    for dtype in (np.float32, np.float64):
        a, b = rng.standard_normal((2, 3, 5)).astype(dtype), rng.standard_normal((5, 4)).astype(dtype)
        bias = np.array([1.0, -2.0, 0.5, 3.0], dtype)
        (out,) = _C.run_op("MatMul", [_C.Tensor.from_numpy(v) for v in (a, b, bias)], {}, "")
        np.testing.assert_allclose(out.numpy(), a @ b + bias, rtol=1e-5 if dtype == np.float32 else 1e-12)
    with pytest.raises(Exception, match=r"bias must have shape \[4\].*got \[3\]"):
        _C.run_op("MatMul", [_C.Tensor.from_numpy(v) for v in (a, b, np.ones(3, np.float64))], {}, "")


def test_the_gpt_steps_linear_biases_are_fused(fusion_state):
    # char_gpt's GPT (docs/gpt-step.md): each block's four Linear layers (c_attn, c_proj and the
    # MLP's two) add their bias in the product; no Add of a bias vector is left in the step.
    _C.set_fusion(True)
    gg.clear_plan_cache()
    model, x, y = small_gpt()
    opt = gg.optim.AdamW(model.parameters(), lr=1e-3)

    def step(x, y):
        _, loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    ops = [op for plan in gg.debug.explain(step, x, y) for op in plan_ops(plan)]
    assert ops.count(("MatMul", "MatMul+Add")) == 4 * LAYERS, ops


def test_linear_with_fused_bias_matches_torch(fusion_state):
    torch = pytest.importorskip("torch")
    _C.set_fusion(True)
    gg.clear_plan_cache()
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((4, 7, 6)), rng.standard_normal((5, 6)), rng.standard_normal(5)
    got = gg.nn.functional.linear(gg.tensor(x), gg.tensor(w), gg.tensor(b)).numpy()
    want = torch.nn.functional.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
