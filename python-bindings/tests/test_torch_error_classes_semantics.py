"""The exception classes PyTorch raises, for the same mistakes in both libraries: an index or
extent PyTorch reports as RuntimeError (topk's k past the dim, narrow past the end) is a
RuntimeError here too (and stays an IndexError, glassgrad's documented class); Tensor.softmax()
without dim is a TypeError; bernoulli refuses probabilities outside [0, 1]. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_X = np.random.default_rng(8).standard_normal((3, 5))

# name: f(lib, x), x a (3, 5) float64 tensor
_MISTAKES = {
    "topk k > n": lambda L, x: x.topk(6),
    "topk k > n along 0": lambda L, x: L.topk(x, 4, dim=0),
    "kthvalue k > n": lambda L, x: x.kthvalue(6),
    "kthvalue k = 0": lambda L, x: x.kthvalue(0),
    "narrow past the end": lambda L, x: x.narrow(1, 3, 3),
    "narrow start past the end": lambda L, x: x.narrow(1, 6, 0),
    "narrow negative start past the end": lambda L, x: x.narrow(0, -4, 1),
    "narrow dim out of range": lambda L, x: x.narrow(2, 0, 1),
    "select out of range": lambda L, x: x.select(0, 3),
    "softmax without dim": lambda L, x: x.softmax(),
    "log_softmax without dim": lambda L, x: x.log_softmax(),
    "bernoulli of p > 1": lambda L, x: L.bernoulli(L.tensor([0.2, 1.5])),
    "bernoulli of p < 0": lambda L, x: L.bernoulli(L.tensor([[-0.1, 0.5]])),
    "bernoulli of NaN": lambda L, x: L.bernoulli(L.tensor([float("nan")])),
    "bernoulli with p = 2": lambda L, x: L.tensor([0.5]).bernoulli(2.0),
    "bernoulli_ of NaN": lambda L, x: L.zeros(2).bernoulli_(float("nan")),
    "movedim with a repeated destination": lambda L, x: x.movedim((0, 1), (0, 0)),
    "movedim with a repeated source": lambda L, x: x.movedim((0, -2), (0, 1)),
    "negating bools": lambda L, x: -(x > 0),
    "subtracting bools": lambda L, x: (x > 0) - (x < 0),
    "bitwise and of floats": lambda L, x: x & x,
    "bitwise xor of floats": lambda L, x: L.bitwise_xor(x, x),
    "bitwise_not of floats": lambda L, x: L.bitwise_not(x),
    "shifting floats": lambda L, x: x << 1,
    "randn of a negative size": lambda L, x: L.randn(2, -1),
    "rand of a negative size": lambda L, x: L.rand(-3),
    "randint of a negative size": lambda L, x: L.randint(0, 3, (-1,)),
    "normal of a negative size": lambda L, x: L.normal(0.0, 1.0, (-1,)),
    "normal with std < 0": lambda L, x: L.normal(0.0, -1.0, (2,)),
    "normal of a tensor mean with std < 0": lambda L, x: L.normal(x, -0.5),
    "tensor_split into 0 sections": lambda L, x: x.tensor_split(0),
    "tensor_split by a float": lambda L, x: x.tensor_split(1.5),
    "full_like of a string": lambda L, x: L.full_like(x, "a"),
    "full of a string": lambda L, x: L.full((2,), "zero"),
    "floor division of bools": lambda L, x: (x > 0) // (x < 1),
    "remainder of bools": lambda L, x: L.remainder(x > 0, True),
    "fmod of bools": lambda L, x: L.fmod(x > 0, x < 1),
    "trunc division of bools": lambda L, x: L.div(x > 0, x < 1, rounding_mode="trunc"),
    "cat of 0-d tensors": lambda L, x: L.cat([x[0, 0], x[1, 1]]),
    "repeat_interleave of a 0-d count": lambda L, x: L.repeat_interleave(L.tensor(2)),
    "uniform_ of an integer tensor": lambda L, x: L.zeros(3, dtype=L.int64).uniform_(),
    "normal_ of an integer tensor": lambda L, x: L.zeros(3, dtype=L.int64).normal_(),
    "log_normal_ of an integer tensor": lambda L, x: L.zeros(3, dtype=L.int32).log_normal_(),
    "exponential_ of an integer tensor": lambda L, x: L.zeros(3, dtype=L.int64).exponential_(),
    "abs of bools": lambda L, x: (x > 0).abs(),
    "floor of bools": lambda L, x: L.floor(x > 0),
    "ceil of bools": lambda L, x: (x > 0).ceil(),
    "round of bools": lambda L, x: (x > 0).round(),
    "trunc of bools": lambda L, x: L.trunc(x > 0),
}

_CLASSES = (IndexError, RuntimeError, TypeError, ValueError, NotImplementedError)


def _raised(lib, f):
    try:
        f(lib, lib.tensor(_X))
    except Exception as e:
        return e
    return None


@pytest.mark.parametrize("name", list(_MISTAKES))
def test_the_exception_is_of_torchs_classes(name):
    want = _raised(torch, _MISTAKES[name])
    assert want is not None
    got = _raised(gg, _MISTAKES[name])
    assert got is not None, f"{name}: glassgrad raised nothing, PyTorch {type(want).__name__}"
    for cls in _CLASSES:
        if isinstance(want, cls):
            assert isinstance(got, cls), f"{name}: PyTorch's {type(want).__name__} is a {cls.__name__}, {got!r} is not"


def test_out_of_range_errors_stay_index_errors_with_a_fix():
    with pytest.raises(IndexError, match="fix: k <= 5"):
        gg.tensor(_X).topk(6)
    with pytest.raises(IndexError, match="fix: start \\+ length <= 5"):
        gg.tensor(_X).narrow(1, 3, 3)


def test_bernoulli_in_range_draws_and_the_implicit_softmax_dim_stays():
    p = gg.tensor([0.0, 1.0, 1.0, 0.0])
    assert gg.bernoulli(p).tolist() == [0.0, 1.0, 1.0, 0.0]
    assert gg.softmax(gg.tensor(_X)).shape == (3, 5)  # glassgrad's documented default dim=-1
    with pytest.warns(UserWarning):
        assert F.softmax(gg.tensor(_X)).shape == (3, 5)  # PyTorch's implicit dim, with its warning


def test_tensor_split_takes_a_tensor_of_sections_or_indices():
    x = gg.arange(7)
    assert [t.tolist() for t in x.tensor_split(gg.tensor(3))] == [[0, 1, 2], [3, 4], [5, 6]]
    assert [t.tolist() for t in x.tensor_split(gg.tensor([2, 5]))] == [[0, 1], [2, 3, 4], [5, 6]]


def test_repeat_interleave_of_counts_alone_matches_torch():
    counts = [2, 0, 3, 1]
    assert gg.repeat_interleave(gg.tensor(counts)).tolist() == torch.repeat_interleave(torch.tensor(counts)).tolist()
