"""One differential check for the random test files against PyTorch (test_torch_*.py): a glassgrad
function and its torch twin called on the same float64 arrays (integer arrays stay integer), the
values, shapes and the gradients of the chosen arguments compared (the output weighted by a fixed
random array before the backward pass), or, where torch raises, glassgrad raising too."""
import numpy as np
import pytest

import glassgrad as gg


def _convert(value, make, grad):
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "iub":
            return make(value)
        return make(value.astype(np.float64), requires_grad=grad)
    return value


def compare(ours, theirs, arrays, grads=(), kwargs=None, rtol=1e-10, atol=1e-12):
    """Asserts ours(*arrays, **kwargs) equals theirs(...) in value and in the gradients of the
    arguments whose indices are in grads; when theirs raises, ours must raise a GlassgradError."""
    import torch
    kwargs = kwargs or {}
    a = [_convert(x, gg.tensor, i in grads) for i, x in enumerate(arrays)]
    b = [_convert(x, torch.tensor, i in grads) for i, x in enumerate(arrays)]
    try:
        want = theirs(*b, **{k: _convert(v, torch.tensor, False) for k, v in kwargs.items()})
    except (RuntimeError, ValueError, IndexError) as e:
        with pytest.raises((gg.GlassgradError, ValueError, IndexError)):
            ours(*a, **{k: _convert(v, gg.tensor, False) for k, v in kwargs.items()})
        return str(e)
    got = ours(*a, **{k: _convert(v, gg.tensor, False) for k, v in kwargs.items()})
    assert tuple(got.shape) == tuple(want.shape), f"shape {tuple(got.shape)}, torch {tuple(want.shape)}"
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)
    if grads and want.numel():  # torch's backward refuses some empty outputs (area mode)
        seed = np.random.default_rng(3).standard_normal(tuple(want.shape))
        (got * gg.tensor(seed)).sum().backward()
        (want * torch.tensor(seed)).sum().backward()
        for i in grads:
            np.testing.assert_allclose(a[i].grad.detach().numpy(), b[i].grad.detach().numpy(), rtol=rtol * 10, atol=atol * 10,
                                       err_msg=f"gradient of argument {i}")
    return None


def assert_parameter_grads_match(ours, theirs, rtol, atol):
    """Two lists of parameter gradients (arrays, or None for a parameter no gradient reached):
    equal within the tolerances. A parameter with no path to the loss (a critic's last bias under
    a gradient penalty) has zeros in torch and None in glassgrad: either side may be None when
    the other is zero."""
    for a, b in zip(ours, theirs):
        if a is None or b is None:
            assert not np.any(b if a is None else a)
            continue
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
