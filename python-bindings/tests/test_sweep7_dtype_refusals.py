"""Error kinds and promotions a sweep against PyTorch found (every torch.* function glassgrad has,
over dtypes, 0-d, empty and broadcast operands): trapezoid, cumulative_trapezoid and cov refuse
bool with PyTorch's NotImplementedError; logaddexp2 of two integer tensors is NotImplementedError
as logaddexp's; igamma/igammac check the promoted dtype (an int tensor beside a 0-d float is
fine, two int tensors NotImplementedError); isin of bool elements is PyTorch's RuntimeError;
quantile and nanquantile take float32 and float64 only (RuntimeError for float16); trace of a
bool matrix and gradient of a bool tensor are NotImplementedError, gradient of uint8 and take
with an int32 index RuntimeError; sort and argsort of a 0-d tensor check dim (IndexError); cdist
and pdist of float16/bfloat16 and histogram of float16 are NotImplementedError (PyTorch's CPU
kernels); adjoint of a 0-d tensor returns it, with PyTorch's deprecation warning."""
import numpy as np
import pytest

import glassgrad as gg

B = [[True, False, True], [False, True, True]]
REFUSED = [  # (call, PyTorch's exception type)
    (lambda m: m.trapezoid(m.tensor(B)), NotImplementedError),
    (lambda m: m.cumulative_trapezoid(m.tensor(B)), NotImplementedError),
    (lambda m: m.cov(m.tensor(B)), NotImplementedError),
    (lambda m: m.corrcoef(m.tensor(B)), NotImplementedError),
    (lambda m: m.logaddexp2(m.tensor([1, 2]), m.tensor([3, 4])), NotImplementedError),
    (lambda m: m.igamma(m.tensor([1, 2]), m.tensor([3, 4])), NotImplementedError),
    (lambda m: m.igammac(m.tensor([1, 2]), m.tensor(3)), NotImplementedError),
    (lambda m: m.isin(m.tensor(B), m.tensor(B)), RuntimeError),
    (lambda m: m.quantile(m.tensor([1.0, 2.0], dtype=m.float16), 0.5), RuntimeError),
    (lambda m: m.nanquantile(m.tensor([1.0, 2.0], dtype=m.bfloat16), 0.5), RuntimeError),
    (lambda m: m.trace(m.tensor(B)[:, :2]), NotImplementedError),
    (lambda m: m.gradient(m.tensor(B)), NotImplementedError),
    (lambda m: m.gradient(m.tensor([1, 2, 4], dtype=m.uint8)), RuntimeError),
    (lambda m: m.take(m.tensor([1.0, 2.0]), m.tensor([0], dtype=m.int32)), RuntimeError),
    (lambda m: m.sort(m.tensor(1.0), 2), IndexError),
    (lambda m: m.argsort(m.tensor(1.0), 1), IndexError),
    (lambda m: m.cdist(m.ones(2, 3, dtype=m.float16), m.ones(2, 3, dtype=m.float16)), NotImplementedError),
    (lambda m: m.pdist(m.ones(2, 3, dtype=m.bfloat16)), NotImplementedError),
    (lambda m: m.histogram(m.ones(3, dtype=m.float16)), NotImplementedError),
    (lambda m: m.take_along_dim(m.ones(2, 3), m.zeros(2, 3, dtype=m.int32), 1), RuntimeError),
    (lambda m: m.slice_copy(m.ones(2, 3), 2), IndexError),
    (lambda m: m.slice_copy(m.tensor(1.0)), IndexError),
]


@pytest.mark.parametrize("call,kind", REFUSED)
def test_refused_with_pytorchs_kind(call, kind):
    with pytest.raises(kind):
        call(gg)


def test_adjoint_of_a_0d_tensor_is_the_tensor():
    x = gg.tensor(2.0)
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        assert gg.adjoint(x) is x
    with pytest.raises(RuntimeError):
        gg.adjoint(gg.tensor([1.0, 2.0]))


def test_slice_copy_along_a_negative_dim():
    got = gg.slice_copy(gg.arange(6.0).reshape(2, 3), -1, 1)
    np.testing.assert_array_equal(got.numpy(), [[1, 2], [4, 5]])


def test_sort_of_a_0d_tensor_along_0_and_minus_1():
    for d in (0, -1):
        values, indices = gg.sort(gg.tensor(3.0), d)
        assert values.item() == 3.0 and indices.item() == 0 and indices.ndim == 0


def test_igamma_of_an_int_tensor_and_a_0d_float():
    got = gg.igamma(gg.tensor([1, 2]), gg.tensor(2.0))
    assert got.dtype == gg.float32
    # P(1, 2) = 1 - e^-2, P(2, 2) = 1 - 3 e^-2
    np.testing.assert_allclose(got.numpy(), [1 - np.exp(-2), 1 - 3 * np.exp(-2)], rtol=1e-6)
    np.testing.assert_allclose(gg.igammac(gg.tensor([1, 2]), gg.tensor(2.0)).numpy(),
                               [np.exp(-2), 3 * np.exp(-2)], rtol=1e-6)


@pytest.mark.parametrize("call,kind", REFUSED)
def test_kinds_match_torch(call, kind):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind):
        call(torch)


def test_igamma_promotion_matches_torch():
    torch = pytest.importorskip("torch")
    want = torch.igamma(torch.tensor([1, 2]), torch.tensor(2.0))
    got = gg.igamma(gg.tensor([1, 2]), gg.tensor(2.0))
    assert str(want.dtype).split(".")[-1] == str(got.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
