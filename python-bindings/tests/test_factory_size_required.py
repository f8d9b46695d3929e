"""A factory's size is required and size= is a sequence, as PyTorch's argument parser reads them:
zeros() / ones() / empty() / rand() / randn() / x.new_zeros() with no size are TypeErrors (a 0-d
tensor is zeros(())), and size=2 (or randint's positional size 2) is a TypeError where zeros(2)
is a size (docs/porting.md, "Tensor creation")."""
import pytest

import glassgrad as gg

NO_SIZE = {
    "zeros": lambda lib: lib.zeros(),
    "ones": lambda lib: lib.ones(),
    "empty": lambda lib: lib.empty(),
    "rand": lambda lib: lib.rand(),
    "randn": lambda lib: lib.randn(),
    "zeros dtype=": lambda lib: lib.zeros(dtype=lib.float64),
    "ones requires_grad=": lambda lib: lib.ones(requires_grad=True),
    "empty out=": lambda lib: lib.empty(out=lib.zeros(2)),
    "new_zeros": lambda lib: lib.ones(2).new_zeros(),
    "new_ones": lambda lib: lib.ones(2).new_ones(),
    "new_empty": lambda lib: lib.ones(2).new_empty(),
}

INT_SIZE = {
    "zeros size=2": lambda lib: lib.zeros(size=2),
    "ones size=None": lambda lib: lib.ones(size=None),
    "randn size=3.0": lambda lib: lib.randn(size=3.0),
    "new_zeros size=2": lambda lib: lib.ones(2).new_zeros(size=2),
    "randint(5, 2)": lambda lib: lib.randint(5, 2),
    "randint(0, 5, 2)": lambda lib: lib.randint(0, 5, 2),
    "randint size=2": lambda lib: lib.randint(5, size=2),
}

ZERO_D = {
    "ones(())": lambda lib: lib.ones(()),
    "zeros([])": lambda lib: lib.zeros([]),
    "randn(size=())": lambda lib: lib.randn(size=()),
    "empty(size=[])": lambda lib: lib.empty(size=[]),
    "randint(5, ())": lambda lib: lib.randint(5, ()),
    "new_ones(())": lambda lib: lib.ones(2).new_ones(()),
}


@pytest.mark.parametrize("name", list(NO_SIZE))
def test_a_factory_without_a_size_is_a_type_error(name):
    fn = name.split()[0]
    with pytest.raises(TypeError, match=f'^{fn}\\(\\) missing 1 required positional arguments: "size"'):
        NO_SIZE[name](gg)


@pytest.mark.parametrize("name", list(INT_SIZE))
def test_size_keyword_that_is_not_a_sequence_is_a_type_error(name):
    with pytest.raises(TypeError, match=r"\(\): argument 'size' must be tuple of ints, not "):
        INT_SIZE[name](gg)


@pytest.mark.parametrize("name", list(ZERO_D))
def test_an_empty_size_makes_a_0_d_tensor(name):
    assert ZERO_D[name](gg).shape == ()


def test_sizes_as_arguments_and_keyword_sequences_still_work():
    assert gg.zeros(2).shape == (2,)
    assert gg.ones(size=[2, 3]).shape == (2, 3)
    assert gg.randint(5, (4,)).shape == (4,)
    assert gg.randint(0, 5, size=gg.Size([2, 2])).shape == (2, 2)
    with pytest.raises(TypeError, match="got multiple values for argument 'size'"):
        gg.ones(2, size=(2,))


def test_torch_refuses_and_accepts_the_same():
    torch = pytest.importorskip("torch")
    for name, make in NO_SIZE.items():
        with pytest.raises(TypeError):
            make(torch)
    for name, make in INT_SIZE.items():
        with pytest.raises(TypeError):
            make(torch)
    for name, make in ZERO_D.items():
        assert make(torch).shape == make(gg).shape == (), name
