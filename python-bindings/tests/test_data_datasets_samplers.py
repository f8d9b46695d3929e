"""glassgrad.utils.data's data sets, samplers, random_split and default_collate, against
torch.utils.data's documented behaviour (and torch itself where the result is deterministic)."""
import collections
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils import data as D

from data_fixtures import Count


def _np(x):
    return x.numpy() if isinstance(x, gg.Tensor) else np.asarray(x)


# ---- data sets ---------------------------------------------------------------------------------
def test_tensor_dataset_items_lengths_and_mismatch():
    x = gg.tensor(np.arange(12, dtype=np.float32).reshape(6, 2), device="cpu")
    y = np.arange(6)
    ds = D.TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert _np(a).tolist() == [8.0, 9.0] and int(b) == 4
    with pytest.raises(gg.ShapeError, match=r"Size mismatch between tensors.*\[6, 5\]") as e:
        D.TensorDataset(x, np.arange(5))
    assert isinstance(e.value, AssertionError)  # PyTorch asserts


def test_concat_dataset_indexing_matches_torch(torch):
    parts = [list(range(3)), list(range(10, 15)), list(range(20, 22))]
    ours = D.ConcatDataset(parts)
    theirs = torch.utils.data.ConcatDataset(parts)
    assert len(ours) == len(theirs) == 10 and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-10, 10)] == [theirs[i] for i in range(-10, 10)]
    with pytest.raises(ValueError, match="absolute value of index"):
        ours[-11]
    assert isinstance(D.TensorDataset(np.zeros(2)) + D.TensorDataset(np.ones(3)), D.ConcatDataset)
    with pytest.raises(AssertionError):
        D.ConcatDataset([])


def test_subset_and_getitems():
    base = D.TensorDataset(np.arange(10) * 10)
    sub = D.Subset(base, [7, 2, 5])
    assert len(sub) == 3 and int(sub[0][0]) == 70
    assert [int(s[0]) for s in sub.__getitems__([2, 0])] == [50, 70]


def test_stack_dataset_tuple_and_dict():
    a, b = D.TensorDataset(np.arange(4)), [10, 11, 12, 13]
    assert D.StackDataset(a, b)[2] == (a[2], 12)
    assert D.StackDataset(x=a, y=b).__getitems__([1, 3])[1]["y"] == 13
    with pytest.raises(ValueError, match="Size mismatch"):
        D.StackDataset(a, [1])


def test_iterable_and_chain_dataset():
    chain = Count(2) + Count(3)
    assert isinstance(chain, D.ChainDataset) and list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5


def test_dataset_base_requires_getitem():
    with pytest.raises(NotImplementedError):
        D.Dataset()[0]


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [1, 1, 8]])
def test_random_split_sizes_disjoint_and_repeatable(lengths):
    ds = list(range(10))
    gg.manual_seed(3)
    first = D.random_split(ds, lengths)
    gg.manual_seed(3)
    again = D.random_split(ds, lengths)
    assert [list(s) for s in first] == [list(s) for s in again]
    assert sorted(i for s in first for i in s) == ds
    assert [len(s) for s in D.random_split(ds, lengths, generator=np.random.default_rng(0))] == \
        [len(s) for s in first]


def test_random_split_fraction_lengths_match_torch(torch):
    ds = list(range(11))
    for fractions in ([0.5, 0.5], [0.1, 0.2, 0.7], [1 / 3] * 3):
        ours = [len(s) for s in D.random_split(ds, fractions)]
        theirs = [len(s) for s in torch.utils.data.random_split(ds, fractions)]
        assert ours == theirs


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths"):
        D.random_split(list(range(5)), [2, 2])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        D.random_split(list(range(3)), [0.1, 0.1, 0.8])
    assert any("Length of split at index 1 is 0" in str(x.message) for x in w)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        D.random_split(list(range(4)), [2, 2], generator=42)


# ---- samplers ----------------------------------------------------------------------------------
def test_sequential_and_batch_samplers_match_torch(torch):
    for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (1, 4, False)]:
        ours = D.BatchSampler(D.SequentialSampler(range(n)), bs, drop)
        theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(n)), bs, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("size", [1, 7, 32, 50, 64])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("sampler", ["sequential", "random", "random 130", "random with replacement 77",
                                     "subclass"])
