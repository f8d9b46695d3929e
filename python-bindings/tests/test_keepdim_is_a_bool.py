"""keepdim of the reductions must be a Python bool, as PyTorch's argument parser has it: an int
(`x.sum(0, 1)`), None, a float, a NumPy bool or a tensor is its TypeError, by position, by
keyword or through NumPy's `keepdims`; True and False still work. A keepdim passed by position is
named with its position as PyTorch counts it (a method's after self: x.sum(0, 1) has it at 2,
torch.sum(x, 0, 1) at 3)."""
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
# where each call above passes keepdim by position, PyTorch's count of it (None: by keyword)
POSITIONS = {"sum": 2, "gg.sum": 3, "amax": 2, "max": 2, "median": 2, "logsumexp": 3, "mean": None, "argmax": 2,
             "prod": None, "numpy keepdims": None}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("keepdim,kind", [(1, "int"), (0, "int"), (None, "NoneType"), (1.0, "float"),
                                          (np.True_, "numpy.bool")], ids=repr)
def test_a_keepdim_that_is_not_a_bool_is_a_type_error(name, keepdim, kind):
    at = "" if POSITIONS[name] is None else rf" \(position {POSITIONS[name]}\)"
    with pytest.raises(TypeError, match=rf"^\w+\(\): argument 'keepdim'{at} must be bool, not {kind}\n"):
        CALLS[name](gg.ones(2, 3), keepdim)


@pytest.mark.parametrize("method,function,position", [
    (lambda x: x.var(0, True, 1), lambda x: gg.var(x, 0, True, 1), 3),
    (lambda x: x.nansum(0, 0), lambda x: gg.nansum(x, 0, 0), 2),
    (lambda x: x.any(0, 1), lambda x: gg.any(x, 0, 1), 2),
    (lambda x: x.amin(0, None), lambda x: gg.amin(x, 0, None), 2),
])
def test_a_method_counts_positions_after_self(method, function, position):
    with pytest.raises(TypeError, match=rf"argument 'keepdim' \(position {position}\) must be bool"):
        method(gg.ones(2, 3))
    with pytest.raises(TypeError, match=rf"argument 'keepdim' \(position {position + 1}\) must be bool"):
        function(gg.ones(2, 3))


def test_the_positions_are_torch_s():
    torch = pytest.importorskip("torch")
    for mod in (torch, gg):
        x = mod.ones(2, 3)
        with pytest.raises(TypeError, match=r"^sum\(\): argument 'keepdim' \(position 2\) must be bool, not int"):
            x.sum(0, 1)
        with pytest.raises(TypeError, match=r"^sum\(\): argument 'keepdim' \(position 3\) must be bool, not float"):
            mod.sum(x, 0, 1.0)
        with pytest.raises(TypeError, match=r"^mean\(\): argument 'keepdim' must be bool, not NoneType"):
            x.mean(0, keepdim=None)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_bool_keepdim_still_works(name):
    def shape(out):
        return tuple((out[0] if isinstance(out, tuple) else out).shape)
    assert shape(CALLS[name](gg.ones(2, 3), True)) == (1, 3)
    assert shape(CALLS[name](gg.ones(2, 3), False)) == (3,)
