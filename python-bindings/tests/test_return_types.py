"""The named tuples max(x, dim), sort, topk, kthvalue, median, mode, cummax and aminmax return, as
PyTorch's torch.return_types: one type per function, fields by name and by position, printed as
PyTorch prints them, and picklable."""
import pickle

import pytest

import glassgrad as gg

X = [[3.0, 1.0], [2.0, 5.0]]


@pytest.mark.parametrize("name,fn", [
    ("max", lambda x: x.max(1)), ("min", lambda x: gg.min(x, dim=0)), ("sort", lambda x: x.sort()),
    ("topk", lambda x: x.topk(1)), ("kthvalue", lambda x: x.kthvalue(1)), ("median", lambda x: x.median(1)),
    ("mode", lambda x: x.mode()), ("cummax", lambda x: x.cummax(0)), ("nanmedian", lambda x: x.nanmedian(1)),
])
def test_values_and_indices_pairs_are_named_as_torch(name, fn):
    r = fn(gg.tensor(X))
    assert type(r).__name__ == name and len(r) == 2
    values, indices = r
    assert values is r.values and indices is r.indices and r[0] is r.values
    assert repr(r) == f"glassgrad.return_types.{name}(\nvalues={r.values!r},\nindices={r.indices!r})"
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.indices.tolist() == r.indices.tolist()


def test_max_with_dim_prints_as_torch():
    r = gg.tensor([[1, 3], [4, 2]]).max(dim=1)
    assert repr(r) == "glassgrad.return_types.max(\nvalues=tensor([3, 4]),\nindices=tensor([1, 0]))"


def test_aminmax_names_min_and_max():
    r = gg.tensor(X).aminmax()
    assert type(r).__name__ == "aminmax" and r.min.item() == 1.0 and r.max.item() == 5.0
    assert repr(r).startswith("glassgrad.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(5.))")
