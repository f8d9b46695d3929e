"""torch's small runtime switches and predicates: set_warn_always, get/set_num_interop_threads,
set_flush_denormal, anomaly detection's switch, is_inference, Tensor.is_mps and the other device
predicates, record_stream, isreal, rsub and frexp: each checked against PyTorch's behaviour."""
import math
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from torch_compare import compare

torch = pytest.importorskip("torch")


def test_warn_always_repeats_the_once_per_process_warnings():
    assert gtorch.is_warn_always_enabled() is False
    x = gg.ones(2)
    x.storage()  # the deprecation warning's one time (or already given)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        x.storage()
    assert not seen
    gtorch.set_warn_always(True)
    try:
        assert gtorch.is_warn_always_enabled()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            x.storage()
            x.storage()
        assert len(seen) == 2 and "TypedStorage is deprecated" in str(seen[0].message)
    finally:
        gtorch.set_warn_always(False)


def test_interop_threads_and_flush_denormal():
    assert gtorch.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError, match="positive"):
        gtorch.set_num_interop_threads(0)
    assert gtorch.set_flush_denormal(True) is False and gtorch.set_flush_denormal(False) is False
    assert gg.tensor([1e-40]).item() != 0  # denormals kept


def test_set_anomaly_enabled():
    assert gtorch.is_anomaly_enabled() is False
    gtorch.set_anomaly_enabled(True, check_nan=False)
    try:
        assert gtorch.is_anomaly_enabled() and not gtorch.is_anomaly_check_nan_enabled()
        assert gg.autograd.is_anomaly_enabled()
    finally:
        gtorch.set_anomaly_enabled(False)
    assert not gtorch.is_anomaly_enabled() and gtorch.is_anomaly_check_nan_enabled()


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_predicates(lib):
    x = lib.ones(3)
    with lib.inference_mode():
        y = lib.ones(3)
    assert lib.is_inference(y) and not lib.is_inference(x)
    for name in ("is_mps", "is_xla", "is_nested", "is_ipu", "is_maia", "is_mtia", "is_vulkan", "is_mkldnn"):
        assert getattr(x, name) is False, name
    assert x.isreal().tolist() == [True] * 3
    with pytest.raises((RuntimeError, TypeError)):
        x.record_stream(None)


def test_record_stream_is_accepted():
    x = gg.ones(3)
    assert x.record_stream(object()) is None


def test_rsub_matches_torch():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    compare(gtorch.rsub, torch.rsub, [a, b], (0, 1))
    compare(lambda x, y: gtorch.rsub(x, y, alpha=2.5), lambda x, y: torch.rsub(x, y, alpha=2.5), [a, b], (0, 1))
    compare(lambda x: gtorch.rsub(x, 3.0, 2), lambda x: torch.rsub(x, 3.0, 2), [a], (0,))
    assert not hasattr(gg.Tensor, "rsub") and not hasattr(torch.Tensor, "rsub")  # a function only


def test_frexp_matches_torch():
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-310, 3.0, -7.5, 0.5, 1.0, 2.0 ** 60, -1e-5]
    for dt in ("float64", "float32", "float16", "bfloat16"):
        v = values if dt == "float64" else [x for x in values if x != 1e-310 and x != 2.0 ** 60]
        m, e = gtorch.frexp(gg.tensor(v, dtype=getattr(gg, dt)))
        tm, te = torch.frexp(torch.tensor(v, dtype=getattr(torch, dt)))
        assert m.dtype == getattr(gg, dt) and e.dtype == gg.int32
        np.testing.assert_array_equal(m.float().numpy(), tm.float().numpy())
        np.testing.assert_array_equal(e.numpy(), te.numpy())
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5)) * 10.0 ** rng.integers(-5, 5, (3, 5))
    compare(lambda t: gtorch.frexp(t).mantissa, lambda t: torch.frexp(t).mantissa, [x], (0,))
    compare(lambda t: t.frexp()[0], lambda t: t.frexp()[0], [x], (0,))
    with pytest.raises(gg.DTypeError, match="floating-point"):
        gtorch.frexp(gg.tensor([1, 2]))
    m, e = gg.empty(2), gg.empty(2, dtype=gg.int32)
    gtorch.frexp(gg.tensor([4.0, 0.25]), out=(m, e))
    assert m.tolist() == [0.5, 0.5] and e.tolist() == [3, -1]


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_device_and_storage_queries(lib):
    x = lib.arange(6.0).reshape(2, 3)
    assert lib.get_device(x) == -1 and x.get_device() == -1
    assert lib.is_distributed(x) is False and x.is_distributed() is False
    assert lib.cudnn_is_acceptable(x) is False or lib is torch
    assert x.is_set_to(x) and x.is_set_to(x[:]) and not x.is_set_to(x[:1]) and not x.is_set_to(x.clone())
    assert x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
    assert x.const_data_ptr() == x.data_ptr()
    assert [p.shape[1] for p in lib.unsafe_split_with_sizes(x, [1, 2], 1)] == [1, 2]
    assert [p.shape[1] for p in x.unsafe_split_with_sizes([2, 1], 1)] == [2, 1]
    assert lib.has_lapack is True and lib.compiled_with_cxx11_abi() is True and lib.is_vulkan_available() is False
    assert isinstance(lib.has_mkl, bool) and isinstance(lib.has_openmp, bool) and isinstance(lib.has_spectral, bool)


def test_float_power_in_place():
    a = np.random.default_rng(6).uniform(0.5, 2.0, 5)
    x, t = gg.tensor(a), torch.tensor(a)
    assert x.float_power_(1.5) is x
    np.testing.assert_allclose(x.numpy(), t.float_power_(1.5).numpy(), rtol=1e-14)
    for lib in (gg, torch):
        with pytest.raises(RuntimeError, match="float_power_"):
            lib.ones(3).float_power_(2)


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_deterministic_debug_mode_and_newaxis(lib):
    try:
        assert lib.get_deterministic_debug_mode() == 0 and not lib.is_deterministic_algorithms_warn_only_enabled()
        lib.set_deterministic_debug_mode("warn")
        assert lib.get_deterministic_debug_mode() == 1 and lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        lib.set_deterministic_debug_mode(2)
        assert lib.get_deterministic_debug_mode() == 2 and not lib.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(RuntimeError, match="debug_mode"):
            lib.set_deterministic_debug_mode("sometimes")
    finally:
        lib.set_deterministic_debug_mode(0)
    assert not lib.are_deterministic_algorithms_enabled()
    assert lib.newaxis is None and tuple(lib.ones(2, 3)[:, lib.newaxis].shape) == (2, 1, 3)
