"""Gradients of order statistics at ties, as PyTorch's CPU kernels give them (the reference
versions 2.11 to 2.13 and 2.14 alike, unless marked): kthvalue returns (and its gradient reaches)
the tied element its quickselect leaves at position k - 1, mode the one at the end of its
std::sort run (glassgrad/_cpu_tie_order.py); max() and min() over every element share the
gradient evenly by the elements equal to the result, a NaN result by the NaN elements (PyTorch's
evenly_distribute_backward); fmax and fmin pass it by the reference versions' masks where an
operand is NaN. Expected values are PyTorch's results."""
import math
import os
import random
import sys

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _cpu_tie_order

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_versions import skip_if_changed_in_2_14

NAN = math.nan
_R20 = [0.0, 2.0, 2.0, 0.0, 1.0, 2.0, 1.0, 2.0, 2.0, 0.0, 2.0, 0.0, 1.0, 1.0, 2.0, 0.0, 0.0, 2.0, 1.0, 2.0]
_R24 = [2.0, 1.0, 1.0, 2.0, 0.0, 0.0, 2.0, 0.0, 2.0, 1.0, 2.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0, 1.0, 2.0,
        2.0, 1.0]

# (row, k) -> the index torch.kthvalue(row, k) returns
_KTH = [
    ([3.0, 1.0, 1.0, 2.0], 2, 1), ([3.0, 1.0, 1.0, 2.0], 1, 2),
    ([1.0] * 4, 1, 1), ([1.0] * 4, 2, 0), ([1.0] * 4, 3, 2), ([1.0] * 4, 4, 3),
    ([2.0, 1.0, 2.0, 1.0, 2.0], 3, 2), ([2.0, 1.0, 2.0, 1.0, 2.0], 4, 0), ([2.0, 1.0, 2.0, 1.0, 2.0], 5, 4),
    ([5.0, 5.0, 1.0, 5.0], 2, 1), ([0.0, 0.0, 0.0, 1.0, 0.0, 0.0], 3, 0), ([3.0] * 20, 7, 9),
    (_R20, 1, 9), (_R20, 10, 18), (_R20, 20, 19), (_R24, 1, 5), (_R24, 12, 23), (_R24, 24, 0),
    ([1.0, NAN, 1.0, 2.0, NAN, 2.0, 1.0], 6, 1), ([1.0, NAN, 1.0, 2.0, NAN, 2.0, 1.0], 7, 4),
]

# row -> the index torch.mode(row) returns
_MODE = [([3.0, 1.0, 1.0, 2.0], 2), ([1.0] * 4, 3), ([2.0, 1.0, 2.0, 1.0, 2.0], 4), ([3.0] * 20, 1), (_R20, 1),
         (_R24, 0), ([1.0, NAN, 1.0, 2.0, NAN, 2.0, 1.0], 0)]


@pytest.mark.parametrize("row,k,index", _KTH)
def test_kthvalue_index_and_gradient_at_ties(row, k, index):
    x = gg.tensor(row, dtype=gg.float64, requires_grad=True)
    out = gg.kthvalue(x, k)
    assert out.indices.item() == index
    out.values.backward()
    expected = np.zeros(len(row))
    expected[index] = 1.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert out.values.grad_fn.name() == "KthvalueBackward0"


@pytest.mark.parametrize("row,index", _MODE)
def test_mode_index_at_ties(row, index):
    assert gg.mode(gg.tensor(row)).indices.item() == index


def test_kthvalue_along_a_dim_keepdim():
    x = gg.tensor([[3.0, 1.0, 1.0, 2.0], [2.0, 2.0, 2.0, 5.0]], dtype=gg.float64, requires_grad=True)
    out = x.kthvalue(2, dim=1, keepdim=True)
    assert out.indices.tolist() == [[1], [0]] and out.values.tolist() == [[1.0], [2.0]]
    (out.values * gg.tensor([[1.0], [2.0]], dtype=gg.float64)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]
    y = gg.tensor([[3.0, 1.0], [3.0, 1.0]], requires_grad=True)
    assert y.kthvalue(1, dim=0).indices.tolist() == [0, 0]  # two elements: swapped only if the first is greater
    assert y.kthvalue(2, dim=0).indices.tolist() == [1, 1]