def test_batch_sampler_batches_are_its_samplers_indices_grouped(sampler, size, drop_last):
    """BatchSampler cuts a RandomSampler's or SequentialSampler's batches out of whole draws: the
    same lists, in the same order and from the same draws, as grouping the sampler's own
    iteration (and a subclass that changes __iter__ is iterated as it says)."""
    class Reversed(D.SequentialSampler):
        def __iter__(self):
            return iter(range(len(self.data_source) - 1, -1, -1))

    def make():
        data = range(50)
        if sampler == "sequential":
            return D.SequentialSampler(data)
        if sampler == "subclass":
            return Reversed(data)
        words = sampler.split()
        return D.RandomSampler(data, replacement="replacement" in words,
                               num_samples=int(words[-1]) if words[-1].isdigit() else None)

    gg.manual_seed(5)
    got = list(D.BatchSampler(make(), size, drop_last))
    gg.manual_seed(5)
    flat = list(make())
    want = [flat[i:i + size] for i in range(0, len(flat), size)]
    if drop_last and want and len(want[-1]) < size:
        want.pop()
    assert got == want and all(type(b) is list and all(type(i) is int for i in b) for b in got)
    assert len(got) == len(D.BatchSampler(make(), size, drop_last))


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_batch_sampler_refuses_bad_sizes(bad):
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        D.BatchSampler(range(3), bad, False)


def test_random_sampler_with_replacement_draws_lazily_as_pytorch_does():
    # minGPT's iteration-bounded loader: RandomSampler(ds, replacement=True, num_samples=int(1e10))
    sampler = D.RandomSampler(range(7), replacement=True, num_samples=int(1e10), generator=np.random.default_rng(2))
    it = iter(sampler)
    first = [next(it) for _ in range(100)]
    assert len(sampler) == int(1e10) and all(0 <= i < 7 for i in first) and len(set(first)) == 7
    loader = D.DataLoader(range(7), batch_size=4, sampler=sampler)
    assert [len(b) for b, _ in zip(loader, range(3))] == [4, 4, 4]
    assert len(list(D.RandomSampler(range(5), replacement=True, num_samples=70))) == 70


def test_random_sampler_permutations_and_replacement():
    gg.manual_seed(0)
    s = D.RandomSampler(range(10))
    a, b = list(s), list(s)
    assert sorted(a) == sorted(b) == list(range(10)) and a != b  # a new order each pass
    more = list(D.RandomSampler(range(4), num_samples=10, generator=np.random.default_rng(1)))
    assert len(more) == 10 and sorted(more[:4]) == [0, 1, 2, 3] and sorted(more[4:8]) == [0, 1, 2, 3]
    rep = list(D.RandomSampler(range(3), replacement=True, num_samples=50, generator=np.random.default_rng(1)))
    assert len(rep) == 50 and set(rep) <= {0, 1, 2}
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        D.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        D.RandomSampler(range(3), replacement=1)


def test_random_sampler_follows_manual_seed():
    gg.manual_seed(5)
    first = list(D.RandomSampler(range(20)))
    gg.manual_seed(5)
    assert list(D.RandomSampler(range(20))) == first


def test_subset_random_and_weighted_samplers():
    s = D.SubsetRandomSampler([3, 6, 9], generator=np.random.default_rng(0))
    assert sorted(s) == [3, 6, 9] and len(s) == 3
    w = D.WeightedRandomSampler([0.0, 0.0, 1.0, 0.0], 20, generator=np.random.default_rng(0))
    assert list(w) == [2] * 20 and len(w) == 20
    nr = list(D.WeightedRandomSampler([1, 2, 3, 4], 4, replacement=False, generator=np.random.default_rng(0)))
    assert sorted(nr) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="1d sequence"):
        D.WeightedRandomSampler([[1.0]], 1)
    # More samples than non-zero weights without replacement: the zero-weight indices come last,
    # as from PyTorch's multinomial; more than there are weights is refused when drawing.
    assert list(D.WeightedRandomSampler([1, 0], 2, replacement=False)) == [0, 1]
    with pytest.raises(ValueError, match="without replacement"):
        list(D.WeightedRandomSampler([1, 0], 3, replacement=False))



def test_weighted_sampler_keeps_float64_tensor_weights_and_raises_runtime_errors():
    """PyTorch keeps weights as torch.as_tensor(weights, dtype=torch.double) and its multinomial
    draw raises RuntimeError for negative, non-finite or all-zero weights."""
    w = D.WeightedRandomSampler([1, 3], 4, generator=np.random.default_rng(0))
    assert isinstance(w.weights, gg.Tensor) and w.weights.dtype == gg.float64 and w.weights.tolist() == [1.0, 3.0]
    from_tensor = D.WeightedRandomSampler(gg.tensor([0.0, 2.0], device="cpu"), 3)
    assert from_tensor.weights.dtype == gg.float64 and list(from_tensor) == [1, 1, 1]
    for bad in ([1.0, -2.0], [0.0, 0.0], [1.0, float("nan")]):
        with pytest.raises(RuntimeError, match="non-negative"):
            list(D.WeightedRandomSampler(bad, 2))
        with pytest.raises(ValueError):
            iter(D.WeightedRandomSampler(bad, 2)).__next__()  # made unchecked, refused when drawing (PyTorch)
    with pytest.raises(RuntimeError, match="without replacement"):
        list(D.WeightedRandomSampler([1, 0], 3, replacement=False))


