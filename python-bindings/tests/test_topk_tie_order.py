"""torch.topk's order of equal values on the CPU, as PyTorch's kernel leaves them
(aten/src/ATen/native/TopKImpl.h; replayed in _cpu_tie_order with libstdc++'s algorithms):
std::nth_element then std::sort of the first k - 1 when k * 64 > n, std::partial_sort else;
NaN is the largest value and 0.0 equals -0.0. Which index is returned decides where the
gradient goes. Expected indices are PyTorch's (compared with it in the guarded test)."""
import math

import numpy as np
import pytest

import glassgrad as gg

NAN = math.nan
CASES = [  # (values, k, largest, sorted, PyTorch's indices)
    ([1, 3, 3, 1, 3, 2], 3, True, True, [2, 4, 1]),
    ([1.0, 3, 3, 1, 3, 2], 3, False, True, [0, 3, 5]),
    ([0.0] * 257, 4, True, True, [1, 3, 0, 2]),
    ([0.0] * 257, 4, False, True, [1, 3, 0, 2]),
    ([NAN, 1, NAN, 5, 5, NAN, 1], 4, True, True, [0, 5, 2, 3]),
    ([NAN, 1, NAN, 5, 5, NAN, 1], 4, False, True, [1, 6, 3, 4]),
    ([4] * 10, 5, True, False, [8, 6, 7, 5, 9]),
    ([0.0, -0.0, 0.0], 2, True, True, [0, 1]),
]


@pytest.mark.parametrize("values,k,largest,sorted_,want", CASES)
def test_tie_order(values, k, largest, sorted_, want):
    got = gg.topk(gg.tensor(values), k, largest=largest, sorted=sorted_)
    assert got.indices.tolist() == want
    np.testing.assert_array_equal(got.values.numpy(), np.asarray(values, dtype=got.values.numpy().dtype)[want])


def test_tie_order_along_dim_0():
    x = gg.tensor([[2, 2, 2, 2, 2] + [1] * 15] * 2).T
    assert gg.topk(x, 3, dim=0).indices.tolist() == [[1, 1], [0, 0], [4, 4]]


def test_gradient_reaches_the_chosen_elements():
    x = gg.tensor([1.0, 3, 3, 1, 3, 2], requires_grad=True)
    (x.topk(2).values * gg.tensor([1.0, 10.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 1, 0, 10, 0])


@pytest.mark.parametrize("seed", range(3))
def test_matches_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    for trial in range(60):
        shape = tuple(int(v) for v in rng.integers(1, 90, int(rng.integers(1, 3))))
        d = int(rng.integers(0, len(shape)))
        n = shape[d]
        k = int(rng.integers(0, n + 1)) if trial % 2 else int(rng.integers(0, min(n, 3) + 1))
        dtype = ["float32", "int64", "float16", "int32", "float64"][trial % 5]
        vals = rng.integers(0, int(rng.integers(1, 50)), shape).astype(np.float64)
        if dtype.startswith("float") and trial % 3 == 0:
            vals[rng.random(shape) < 0.1] = np.nan
        for largest in (True, False):
            for sorted_ in (True, False):
                want = torch.tensor(vals).to(getattr(torch, dtype)).topk(k, d, largest=largest, sorted=sorted_)
                got = gg.tensor(vals).to(getattr(gg, dtype)).topk(k, d, largest=largest, sorted=sorted_)
                w, g = want.indices.numpy(), got.indices.numpy()
                if not sorted_:  # the order of untied rows is unspecified (glassgrad's: sorted)
                    w, g = np.sort(w, axis=d), np.sort(g, axis=d)
                np.testing.assert_array_equal(g, w, err_msg=str((dtype, shape, d, k, largest, sorted_)))