def test_mode_gradient_beyond_sixteen_elements():
    x = gg.tensor([[1.0, 2.0, 1.0, 2.0, 1.0, 2.0] + [3.0] * 12, [0.0] * 18], requires_grad=True)
    m = gg.mode(x, 1)
    assert m.indices.tolist() == [6, 1] and m.values.tolist() == [3.0, 0.0]
    (m.values * gg.tensor([1.0, 2.0])).sum().backward()
    expected = np.zeros((2, 18))
    expected[0, 6], expected[1, 1] = 1.0, 2.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_kthvalue_gradient_by_finite_differences():
    x = gg.tensor([[0.3, -1.2, 2.5, 0.7], [1.1, 0.2, -0.4, 3.3]], dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: gg.kthvalue(t, 3, 1).values, (x,))


@pytest.mark.parametrize("largest", [True, False])
def test_max_min_over_every_element_share_by_nan_and_ties(largest):
    f = (lambda t: t.max()) if largest else (lambda t: t.min())
    x = gg.tensor([3.0, NAN, 1.0, NAN], dtype=gg.float64, requires_grad=True)
    y = f(x)
    y.backward()
    assert math.isnan(y.item()) and x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    assert y.grad_fn.name() == ("MaxBackward1" if largest else "MinBackward1")
    x = gg.tensor([3.0, 1.0, 3.0, 1.0], dtype=gg.float64, requires_grad=True)
    f(x).backward()
    assert x.grad.tolist() == ([0.5, 0.0, 0.5, 0.0] if largest else [0.0, 0.5, 0.0, 0.5])


def test_max_over_every_element_by_finite_differences():
    x = gg.tensor([[0.3, -1.2], [2.5, 0.7]], dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: t.max() + t.min(), (x,))


# fmax/fmin of a = [nan, 1, 2, nan], b = [1, nan, 2, nan], upstream gradient [1, 2, 3, 4]: the
# reference versions give a tie and a NaN b to a, a NaN a to b (PyTorch 2.14 splits them)
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_with_nan_operands(name):
    a = gg.tensor([NAN, 1.0, 2.0, NAN], dtype=gg.float64, requires_grad=True)
    b = gg.tensor([1.0, NAN, 2.0, NAN], dtype=gg.float64, requires_grad=True)
    getattr(gg, name)(a, b).backward(gg.tensor([1.0, 2.0, 3.0, 4.0], dtype=gg.float64))
    assert a.grad.tolist() == [0.0, 2.0, 3.0, 4.0] and b.grad.tolist() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_with_nan_operands_as_torch(name):
    torch = pytest.importorskip("torch")
    skip_if_changed_in_2_14(torch, "the fmax/fmin gradient at ties and NaN")
    grads = []
    for lib in (gg, torch):
        a = lib.tensor([NAN, 1.0, 2.0, NAN], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.0, NAN, 2.0, NAN], dtype=lib.float64, requires_grad=True)
        getattr(lib, name)(a, b).backward(lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64))
        grads.append((a.grad.tolist(), b.grad.tolist()))
    assert grads[0] == grads[1]


def _rows(seed: int):
    rng = random.Random(seed)
    for _ in range(300):
        n = rng.randint(1, 60)
        row = [float(rng.randint(0, rng.choice([1, 3, 10]))) for _ in range(n)]
        if rng.random() < 0.15:
            row[rng.randrange(n)] = NAN
        yield row, rng.randint(1, n)


def test_replays_match_torch():
    torch = pytest.importorskip("torch")
    for row, k in _rows(7):
        t = torch.tensor(row, dtype=torch.float64)
        assert _cpu_tie_order.select_index(row, k - 1) == torch.kthvalue(t, k).indices.item(), (row, k)
        assert _cpu_tie_order.mode_index(row) == torch.mode(t).indices.item(), row


def test_kthvalue_mode_and_extremes_as_torch():
    torch = pytest.importorskip("torch")
    for row, k in _rows(11):
        got = []
        for lib in (gg, torch):
            x = lib.tensor([row, row[::-1]], dtype=lib.float64, requires_grad=True)
            kth, mode = lib.kthvalue(x, k, 1), lib.mode(x, 1)
            (kth.values.sum() + 2 * mode.values.sum() + 3 * x.max()).backward()
            got.append((kth.indices.tolist(), mode.indices.tolist(), np.nan_to_num(x.grad.numpy(), nan=-7).tolist()))
        assert got[0] == got[1], row


def test_sort_replay_orders_like_a_sort():
    rng = random.Random(3)
    for _ in range(200):
        row = [float(rng.randint(0, 5)) for _ in range(rng.randint(1, 300))]
        pairs = [[v, i] for i, v in enumerate(row)]
        _cpu_tie_order.std_sort(pairs)
        assert [v for v, _ in pairs] == sorted(row)
        assert sorted(i for _, i in pairs) == list(range(len(row)))
