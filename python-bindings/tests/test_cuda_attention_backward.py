"""The CUDA attention backward's two paths (docs/attention.md, "The kernels"). In float32, dq is
added into with atomics from every key block (gg_attn_prep, then gg_attn_bwd, which also writes dk,
dv and dmask; gg_attn_bwd_resident where the features fit
one chunk) unless deterministic algorithms are asked for
(glassgrad.use_deterministic_algorithms(True) or glassgrad.backends.cudnn.deterministic = True);
then gg_attn_dq and gg_attn_dkv run, and two runs give the same bits. float64 always takes the
deterministic path. Each path against the CPU kernel and the NumPy reference at head dims 16, 64,
80 and 128, odd lengths, causal with more queries than keys, a mask with its gradient, dropout,
key heads shared by query heads, and more value features than query features. Runs on the GPU
machine: pytest -m cuda."""
import numpy as np
import pytest

import glassgrad
from glassgrad.testing import run_kernel
from op_specs.attention import _backward_inputs, _case, sdpa_backward_ref

pytestmark = pytest.mark.cuda

# (name, q, k, v shapes, mask shape or None, attributes)
CASES = [
    ("gpt-head-causal-dropout", (2, 3, 256, 64), (2, 3, 256, 64), (2, 3, 256, 64), None,
     {"scale": 0.125, "is_causal": True, "dropout_p": 0.2}),
    ("head16-odd-lengths", (2, 2, 67, 16), (2, 2, 45, 16), (2, 2, 45, 16), None, {"scale": 0.25}),
    ("head80-mask-grad", (1, 2, 45, 80), (1, 2, 39, 80), (1, 2, 39, 80), (45, 39),
     {"scale": 0.11, "masked": True, "mask_grad": True}),
    ("head128-causal-more-queries", (1, 2, 70, 128), (1, 2, 40, 128), (1, 2, 40, 128), None,
     {"scale": 0.09, "is_causal": True}),
    ("odd-features-mask-grad", (1, 3, 50, 33), (1, 3, 41, 33), (1, 3, 41, 50), (50, 41),
     {"scale": 0.17, "masked": True, "mask_grad": True, "dropout_p": 0.1}),
    ("shared-key-heads", (2, 4, 33, 16), (2, 1, 50, 16), (2, 1, 50, 16), None, {"scale": 0.25}),
    ("values-wider", (1, 20, 16), (1, 35, 16), (1, 35, 80), None, {"scale": 0.25}),
]
NAMES = ("dq", "dk", "dv", "dmask")


def _inputs(case, dtype, seed):
    _, q, k, v, mask, attrs = case
    gen = _case(lambda n: q, lambda n: k, lambda n: v, (lambda n: mask) if mask else None,
                hidden_row=mask is not None, seed=attrs.get("dropout_p", 0) > 0)
    return _backward_inputs(gen, attrs)(np.random.default_rng(seed), dtype, 0)


def _set_switch(switch, on):
    if switch == "cudnn.deterministic":
        glassgrad.backends.cudnn.deterministic = on
    elif switch == "use_deterministic_algorithms":
        glassgrad.use_deterministic_algorithms(on)


def _close(want, got, dtype, what):
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    tol = dict(rtol=2e-4, atol=2e-5 * scale) if dtype == "float32" else dict(rtol=1e-10, atol=1e-11 * scale)
    np.testing.assert_allclose(got, want, err_msg=what, **tol)


@pytest.mark.parametrize("switch", ["default", "use_deterministic_algorithms", "cudnn.deterministic"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cuda_attention_backward_float32_paths_match_cpu_and_reference(case, switch):
    arrays = _inputs(case, "float32", 7)
    attrs = case[5]
    ref = sdpa_backward_ref(*arrays, **attrs)
    cpu = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cpu")
    try:
        _set_switch(switch, True)
        gpu = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cuda")
        again = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cuda")
    finally:
        _set_switch(switch, False)
    count = 4 if attrs.get("mask_grad") else 3
    for i in range(count):
        _close(cpu[i], gpu[i], "float32", f"{case[0]} {switch}: {NAMES[i]} vs CPU")
        _close(ref[i].astype(np.float64), gpu[i].astype(np.float64), "float32",
               f"{case[0]} {switch}: {NAMES[i]} vs reference")
        if switch != "default" or i > 0:  # only dq's sum over key blocks runs in any order
            np.testing.assert_array_equal(gpu[i], again[i], err_msg=f"{case[0]} {switch}: {NAMES[i]} differs")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cuda_attention_backward_float64_is_deterministic_and_matches_cpu(case):
    arrays = _inputs(case, "float64", 11)
    attrs = case[5]
    cpu = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cpu")
    gpu = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cuda")
    again = run_kernel("ScaledDotProductAttentionBackward", arrays, attrs, device="cuda")
    for i in range(4 if attrs.get("mask_grad") else 3):
        _close(cpu[i], gpu[i], "float64", f"{case[0]}: {NAMES[i]} vs CPU")
        np.testing.assert_array_equal(gpu[i], again[i], err_msg=f"{case[0]}: {NAMES[i]} differs between runs")