def test_weighted_sampler_weights_match_torch(torch):
    ours = D.WeightedRandomSampler([0.1, 0.9, 0.0], 5)
    theirs = torch.utils.data.WeightedRandomSampler([0.1, 0.9, 0.0], 5)
    assert str(ours.weights.dtype).split(".")[-1] == str(theirs.weights.dtype).split(".")[-1] == "float64"
    assert ours.weights.tolist() == theirs.weights.tolist()
    assert 2 not in list(ours) and 2 not in list(theirs)


def test_distributed_sampler_without_process_group_raises_value_error():
    """PyTorch asks the default process group for num_replicas and rank, and raises ValueError when
    there is none; glassgrad's error is a RuntimeError too and names the fix."""
    import glassgrad.distributed
    assert not glassgrad.distributed.is_initialized()
    with pytest.raises(ValueError, match="num_replicas= and rank="):
        D.DistributedSampler(range(4))
    with pytest.raises(RuntimeError, match="no process group"):
        D.DistributedSampler(range(4), num_replicas=2)
    assert list(D.DistributedSampler(range(4), num_replicas=2, rank=1, shuffle=False)) == [1, 3]

def test_distributed_sampler_shards_like_torch(torch):
    data = list(range(11))
    for shuffle in (False, True):
        for drop in (False, True):
            shards = [list(D.DistributedSampler(data, num_replicas=3, rank=r, shuffle=shuffle, drop_last=drop))
                      for r in range(3)]
            theirs = [torch.utils.data.distributed.DistributedSampler(data, num_replicas=3, rank=r, shuffle=False,
                                                                         drop_last=drop) for r in range(3)]
            assert [len(s) for s in shards] == [len(t) for t in theirs]
            if not shuffle:
                assert shards == [list(t) for t in theirs]
    s = D.DistributedSampler(data, num_replicas=2, rank=1, seed=4)
    before = list(s)
    s.set_epoch(1)
    assert list(s) != before
    s0 = D.DistributedSampler(data, 2, 0, seed=4)
    s0.set_epoch(1)
    assert sorted(set(list(s) + list(s0))) == data  # the two shards cover everything
    with pytest.raises(ValueError, match="Invalid rank 3"):
        D.DistributedSampler(data, num_replicas=3, rank=3)
    import glassgrad.distributed
    assert glassgrad.distributed.DistributedSampler is D.DistributedSampler


# ---- default_collate ----------------------------------------------------------------------------
Point = collections.namedtuple("Point", "x y")


def test_default_collate_nesting_rules_match_torch(torch):
    batch = [{"img": np.full((2, 3), i, np.float32), "label": i, "w": 0.5 * i, "name": f"s{i}",
              "pair": (i, np.float32(i)), "pt": Point(i, [i, i + 1]), "flag": bool(i % 2)} for i in range(4)]
    ours = D.default_collate(batch)
    theirs = torch.utils.data.default_collate(batch)
    assert set(ours) == set(theirs)
    for key in ("img", "label", "w", "flag"):
        assert isinstance(ours[key], gg.Tensor)
        np.testing.assert_array_equal(ours[key].numpy(), theirs[key].numpy())
        assert ours[key].dtype == str(theirs[key].dtype).replace("torch.", "")
    assert ours["name"] == theirs["name"]
    assert isinstance(ours["pair"], list) and len(ours["pair"]) == 2
    assert ours["pair"][1].dtype == "float32"
    assert isinstance(ours["pt"], Point) and ours["pt"].x.numpy().tolist() == [0, 1, 2, 3]
    assert [t.numpy().tolist() for t in ours["pt"].y] == [t.tolist() for t in theirs["pt"].y]


def test_default_collate_stacks_tensors_and_refuses_strings_arrays():
    ts = [gg.tensor(np.full(3, i, np.float32), device="cpu") for i in range(2)]
    out = D.default_collate(ts)
    assert out.shape == (2, 3) and out.numpy()[1].tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        D.default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        D.default_collate([object(), object()])



