"""The CUDA paths of the GPT step's fusions (docs/architecture.md, "fusion") on random data:
MatMul's fused bias in every product kernel (register tiles with and without split k, a warp
per output, a thread per output, any strides; a strided bias) equals the same kernel's product
plus the bias, bitwise, and the CPU's within rounding; Dropout's fused residual equals dropout
then the sum, bitwise (16-byte groups and the tail); and a small GPT's training step gives the
unfused plan's loss and gradients."""
import os
import sys

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

pytestmark = pytest.mark.cuda




def _biased_product(a, b, bias, device, fuse, transpose_a, strided):
    """a @ b + bias as a compiled step (workspace for split k included), with fusion on or off,
    and the plan's steps as (op, fused). A transposed or strided operand is a view of a value the
    step computes (x * 1.0), so the product reads it through its strides."""
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    ta = (gg.tensor(np.ascontiguousarray(a.T), device=device) * 1.0).T if transpose_a else gg.tensor(a, device=device)
    tb = (gg.tensor(np.repeat(b, 2, axis=-1), device=device) * 1.0)[:, ::2] if strided else gg.tensor(b, device=device)
    out = ta @ tb + gg.tensor(bias, device=device)
    plan = _C.plan_for([out._h])
    return out.numpy(), [(s["op"], s["attrs"].get("fused")) for s in plan.steps]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape,b_shape,transpose_a,strided", [
    ((4, 256, 384), (384, 1152), False, False),   # a GPT block's c_attn: tiles over a batch
    ((64, 4096), (4096, 96), False, False),       # one product, k split (gg_matmul_reduce adds the bias)
    ((64, 4096), (4096, 96), True, False),        # the same with A transposed
    ((300, 130), (130, 70), False, False),        # odd N: the tiles' scalar stores and tails
    ((4, 800), (800, 10), False, False),          # a warp per output
    ((4, 32), (32, 3), False, False),             # a thread per output
    ((70, 65), (65, 130), False, True),           # B with no unit stride: the any-stride tiles
])
def test_cuda_matmul_bias_equals_the_product_plus_the_bias(fusion_state, rng, dtype, a_shape, b_shape, transpose_a,
                                                          strided):
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    bias = rng.standard_normal(b_shape[-1]).astype(dtype)
    fused, steps = _biased_product(a, b, bias, "cuda", True, transpose_a, strided)
    assert ("MatMul", "MatMul+Add") in steps and "Add" not in [op for op, _ in steps], steps
    plain, _ = _biased_product(a, b, bias, "cuda", False, transpose_a, strided)
    np.testing.assert_array_equal(fused, plain)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(fused, a @ b + bias, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 4096, 4099])
def test_cuda_dropout_residual_equals_dropout_then_the_sum(rng, dtype, n):
    x = rng.standard_normal(n).astype(dtype)
    r = rng.standard_normal(n).astype(dtype)
    seed = _C.Tensor.from_numpy(np.array(99, np.int64), "cuda")
    t = [_C.Tensor.from_numpy(v, "cuda") for v in (x, r)]
    (plain,) = _C.run_op("Dropout", [t[0], seed], {"p": 0.2}, "")
    (fused,) = _C.run_op("Dropout", [t[0], seed, t[1]], {"p": 0.2}, "")
    np.testing.assert_array_equal(fused.numpy(), plain.numpy() + r)
    cpu_seed = _C.Tensor.from_numpy(np.array(99, np.int64))
    (cpu,) = _C.run_op("Dropout", [_C.Tensor.from_numpy(x), cpu_seed, _C.Tensor.from_numpy(r)], {"p": 0.2}, "")
    np.testing.assert_array_equal(fused.numpy(), cpu.numpy())


def _gpt_step(fuse):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials"))
    import char_gpt as G
    gg.manual_seed(0)
    model = G.GPT(65, 32, 2, 4, 64, 0.2).to("cuda")
    x, y = (gg.tensor(np.random.default_rng(i).integers(0, 65, (4, 32)), device="cuda") for i in range(2))
    gg.manual_seed(1)
    _, loss = model(x, y)
    loss.backward()
    loss.item()
    return [loss.detach().numpy()] + [p.grad.numpy() for p in model.parameters()], _C.last_plan()


def test_cuda_gpt_step_with_fusions_matches_the_unfused_step(fusion_state):
    # The three fusions are bitwise (the tests above); the elementwise chains fused with them on
    # may round differently on the GPU, hence the tolerance.
    fused, plan = _gpt_step(True)
    plain, _ = _gpt_step(False)
    for a, b in zip(fused, plain):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    names = [s["attrs"].get("fused") for s in plan.steps]
    assert names.count("MatMul+Add") == 8 and names.count("Dropout+Add") == 4 and names.count("Reshape+Concat") == 2
