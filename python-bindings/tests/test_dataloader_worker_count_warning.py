"""DataLoader's warning that num_workers exceeds the CPUs, as PyTorch gives it: at construction and
each time worker processes start (each epoch; once with persistent workers), attributed to the
loader's own two lines, so that Python's default filter shows it once for all constructions and
once for all iterators, however many loaders a script makes."""
import os
import warnings

import pytest

import glassgrad as gg
from glassgrad.utils.data import DataLoader, TensorDataset

DATA = TensorDataset(gg.arange(8.0).reshape(4, 2))


@pytest.fixture
def one_cpu(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)


def _worker_warnings(record):
    return [w for w in record if "worker processes in total" in str(w.message)]


def _run(**kw):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        loader = DataLoader(DATA, batch_size=2, num_workers=2, **kw)
        made = len(_worker_warnings(record))
        for _ in range(2):
            for _batch in loader:
                pass
    return made, len(_worker_warnings(record)) - made


def test_warned_at_construction_and_each_epoch(one_cpu):
    assert _run() == (1, 2)


def test_persistent_workers_warn_once_more(one_cpu):
    assert _run(persistent_workers=True) == (1, 1)


def test_the_default_filter_shows_one_per_kind(one_cpu):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("default")
        train = DataLoader(DATA, batch_size=2, num_workers=2, shuffle=True)
        test = DataLoader(DATA, batch_size=2, num_workers=2)
        for loader in (train, test, train):
            for _batch in loader:
                pass
    seen = _worker_warnings(record)
    assert len(seen) == 2 and len({w.lineno for w in seen}) == 2
    assert all(w.filename.endswith(os.path.join("utils", "data", "dataloader.py")) for w in seen)


def test_no_warning_within_the_cpus(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert _run() == (0, 0)
