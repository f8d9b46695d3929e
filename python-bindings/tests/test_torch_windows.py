"""torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window and
torch.signal.windows against PyTorch: values for lengths 0, 1, 2 and odd and even ones, periodic
and symmetric, dtypes and requires_grad, and PyTorch's errors."""
import numpy as np
import pytest

import glassgrad.torch as gtorch

torch = pytest.importorskip("torch")
LENGTHS = [0, 1, 2, 5, 8, 11]
TOP = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
SIGNAL = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
          "hamming", "hann", "kaiser", "nuttall"]


@pytest.mark.parametrize("name", TOP)
@pytest.mark.parametrize("periodic", [True, False])
def test_top_level_windows_match_torch(name, periodic):
    for n in LENGTHS:
        ours = getattr(gtorch, name)(n, periodic, dtype=gtorch.float64)
        want = getattr(torch, name)(n, periodic, dtype=torch.float64)
        np.testing.assert_allclose(ours.numpy(), want.numpy(), rtol=1e-12, atol=1e-15, err_msg=f"{name}({n})")
    assert getattr(gtorch, name)(7).dtype == gtorch.float32  # periodic, default dtype
    np.testing.assert_allclose(getattr(gtorch, name)(7).numpy(), getattr(torch, name)(7).numpy(), rtol=1e-6,
                               atol=1e-7)


def test_window_parameters_and_leaf_flags():
    np.testing.assert_allclose(gtorch.hamming_window(9, False, 0.6, 0.3, dtype=gtorch.float64).numpy(),
                               torch.hamming_window(9, False, 0.6, 0.3, dtype=torch.float64).numpy(), rtol=1e-12)
    np.testing.assert_allclose(gtorch.kaiser_window(9, True, 3.5, dtype=gtorch.float64).numpy(),
                               torch.kaiser_window(9, True, 3.5, dtype=torch.float64).numpy(), rtol=1e-12)
    w = gtorch.hann_window(6, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    assert gtorch.hann_window(4, dtype=gtorch.float16).dtype == gtorch.float16


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_top_level_window_errors(lib):
    with pytest.raises(RuntimeError, match="non-negative"):
        lib.hann_window(-1)
    with pytest.raises(RuntimeError, match="floating point"):
        lib.blackman_window(4, dtype=lib.int64)
    with pytest.raises(TypeError):
        lib.hann_window(2.5)


@pytest.mark.parametrize("name", SIGNAL)
@pytest.mark.parametrize("sym", [True, False])
def test_signal_windows_match_torch(name, sym):
    kwargs = {"general_cosine": {"a": [0.4, 0.45, 0.15]}, "general_hamming": {"alpha": 0.6},
              "kaiser": {"beta": 5.0}, "gaussian": {"std": 1.7}, "exponential": {"tau": 2.5}}.get(name, {})
    for n in LENGTHS:
        ours = getattr(gtorch.signal.windows, name)(n, sym=sym, dtype=gtorch.float64, **kwargs)
        want = getattr(torch.signal.windows, name)(n, sym=sym, dtype=torch.float64, **kwargs)
        np.testing.assert_allclose(ours.numpy(), want.numpy(), rtol=1e-12, atol=1e-15, err_msg=f"{name}({n})")
    assert getattr(gtorch.signal.windows, name)(5, **kwargs).dtype == gtorch.float32


def test_exponential_center_of_a_periodic_window():
    for n in (1, 6):
        np.testing.assert_allclose(
            gtorch.signal.windows.exponential(n, center=1.5, sym=False, dtype=gtorch.float64).numpy(),
            torch.signal.windows.exponential(n, center=1.5, sym=False, dtype=torch.float64).numpy(), rtol=1e-12)


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_signal_window_errors(lib):
    w = lib.signal.windows
    for call in (lambda: w.hann(-1), lambda: w.hann(4, dtype=lib.float16), lambda: w.exponential(5, center=1.0),
                 lambda: w.exponential(5, tau=0), lambda: w.gaussian(5, std=0), lambda: w.kaiser(5, beta=-1)):
        with pytest.raises(ValueError):
            call()


def test_import_of_the_submodule():
    import glassgrad.torch.signal.windows as windows
    assert windows.hann(3).shape == (3,)
