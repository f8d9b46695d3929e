"""Indexing where a sweep against PyTorch found glassgrad differing (tests/torch_fuzz.py; skipped
without torch): a bool (True/False, or a 0-d bool tensor) is an index tensor on its new axis, so
several of them make one axis and they join other index tensors; a 0-d integer tensor is a select
(it neither joins nor separates the other index tensors: x[t0, :, [0, 2]] keeps the list's axis
last), in reads, writes and gradients; x[mask, 0] = a 0-d tensor converts its dtype (PyTorch's
masked_fill_), a uint8 mask there raises."""
import itertools

import numpy as np
import pytest

from torch_fuzz import same

pytest.importorskip("torch")

X = np.arange(120.0).reshape(4, 5, 6)


def _items(lib):
    return {"True": True, "False": False, "t0": lib.tensor(1), "t0neg": lib.tensor(-2, dtype=lib.int32),
            "bool0": lib.tensor(True), "list": [0, 2, -1], "list2": [[0, 1], [2, 3]], "t64": lib.tensor([1, 0, 1]),
            "slice": slice(1, None), "step": slice(None, None, 2), "int": 1, "None": None, "...": Ellipsis}


def _key(lib, names):
    items = _items(lib)
    return tuple(items[n] for n in names)


KEYS = [k for n in (2, 3) for k in itertools.product(["True", "t0", "bool0", "list", "list2", "t64", "slice", "step",
                                                        "None", "...", "False", "t0neg"], repeat=n)
        if k.count("...") <= 1 and sum(1 for i in k if i not in ("True", "False", "bool0", "None", "...")) <= 3]


@pytest.mark.parametrize("part", range(6))
def test_getitem_with_bools_and_zero_dim_tensors_as_torch(part):
    for names in KEYS[part::6]:
        same(lambda lib, x: x[_key(lib, names)], X, where=f"x[{names}]")


def _write(lib, x, names, value):
    key = _key(lib, names)
    x[key] = value(lib, x[key].shape)
    return x


@pytest.mark.parametrize("part", range(6))
def test_setitem_with_bools_and_zero_dim_tensors_as_torch(part):
    values = {"numbered": lambda lib, shape: lib.arange(1000.0, 1000.0 + int(np.prod(shape))).reshape(shape),
              "0-d float64": lambda lib, shape: lib.tensor(2.5, dtype=lib.float64)}
    for names in KEYS[part::6]:
        for what, value in values.items():
            same(lambda lib, x: _write(lib, x, names, value), X.astype(np.float32), where=f"x[{names}] = {what}")


@pytest.mark.parametrize("part", range(3))
def test_getitem_gradients_as_torch(part):
    for names in KEYS[part::12]:
        def grad(lib, x):
            x = x.requires_grad_()
            y = x[_key(lib, names)]
            (y * lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape)).sum().backward()
            return y.detach(), x.grad
        same(grad, X, where=f"grad x[{names}]")


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
def test_masked_write_of_one_value_as_torch(dtype):
    rng = np.random.default_rng(2)
    x = (rng.integers(0, 3, (4, 5, 6))).astype(dtype)
    mask = rng.random(5) > 0.5
    for key in [lambda lib: (slice(None), lib.tensor(mask)), lambda lib: (lib.tensor(1), lib.tensor(mask), None),
                lambda lib: (lib.tensor(mask.astype(np.uint8)).bool(), 2)]:
        for value in [lambda lib: lib.tensor(2.5, dtype=lib.float64), lambda lib: 3, lambda lib: lib.tensor([7])]:
            same(lambda lib, x: (x.__setitem__(key(lib), value(lib)), x)[1], x, where=f"{dtype} masked write")
    for value in [lambda lib: 1, lambda lib: lib.tensor(2.0)]:  # a uint8 mask: masked_fill_'s error in PyTorch
        same(lambda lib, x: (x.__setitem__(lib.tensor([1, 0, 1, 0], dtype=lib.uint8), value(lib)), x)[1], x,
             where="uint8 mask")


def test_index_put_reads_zero_dim_tensors_as_index_tensors_as_torch():
    for names in [("t0", "slice", "list"), ("list", "t0"), ("t0", "t64")]:
        def put(lib, x):
            key = tuple(lib.arange(3) if isinstance(k, slice) else lib.tensor(k) if isinstance(k, list) else k
                        for k in _key(lib, names))
            return x.index_put(key, lib.tensor(-1.0))
        same(put, X, where=f"index_put({names})")
