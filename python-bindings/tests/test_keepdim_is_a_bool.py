"""keepdim of the reductions must be a Python bool, as PyTorch's argument parser has it: an int
(`x.sum(0, 1)`), None, a float, a NumPy bool or a tensor is its TypeError, by position, by
keyword or through NumPy's `keepdims`; True and False still work."""
import numpy as np
import pytest

import glassgrad as gg

CALLS = {
    "sum": lambda x, k: x.sum(0, k), "gg.sum": lambda x, k: gg.sum(x, 0, k), "amax": lambda x, k: x.amax(0, k),
    "max": lambda x, k: x.max(0, k), "median": lambda x, k: x.median(0, k),
    "logsumexp": lambda x, k: gg.logsumexp(x, 0, k), "mean": lambda x, k: x.mean(0, keepdim=k),
    "argmax": lambda x, k: x.argmax(0, k), "prod": lambda x, k: gg.prod(x, 0, keepdim=k),
    "numpy keepdims": lambda x, k: gg.sum(x, axis=0, keepdims=k),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("keepdim,kind", [(1, "int"), (0, "int"), (None, "NoneType"), (1.0, "float"),
                                          (np.True_, "numpy.bool")], ids=repr)
def test_a_keepdim_that_is_not_a_bool_is_a_type_error(name, keepdim, kind):
    with pytest.raises(TypeError, match=f"argument 'keepdim' must be bool, not {kind}"):
        CALLS[name](gg.ones(2, 3), keepdim)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_bool_keepdim_still_works(name):
    def shape(out):
        return tuple((out[0] if isinstance(out, tuple) else out).shape)
    assert shape(CALLS[name](gg.ones(2, 3), True)) == (1, 3)
    assert shape(CALLS[name](gg.ones(2, 3), False)) == (3,)
