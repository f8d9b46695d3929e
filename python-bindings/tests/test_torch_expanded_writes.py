"""In-place writes into expanded tensors (`y = torch.ones(5).expand(3, 5)`), as PyTorch 2.14 answers
them: a write whose target holds one memory element several times raises RuntimeError "unsupported
operation: more than one element of the written-to tensor refers to a single memory location",
unless every element written is one value (fill_, zero_, y[...] = 2); a write into a part that
holds each element once (y[0, 1] = 2, y[0].add_(1)) runs, and every copy sees it, the base too.
Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_B = np.arange(1.0, 6.0)

# (name, base shape, expanded shape, write(lib, y))
_CASES = [
    ("y[0, 1] = 2", (5,), (3, 5), lambda L, y: y.__setitem__((0, 1), 2.0)),
    ("y[0:1] = 2", (5,), (3, 5), lambda L, y: y.__setitem__(slice(0, 1), 2.0)),
    ("y[1] = row", (5,), (3, 5), lambda L, y: y.__setitem__(1, L.tensor([9.0, 8.0, 7.0, 6.0, 5.0]))),
    ("y[2, 1:4] += 1", (5,), (3, 5), lambda L, y: y[2, 1:4].__iadd__(1)),
    ("y[0].add_(1)", (5,), (3, 5), lambda L, y: y[0].add_(1)),
    ("y[:, 0].mul_(3) from [3, 1]", (3, 1), (3, 4), lambda L, y: y[:, 0].mul_(3)),
    ("y[1] = 3 from [1, 5]", (1, 5), (3, 5), lambda L, y: y.__setitem__(1, 3.0)),
    ("y.t()[1].sub_(2)", (5,), (3, 5), lambda L, y: y.t()[1].sub_(2)),
    ("y[0, :, 1] = 4 over two axes", (1, 1, 3), (2, 4, 3), lambda L, y: y.__setitem__((0, slice(None), 1), 4.0)),
    ("y[1][2].fill_(7) of [2, 1, 3]", (2, 1, 3), (2, 4, 3), lambda L, y: y[1][2].fill_(7)),
    ("y.fill_(3)", (5,), (3, 5), lambda L, y: y.fill_(3)),
    ("y.zero_()", (5,), (3, 5), lambda L, y: y.zero_()),
    ("y[:] = 2 (a copy_, checked)", (5,), (3, 5), lambda L, y: y.__setitem__(slice(None), 2.0)),
    ("y[0:2, 1] = 5", (5,), (3, 5), lambda L, y: y.__setitem__((slice(0, 2), 1), 5.0)),
    ("expand to its own shape, add_", (3, 5), (3, 5), lambda L, y: y.add_(1)),
    ("add_", (5,), (3, 5), lambda L, y: y.add_(1)),
    ("mul_", (5,), (3, 5), lambda L, y: y.mul_(2)),
    ("+=", (5,), (3, 5), lambda L, y: y.__iadd__(1)),
    ("copy_", (5,), (3, 5), lambda L, y: y.copy_(L.zeros(3, 5))),
    ("clamp_", (5,), (3, 5), lambda L, y: y.clamp_(0, 2)),
    ("relu_", (5,), (3, 5), lambda L, y: y.relu_()),
    ("sigmoid_", (5,), (3, 5), lambda L, y: y.sigmoid_()),
    ("uniform_", (5,), (3, 5), lambda L, y: y.uniform_()),
    ("F.relu inplace", (5,), (3, 5), lambda L, y: L.nn.functional.relu(y, inplace=True)),
    ("y.t().add_(1)", (5,), (3, 5), lambda L, y: y.t().add_(1)),
    ("y.detach().add_(1)", (5,), (3, 5), lambda L, y: y.detach().add_(1)),
    ("y.data.add_(1)", (5,), (3, 5), lambda L, y: y.data.add_(1)),
    ("y[0:2, 1] = tensor", (5,), (3, 5), lambda L, y: y.__setitem__((slice(0, 2), 1), L.tensor([1.0, 2.0]))),
    ("scatter_", (5,), (3, 5), lambda L, y: y.scatter_(1, L.tensor([[0], [1], [2]]), 5.0)),
]


def _run(L, base_shape, shape, write):
    """(y's and the base's elements after the write) or the exception's message."""
    base = L.tensor(np.resize(_B, base_shape).astype(np.float32))
    y = base.expand(*shape)
    try:
        write(L, y)
    except RuntimeError as e:
        return str(e)
    return np.array(y.tolist()), np.array(base.tolist())


@pytest.mark.parametrize("name,base,shape,write", _CASES, ids=[c[0] for c in _CASES])
def test_write_into_an_expanded_tensor_as_torch(name, base, shape, write):
    want = _run(torch, base, shape, write)
    got = _run(gg, base, shape, write)
    if isinstance(want, str):
        assert isinstance(got, str), f"torch raised {want!r}, glassgrad wrote {got}"
        assert want.split(".")[0] in got
        assert "clone()" in got
        return
    assert not isinstance(got, str), got
    if name == "uniform_":  # only whether it raises is compared
        return
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_gradient_through_a_write_into_an_expanded_tensor():
    """x's storage seen through x.expand: the written element takes w's gradient, the others x's."""
    res = []
    for L in (gg, torch):
        a = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        w = L.tensor(4.0, dtype=L.float64, requires_grad=True)
        x = a * 1.0
        y = x.expand(2, 3)
        y[1, 2] = w * 2
        (x * L.tensor([1.0, 10.0, 100.0], dtype=L.float64)).sum().backward()
        res.append((x.detach().numpy(), a.grad.detach().numpy(), w.grad.detach().numpy()))
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs)


