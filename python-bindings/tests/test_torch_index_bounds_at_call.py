"""Out-of-range indices of the gather/scatter family raise at the call, as PyTorch's CPU kernels,
with PyTorch's class (RuntimeError for gather, scatter, scatter_add, scatter_reduce, index_add and
index_select; IndexError for take, embedding, index_fill and index_copy) and its message's
"index 4 is out of bounds for dimension 1 with size 4". The rule: an index whose values are known
without computing anything (a list, an array, a computed CPU tensor) is checked at the call; one
still pending, or on a GPU, is checked by the kernel when it runs (no added synchronization).
Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_X = np.random.default_rng(3).standard_normal((3, 5))

# name: f(lib, x, F), x a (3, 5) float64 tensor
_CALLS = {
    "gather past the end": lambda L, x, F: L.gather(x, 1, L.tensor([[0, 5]])),
    "gather negative": lambda L, x, F: L.gather(x, 1, L.tensor([[0, -1]])),
    "gather along 0": lambda L, x, F: L.gather(x, 0, L.tensor([[3, 0]])),
    "gather in range": lambda L, x, F: L.gather(x, 1, L.tensor([[4, 0], [2, 1]])),
    "scatter of a value": lambda L, x, F: x.scatter(1, L.tensor([[7]]), 1.0),
    "scatter of a tensor": lambda L, x, F: x.scatter(1, L.tensor([[5]]), L.ones(1, 1, dtype=L.float64)),
    "scatter_ in place": lambda L, x, F: x.clone().scatter_(0, L.tensor([[3]]), 1.0),
    "scatter_add": lambda L, x, F: x.scatter_add(0, L.tensor([[3]]), L.ones(1, 1, dtype=L.float64)),
    "scatter_reduce": lambda L, x, F: x.scatter_reduce(1, L.tensor([[5]]), L.ones(1, 1, dtype=L.float64), "sum"),
    "scatter_reduce negative": lambda L, x, F: x.scatter_reduce(1, L.tensor([[-1]]), L.ones(1, 1, dtype=L.float64),
                                                                "amax"),
    "index_add": lambda L, x, F: x.index_add(0, L.tensor([3]), L.ones(1, 5, dtype=L.float64)),
    "index_add negative": lambda L, x, F: x.index_add(0, L.tensor([-1]), L.ones(1, 5, dtype=L.float64)),
    "index_select": lambda L, x, F: L.index_select(x, 1, L.tensor([5])),
    "index_select negative": lambda L, x, F: L.index_select(x, 1, L.tensor([-1])),
    "index_select in range": lambda L, x, F: L.index_select(x, 1, L.tensor([4, 0, 4])),
    "take past the end": lambda L, x, F: L.take(x, L.tensor([15])),
    "take negative in range": lambda L, x, F: L.take(x, L.tensor([-15, 14])),
    "take negative past the start": lambda L, x, F: L.take(x, L.tensor([-16])),
    "embedding": lambda L, x, F: F.embedding(L.tensor([5]), x),
    "embedding negative": lambda L, x, F: F.embedding(L.tensor([[-1, 0]]), x),
    "Embedding module": lambda L, x, F: L.nn.Embedding(4, 2)(L.tensor([1, 4])),
    "index_fill": lambda L, x, F: x.index_fill(1, L.tensor([5]), 0.0),
    "index_fill negative in range": lambda L, x, F: x.index_fill(1, L.tensor([-5]), 0.0),
    "index_fill negative past the start": lambda L, x, F: x.index_fill(1, L.tensor([-6]), 0.0),
    "index_copy": lambda L, x, F: x.index_copy(0, L.tensor([3]), L.ones(1, 5, dtype=L.float64)),
}


def _outcome(call, lib, x, functional):
    try:
        out = call(lib, x, functional)
    except (RuntimeError, IndexError) as e:
        return e
    return out


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_an_out_of_range_index_raises_at_the_call_with_pytorchs_class(name):
    expected = _outcome(_CALLS[name], torch, torch.tensor(_X), torch.nn.functional)
    gg.manual_seed(0)
    got = _outcome(_CALLS[name], gg, gg.tensor(_X), F)   # no realize: the call itself raises
    if not isinstance(expected, Exception):
        assert not isinstance(got, Exception), f"{name}: PyTorch runs, glassgrad raised {got!r}"
        if name != "Embedding module":   # random weights
            np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy())
        return
    assert isinstance(got, Exception), f"{name}: PyTorch raised {expected!r} at the call, glassgrad did not"
    for cls in (RuntimeError, IndexError):
        if isinstance(expected, cls):
            assert isinstance(got, cls), f"{name}: PyTorch raised {type(expected).__name__}, glassgrad {got!r}"
    headline = str(got).splitlines()[0]
    assert str(expected).splitlines()[0] in headline or "INDICES" in str(expected), (name, headline, str(expected))


def test_the_message_names_the_op_the_dim_the_index_and_the_size():
    with pytest.raises(RuntimeError) as e:
        gg.gather(gg.tensor(_X), 1, gg.tensor([[0, 7]]))
    text = str(e.value)
    assert "index 7 is out of bounds for dimension 1 with size 5" in text and "gather" in text and "[3, 5]" in text


def test_a_pending_index_is_checked_when_it_runs_not_at_the_call():
    x = gg.tensor(_X)
    index = gg.tensor([[1, 2]]) * 4   # computed later: [[4, 8]]
    out = gg.gather(x, 1, index)      # no synchronization at the call
    with pytest.raises(IndexError):
        out.numpy()


def test_an_index_list_is_checked_at_the_call():
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 5"):
        gg.index_select(gg.tensor(_X), 1, [0, 5])
