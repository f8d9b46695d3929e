"""torch.nn.attention.SDPBackend / sdpa_kernel and torch.backends.cuda's *_sdp switches
(docs/attention.md, "Backends"): every selection computes the one fused op's values; a selection
with no backend offered on the device raises PyTorch's error."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.nn.attention import SDPBackend, sdpa_kernel

# The refusals depend on the tensors' device: tensors made without one start on the CPU here (on a
# GPU machine the default device is the GPU), and the GPU's offer has its own test.
pytestmark = pytest.mark.usefixtures("on_the_cpu")

def _qkv():
    rng = np.random.default_rng(3)
    return [gg.tensor(rng.standard_normal((2, 3, 5, 4)).astype(np.float32)) for _ in range(3)]


def test_backend_values_are_pytorchs():
    assert [int(b) for b in (SDPBackend.ERROR, SDPBackend.MATH, SDPBackend.FLASH_ATTENTION,
                             SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
                             SDPBackend.OVERRIDEABLE)] == [-1, 0, 1, 2, 3, 4]


@pytest.mark.parametrize("backends", [SDPBackend.MATH, [SDPBackend.FLASH_ATTENTION],
                                      [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]])
def test_every_offered_selection_gives_the_same_values(backends):
    q, k, v = _qkv()
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    with sdpa_kernel(backends):
        got = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backends", [[SDPBackend.EFFICIENT_ATTENTION], [SDPBackend.CUDNN_ATTENTION], []])
def test_no_backend_offered_on_the_cpu_raises_and_the_selection_ends_with_the_block(backends):
    q, k, v = _qkv()
    with sdpa_kernel(backends):
        with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention") as info:
            F.scaled_dot_product_attention(q, k, v)
    assert "fix:" in str(info.value)
    F.scaled_dot_product_attention(q, k, v)  # every backend allowed again


def test_the_selection_is_restored_when_the_block_raises():
    with pytest.raises(KeyError):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            raise KeyError("inside")
    assert gg.backends.cuda.math_sdp_enabled() and gg.backends.cuda.flash_sdp_enabled()


def test_a_backend_that_is_not_an_sdpbackend_is_refused():
    with pytest.raises(TypeError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass
    with pytest.raises(AssertionError):  # PyTorch asserts
        with sdpa_kernel(["flash"]):
            pass


def test_backends_cuda_switches_and_the_deprecated_context_manager():
    b = gg.backends.cuda
    q, k, v = _qkv()
    assert (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled()) == \
        (True, True, True, True)
    try:
        b.enable_math_sdp(False)
        b.enable_flash_sdp(False)
        assert not b.math_sdp_enabled() and not b.flash_sdp_enabled()
        with pytest.raises(RuntimeError, match="No viable backend"):
            F.scaled_dot_product_attention(q, k, v)
        b.enable_flash_sdp(True)
        F.scaled_dot_product_attention(q, k, v)
    finally:
        b.enable_math_sdp(True)
        b.enable_flash_sdp(True)
    with pytest.warns(FutureWarning, match="sdp_kernel"):
        with b.sdp_kernel(enable_math=False, enable_flash=False):
            assert b.mem_efficient_sdp_enabled() and not b.math_sdp_enabled()
            with pytest.raises(RuntimeError, match="No viable backend"):
                F.scaled_dot_product_attention(q, k, v)
    assert b.math_sdp_enabled()


def test_the_same_refusals_as_pytorch():
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend as TB, sdpa_kernel as tk
    q = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    for chosen in ([0], [1], [2], [3], [2, 0], [3, 1]):
        outcomes = []
        for lib, B, kernel in ((torch, TB, tk), (gg, SDPBackend, sdpa_kernel)):
            t = lib.tensor(q)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    with kernel([B(c) if lib is gg else [TB.MATH, TB.FLASH_ATTENTION, TB.EFFICIENT_ATTENTION,
                                                          TB.CUDNN_ATTENTION][c] for c in chosen]):
                        outcomes.append(lib.nn.functional.scaled_dot_product_attention(t, t, t).numpy())
                except RuntimeError:
                    outcomes.append("raised")
        if isinstance(outcomes[0], str) or isinstance(outcomes[1], str):
            assert outcomes[0] == outcomes[1], chosen
        else:
            np.testing.assert_allclose(outcomes[1], outcomes[0], rtol=1e-5, atol=1e-6)


@pytest.mark.cuda
def test_the_gpu_offers_efficient_attention_but_not_cudnn():
    q, k, v = _qkv()
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    on_gpu = [t.to("cuda") for t in (q, k, v)]
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
        got = F.scaled_dot_product_attention(*on_gpu, is_causal=True)
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5, atol=1e-6)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        with pytest.raises(RuntimeError, match="(?s)No viable backend.*runs on cuda"):
            F.scaled_dot_product_attention(*on_gpu)
