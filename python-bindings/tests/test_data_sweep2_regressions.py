"""Differences from torch.utils.data that a sweep against PyTorch 2.14 found, each with the
behaviour PyTorch documents or shows (torch-free: the expected outcomes are written down)."""
import collections.abc

import pytest

import glassgrad as gg
from glassgrad.utils import data as D


def test_prefetch_factor_zero_with_workers_is_refused_at_iteration():
    # PyTorch's multiprocessing iterator asserts prefetch_factor > 0; the loader itself is made.
    loader = D.DataLoader(D.TensorDataset(gg.arange(4)), num_workers=1, prefetch_factor=0)
    with pytest.raises(AssertionError, match="prefetch_factor must be greater than 0"):
        iter(loader)


def test_iterable_dataset_is_an_abstract_iterable():
    assert issubclass(D.IterableDataset, collections.abc.Iterable)
    with pytest.raises(TypeError, match="abstract"):
        D.IterableDataset()

    class NoIter(D.IterableDataset):
        pass

    with pytest.raises(TypeError, match="abstract"):
        NoIter()

    class Three(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    assert list(Three()) == [0, 1, 2]
    assert isinstance(Three() + Three(), D.ChainDataset)


def test_tensor_dataset_of_a_0d_tensor_is_an_index_error():
    with pytest.raises(IndexError, match="first \\(sample\\) axis"):
        D.TensorDataset(gg.tensor(1.0))


def test_tensor_dataset_of_no_tensors_has_no_length():
    ds = D.TensorDataset()
    with pytest.raises(IndexError):
        len(ds)


def test_loaders_say_their_data_set_kind_as_pytorch():
    # torch.utils.data._DatasetKind: libraries on the loader test _dataset_kind == _DatasetKind.Iterable.
    class Three(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    assert (D._DatasetKind.Map, D._DatasetKind.Iterable) == (0, 1)
    assert D.DataLoader(D.TensorDataset(gg.arange(4)))._dataset_kind == D._DatasetKind.Map
    assert D.DataLoader(Three())._dataset_kind == D._DatasetKind.Iterable
    fetcher = D._DatasetKind.create_fetcher(D._DatasetKind.Map, D.TensorDataset(gg.arange(4)), True,
                                            D.default_collate, False)
    assert [t.tolist() for t in fetcher.fetch([0, 2])] == [[0, 2]]


def test_weighted_sampler_without_replacement_past_its_non_zero_weights():
    # PyTorch's multinomial draws every index of non-zero weight, then the zero-weight ones.
    draws = list(D.WeightedRandomSampler([0, 1, 0, 1, 0, 0], 6, replacement=False))
    assert sorted(draws[:2]) == [1, 3] and sorted(draws) == [0, 1, 2, 3, 4, 5]
    sampler = D.WeightedRandomSampler([0, 1], 3, replacement=False)  # made; refused when drawn, as PyTorch
    with pytest.raises(RuntimeError, match="n_sample > prob_dist.size"):
        list(sampler)


def test_weighted_sampler_checks_its_weights_when_drawing():
    for bad in ([1.0, -2.0], [0.0, 0.0], [1.0, float("nan")], []):
        sampler = D.WeightedRandomSampler(bad, 2)  # PyTorch's constructor takes them
        with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
            list(sampler)