def test_integer_expanded_tensor_written_in_a_part():
    for L in (gg, torch):
        base = L.tensor([1, 2, 3], dtype=L.int32)
        y = base.expand(2, 3)
        y[0, 1] = 7
        assert base.tolist() == [1, 7, 3]
        assert y.tolist() == [[1, 7, 3], [1, 7, 3]]


_M = [[True, False, False, False, True], [False, False, True, False, True], [True, False, False, False, False]]

# Writes PyTorch 2.14 runs into an expanded target with a deprecation warning: (name, base shape,
# expanded shape, write(lib, y)). Where copies of one element get different values, the last
# written copy in row-major order wins, as PyTorch's CPU kernels order them here.
_WARNED = [
    ("masked_fill_", (5,), (3, 5), lambda L, y: y.masked_fill_(L.tensor(_M), 0.5)),
    ("masked_fill_ 1-d mask", (5,), (3, 5), lambda L, y: y.masked_fill_(L.tensor([False, True, False, False, True]), -2.0)),
    ("masked_fill_ 0-d tensor value", (5,), (3, 5), lambda L, y: y.masked_fill_(L.tensor(_M), L.tensor(9.0))),
    ("masked_fill_ from [2, 1, 3]", (2, 1, 3), (2, 4, 3),
     lambda L, y: y.masked_fill_(L.tensor(np.arange(24).reshape(2, 4, 3) % 5 == 0), 0.0)),
    ("index_fill_ along a stretched axis", (5,), (3, 5), lambda L, y: y.index_fill_(0, L.tensor([2]), 7.0)),
    ("index_fill_ along a real axis", (5,), (3, 5), lambda L, y: y.index_fill_(1, L.tensor([0, 3]), 7.0)),
    ("index_put_", (5,), (3, 5), lambda L, y: y.index_put_((L.tensor([0, 2]), L.tensor([1, 3])), L.tensor(4.0))),
    ("index_put_ values", (5,), (3, 5),
     lambda L, y: y.index_put_((L.tensor([0, 2]), L.tensor([1, 3])), L.tensor([4.0, -1.0]))),
    ("index_put_ accumulate into two copies", (5,), (3, 5),
     lambda L, y: y.index_put_((L.tensor([2, 0, 1]), L.tensor([1, 1, 4])), L.tensor([5.0, 7.0, 0.5]), accumulate=True)),
    ("y[mask] = 2", (5,), (3, 5), lambda L, y: y.__setitem__(L.tensor(_M), 2.0)),
    ("y[row mask] = 0-d tensor", (5,), (3, 5), lambda L, y: y.__setitem__(L.tensor([True, False, True]), L.tensor(3.0))),
    ("y[mask] = values (last copy wins)", (5,), (3, 5),
     lambda L, y: y.__setitem__(L.tensor(_M), L.tensor([9.0, 8.0, 7.0, 6.0, 5.0]))),
    ("y[rows, cols] = 2", (5,), (3, 5), lambda L, y: y.__setitem__((L.tensor([0, 1]), L.tensor([1, 1])), 2.0)),
    ("y[rows] = 2", (5,), (3, 5), lambda L, y: y.__setitem__(L.tensor([0, 1]), 2.0)),
    ("y[:, cols] = 6 from [3, 1]", (3, 1), (3, 4), lambda L, y: y.__setitem__((slice(None), L.tensor([2])), 6.0)),
]


def _run_warned(L, base_shape, shape, write):
    import warnings
    base = L.tensor(np.resize(_B, base_shape).astype(np.float32))
    y = base.expand(*shape)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write(L, y)
    # torch's message ends with " (Triggered internally at <its source>)"
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught if w.category is UserWarning]
    return np.array(y.tolist()), np.array(base.tolist()), messages


@pytest.mark.parametrize("name,base,shape,write", _WARNED, ids=[c[0] for c in _WARNED])
def test_masked_and_indexed_writes_into_an_expanded_tensor_warn_and_write_as_torch(name, base, shape, write):
    want = _run_warned(torch, base, shape, write)
    got = _run_warned(gg, base, shape, write)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2] == want[2]
    assert want[2], "torch warned nothing: the case no longer tests a deprecated write"


def test_masked_fill_of_an_expanded_tensor_that_requires_grad_raises():
    """torch runs the write and raises the overlapping-write RuntimeError in backward(); glassgrad
    raises the same message at the write, before any gradient could be wrong."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = torch.ones(5, requires_grad=True)
        y = (x * 2).expand(3, 5)
        y.masked_fill_(torch.tensor(_M), 3.0)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor") as theirs:
            y.sum().backward()
    x = gg.ones(5, requires_grad=True)
    y = (x * 2).expand(3, 5)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor") as ours:
        y.masked_fill_(gg.tensor(_M), 3.0)
    assert str(theirs.value).split(".")[0] in str(ours.value)


def test_other_writes_into_an_expanded_tensor_still_raise_as_torch():
    """masked_scatter_, index_copy_, index_add_ and put_ raise in torch 2.14 (no deprecation path)."""
    for write in (lambda L, y: y.masked_scatter_(L.tensor(_M), L.arange(6.0)),
                  lambda L, y: y.index_copy_(1, L.tensor([0]), L.zeros(3, 1)),
                  lambda L, y: y.index_add_(1, L.tensor([0]), L.zeros(3, 1)),
                  lambda L, y: y.put_(L.tensor([0]), L.tensor([9.0]))):
        for L in (torch, gg):
            with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
                write(L, L.ones(5).expand(3, 5))
