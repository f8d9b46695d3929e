"""Sizes as PyTorch's factories and shape methods take them: ints, NumPy integers and one-element
integer tensors; a float, a NumPy float, a bool or a float tensor is a TypeError (zeros(2.0) is
refused, as torch.zeros(2.0) is). Compared with torch; skipped without it."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

FACTORIES = {
    "zeros": lambda lib, *s: lib.zeros(*s),
    "ones": lambda lib, *s: lib.ones(*s),
    "empty": lambda lib, *s: lib.empty(*s),
    "rand": lambda lib, *s: lib.rand(*s),
    "randn": lambda lib, *s: lib.randn(*s),
    "full": lambda lib, *s: lib.full(s, 1.5),
    "zeros size=": lambda lib, *s: lib.zeros(size=s),
    "randint": lambda lib, *s: lib.randint(0, 5, s),
    "new_zeros": lambda lib, *s: lib.ones(2).new_zeros(s),
    "new_ones": lambda lib, *s: lib.ones(2).new_ones(s),
    "reshape": lambda lib, *s: lib.arange(6).reshape(s),
    "view": lambda lib, *s: lib.arange(6).view(s),
}

BAD = {"float": lambda lib: (2.0, 3), "float last": lambda lib: (2, 3.0), "numpy float": lambda lib: (np.float64(2), 3),
       "bool": lambda lib: (True, 6), "float tensor": lambda lib: (lib.tensor(2.0), 3)}
GOOD = {"ints": lambda lib: (2, 3), "numpy ints": lambda lib: (np.int64(2), np.int32(3)),
        "int tensor": lambda lib: (lib.tensor(2), 3), "Size": lambda lib: tuple(lib.ones(2, 3).shape)}


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("name", list(FACTORIES))
def test_a_size_that_is_not_an_integer_is_a_type_error_as_in_torch(name, bad):
    make = FACTORIES[name]
    with pytest.raises(TypeError):
        make(torch, *BAD[bad](torch))
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type"):
        make(gg, *BAD[bad](gg))


@pytest.mark.parametrize("good", list(GOOD))
@pytest.mark.parametrize("name", list(FACTORIES))
def test_integer_sizes_give_torchs_shapes(name, good):
    make = FACTORIES[name]
    assert tuple(make(gg, *GOOD[good](gg)).shape) == tuple(make(torch, *GOOD[good](torch)).shape)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_one_float_size_is_refused_naming_the_function(name):
    with pytest.raises(TypeError):
        getattr(torch, name)(2.0)
    with pytest.raises(TypeError, match=f"^{name}\\(\\): argument 'size' \\(position 1\\) must be tuple of ints, not "
                                        f"float(?s:.*)fix: "):
        getattr(gg, name)(2.0)


@pytest.mark.parametrize("call", [lambda L, x: x.new_zeros(size=(2, 3)), lambda L, x: x.new_ones(size=[4]),
                                  lambda L, x: x.new_empty(size=(1, 2)), lambda L, x: x[:1].expand(size=(3, 2))])
def test_size_keyword_of_tensor_methods_as_torch(call):
    got, want = call(gg, gg.ones(2, 2)), call(torch, torch.ones(2, 2))
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
