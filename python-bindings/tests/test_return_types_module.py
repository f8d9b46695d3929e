"""glassgrad.return_types, PyTorch's torch.return_types: the named tuple types exist before any
function has returned one, and are the types the functions return, with PyTorch's fields."""
import pickle

import pytest

import glassgrad as gg


@pytest.mark.parametrize("name,call,fields", [
    ("max", lambda: gg.ones(2, 3).max(0), ("values", "indices")),
    ("min", lambda: gg.min(gg.ones(2, 3), 1), ("values", "indices")),
    ("sort", lambda: gg.ones(3).sort(), ("values", "indices")),
    ("topk", lambda: gg.ones(3).topk(2), ("values", "indices")),
    ("cummax", lambda: gg.ones(3).cummax(0), ("values", "indices")),
    ("aminmax", lambda: gg.aminmax(gg.ones(3)), ("min", "max")),
    ("frexp", lambda: gg.frexp(gg.ones(3)), ("mantissa", "exponent")),
    ("histogram", lambda: gg.histogram(gg.ones(3)), ("hist", "bin_edges")),
])
def test_the_public_types_are_what_the_functions_return(name, call, fields):
    kind = getattr(gg.return_types, name)
    assert kind._fields == fields
    result = call()
    assert type(result) is kind and isinstance(result, tuple)
    assert type(pickle.loads(pickle.dumps(result))) is kind


def test_the_module_lists_its_types():
    assert {"max", "min", "median", "nanmedian", "mode", "kthvalue", "sort", "topk", "cummax", "cummin", "aminmax",
            "frexp", "histogram", "histogramdd", "triangular_solve"} <= set(gg.return_types.__all__)
    assert all(isinstance(getattr(gg.return_types, n), type) for n in gg.return_types.__all__)