def test_default_collate_stacks_as_torch_stack_and_numbers_as_torch_tensor():
    """default_collate stacks tensors with torch.stack (dtypes promote, a stack of tensors that
    require grad is in their graph) and makes ints with torch.tensor (a float among them: the
    default float dtype)."""
    mixed = D.default_collate([gg.tensor([1, 2], device="cpu"), gg.tensor([1.5, 2.5], device="cpu")])
    assert mixed.dtype == gg.float32 and mixed.tolist() == [[1.0, 2.0], [1.5, 2.5]]
    half = D.default_collate([gg.tensor([1], dtype=gg.uint8), gg.tensor([2], dtype=gg.int32)])
    assert half.dtype == gg.int32 and half.tolist() == [[1], [2]]
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    out = D.default_collate([a, a * 3])
    assert out.requires_grad and out.grad_fn is not None
    out.sum().backward()
    assert a.grad.tolist() == [4.0, 4.0]
    plain = D.default_collate([gg.ones(2), gg.zeros(2)])
    assert not plain.requires_grad and plain.dtype == gg.float32
    with pytest.raises(gg.ShapeError, match=r"\[2\] at entry 0 and \[3\] at entry 1"):
        D.default_collate([gg.tensor([1, 2]), gg.tensor([1.0, 2.0, 3.0])])
    ints = D.default_collate([1, 2.5])
    assert ints.dtype == gg.float32 and ints.tolist() == [1.0, 2.5]
    assert D.default_collate([1, True]).dtype == gg.int64
    assert D.default_collate([True, False]).dtype == gg.bool
    assert D.default_collate([1.5, 2]).dtype == gg.float64  # the first sample's type decides: float
    gg.set_default_dtype(gg.float64)
    try:
        assert D.default_collate([1, 2.5]).dtype == gg.float64
    finally:
        gg.set_default_dtype(gg.float32)


def test_default_collate_promotion_and_grad_match_torch(torch):
    ours = D.default_collate([gg.tensor([1, 2]), gg.tensor([1.5, 2.5], dtype=gg.float64)])
    theirs = torch.utils.data.default_collate([torch.tensor([1, 2]), torch.tensor([1.5, 2.5], dtype=torch.float64)])
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] and ours.tolist() == theirs.tolist()
    for batch in ([1, 2.5], [3, True], [False, True], [2.5, 1]):
        o, t = D.default_collate(batch), torch.utils.data.default_collate(batch)
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and o.tolist() == t.tolist(), batch
    ta = torch.ones(2, requires_grad=True)
    assert torch.utils.data.default_collate([ta, ta * 2]).requires_grad
    ga = gg.ones(2, requires_grad=True)
    assert D.default_collate([ga, ga * 2]).requires_grad

def test_default_collate_mismatched_shapes_name_the_entries():
    with pytest.raises(gg.ShapeError, match=r"\[3\] at entry 0 and \[4\] at entry 2"):
        D.default_collate([np.zeros(3), np.zeros(3), np.zeros(4)])
    with pytest.raises(gg.ShapeError, match="each element in list of batch should be of equal size"):
        D.default_collate([[1, 2], [1]])


def test_default_convert_matches_torch(torch):
    data = {"a": np.arange(3), "b": (np.float32(2.0), "s"), "c": [np.zeros(2)]}
    ours, theirs = D.default_convert(data), torch.utils.data.default_convert(data)
    assert isinstance(ours["a"], gg.Tensor) and ours["a"].numpy().tolist() == theirs["a"].tolist()
    assert isinstance(ours["b"], list) and ours["b"][1] == "s"
    assert isinstance(ours["c"][0], gg.Tensor)
    strings = np.array(["x"])
    assert D.default_convert(strings) is strings


def test_glassgrad_generator_seeds_splits_samplers_and_loaders_like_torch_generator():
    g = gg.Generator().manual_seed(42)
    assert isinstance(g, gg.Generator) and g.initial_seed() == 42 and g.device == "cpu"
    a = [list(s) for s in D.random_split(list(range(10)), [0.3, 0.7], generator=gg.Generator().manual_seed(42))]
    b = [list(s) for s in D.random_split(list(range(10)), [0.3, 0.7], generator=gg.Generator().manual_seed(42))]
    assert a == b and sorted(a[0] + a[1]) == list(range(10))
    state = g.get_state()
    first = list(D.RandomSampler(range(8), generator=g))
    g.set_state(state)
    assert list(D.RandomSampler(range(8), generator=g)) == first
    assert gg.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
    loader = D.DataLoader(list(range(6)), batch_size=2, shuffle=True, generator=gg.Generator().manual_seed(0))
    assert sorted(v for batch in loader for v in batch.numpy().tolist()) == list(range(6))
