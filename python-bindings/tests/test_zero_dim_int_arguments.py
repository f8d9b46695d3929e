"""A 0-d integer tensor where an int is expected is its int, as PyTorch's argument parser reads it:
x.flip(tensor(1)), x.squeeze(tensor(0)), x.polygamma(tensor(1)), x.mvlgamma(tensor(2)),
x.histc(tensor(2)) (NumPy integers too for polygamma's n and mvlgamma's p); a float tensor or a
bool there is PyTorch's TypeError. Torch-free checks, then the same calls against PyTorch where it
is installed."""
import math

import numpy as np
import pytest

import glassgrad as gg

X = [[0.5, 1.5, 2.5], [3.0, 0.25, 1.0]]


def test_flip_and_squeeze_take_a_0d_integer_tensor_dim():
    x = gg.tensor(X)
    assert x.flip(gg.tensor(1)).tolist() == [[2.5, 1.5, 0.5], [1.0, 0.25, 3.0]]
    assert x.flip(gg.tensor(0), 1).tolist() == [[1.0, 0.25, 3.0], [2.5, 1.5, 0.5]]
    assert gg.ones(1, 2).squeeze(gg.tensor(0)).shape == (2,)
    with pytest.raises(TypeError):
        gg.ones(1, 2).squeeze(gg.tensor(0.0))


def test_polygamma_and_mvlgamma_take_0d_integer_tensors_and_numpy_ints():
    x = gg.tensor(X)
    # polygamma(1, 1.0) is pi**2 / 6; mvlgamma(x, 2) = log(pi)/2 + lgamma(x) + lgamma(x - 1/2)
    assert x.polygamma(gg.tensor(1))[1, 2].item() == pytest.approx(math.pi ** 2 / 6, rel=1e-5)
    assert gg.polygamma(np.int64(1), x)[1, 2].item() == pytest.approx(math.pi ** 2 / 6, rel=1e-5)
    want = 0.5 * math.log(math.pi) + math.lgamma(2.5) + math.lgamma(2.0)
    assert x.mvlgamma(gg.tensor(2))[0, 2].item() == pytest.approx(want, rel=1e-5)
    assert x.mvlgamma(np.int64(2))[0, 2].item() == pytest.approx(want, rel=1e-5)
    assert x.clone().mvlgamma_(gg.tensor(2))[0, 2].item() == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("call", [lambda x: x.polygamma(gg.tensor(1.0)), lambda x: x.polygamma(True),
                                  lambda x: x.mvlgamma(2.0), lambda x: x.mvlgamma(True)])
def test_a_float_or_bool_order_is_a_type_error(call):
    with pytest.raises(TypeError, match=r"must be int, not"):
        call(gg.tensor(X))


def test_negative_orders_stay_runtime_errors():
    with pytest.raises(RuntimeError, match="does not support negative n"):
        gg.tensor(X).polygamma(-1)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        gg.tensor(X).mvlgamma(0)


def test_histc_takes_a_0d_integer_tensor_bins():
    assert gg.tensor(X).histc(gg.tensor(2)).tolist() == [4.0, 2.0]


CASES = {
    "flip(tensor(1))": lambda m: m.tensor(X).flip(m.tensor(1)),
    "flip(tensor(0), 1)": lambda m: m.tensor(X).flip(m.tensor(0), 1),
    "squeeze(tensor(0))": lambda m: m.ones(1, 2).squeeze(m.tensor(0)),
    "squeeze(tensor(0.))": lambda m: m.ones(1, 2).squeeze(m.tensor(0.0)),
    "polygamma(tensor(1))": lambda m: m.tensor(X).polygamma(m.tensor(1)),
    "polygamma(tensor(1.))": lambda m: m.tensor(X).polygamma(m.tensor(1.0)),
    "polygamma(np.int64)": lambda m: m.polygamma(np.int64(2), m.tensor(X)),
    "mvlgamma(tensor(2))": lambda m: (m.tensor(X) + 1).mvlgamma(m.tensor(2)),  # (no inf: inf - inf is nan)
    "mvlgamma(2.0)": lambda m: m.tensor(X).mvlgamma(2.0),
    "mvlgamma(0)": lambda m: m.tensor(X).mvlgamma(0),
    "histc(tensor(2))": lambda m: m.tensor(X).histc(m.tensor(2)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_outcome_as_pytorch(case):
    torch = pytest.importorskip("torch")
    from sweep_outcomes import assert_same_outcome
    assert_same_outcome(CASES[case], gg, torch)
