"""The composites' table (composite_specs.py): each Python-level composite equals its NumPy
reference, and its gradient (through the ops it is made of) matches float64 finite differences."""
import numpy as np
import pytest

import glassgrad as gg
from composite_specs import COMPOSITES
from glassgrad.debug import gradcheck

IDS = [c.name for c in COMPOSITES]


@pytest.mark.parametrize("c", COMPOSITES, ids=IDS)
def test_composite_equals_its_numpy_reference(c):
    arrays = c.inputs(np.random.default_rng(0))
    got = c.fn(*[gg.tensor(a, dtype="float64") for a in arrays]).numpy()
    np.testing.assert_allclose(got, c.ref(*arrays), rtol=1e-10, atol=1e-12, err_msg=c.name)


@pytest.mark.parametrize("c", COMPOSITES, ids=IDS)
def test_composite_gradient_matches_finite_differences(c):
    assert gradcheck(c.fn, c.inputs(np.random.default_rng(1)))


def test_names_are_unique():
    assert len(set(IDS)) == len(IDS)


@pytest.fixture(autouse=True)
def constants_start_on_the_host():
    """The composites make their constants (masks, indices) on the default device, which is the
    GPU on a GPU machine; the CPU tests' inputs are on the CPU. The CUDA test sets its own."""
    before = gg.default_device()
    gg.set_default_device("cpu")
    yield
    gg.set_default_device(before)


@pytest.fixture
def default_device():
    """Restores the default device a test changes (composites make their constants there)."""
    before = gg.default_device()
    yield gg.set_default_device
    gg.set_default_device(before)


def _values_and_gradients(c, arrays, device: str, set_default):
    set_default(device)
    xs = [gg.tensor(a, dtype="float64", device=device, requires_grad=True) for a in arrays]
    out = c.fn(*xs)
    u = np.random.default_rng(2).standard_normal(tuple(out.shape))
    (out * gg.tensor(u, device=device)).sum().backward()
    return [out.detach().numpy()] + [x.grad.numpy() if x.grad is not None else np.zeros(x.shape) for x in xs]


@pytest.mark.cuda
@pytest.mark.parametrize("c", COMPOSITES, ids=IDS)
def test_composite_on_cuda_matches_the_cpu(c, default_device):
    """CPU-vs-CUDA parity of each composite on random data: values and input gradients (float64)."""
    arrays = c.inputs(np.random.default_rng(0))
    cpu = _values_and_gradients(c, arrays, "cpu", default_device)
    gpu = _values_and_gradients(c, arrays, "cuda", default_device)
    for k, (a, b) in enumerate(zip(cpu, gpu)):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11, err_msg=f"{c.name}: result {k}")
