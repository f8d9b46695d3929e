"""Creation and shape functions against PyTorch (tests/torch_fuzz.py; skipped without torch): the
dtype a Python int, float or bool list becomes, Python ints past int64 refused (PyTorch's
"Overflow when unpacking long long"), and arange/linspace/logspace/full/eye dtype inference, a
few shape edges, sort/unique/searchsorted/bucketize/histc/bincount on ties and empties."""
import itertools

import numpy as np
import pytest

from torch_fuzz import same

pytest.importorskip("torch")

DATA = [[1, 2.5], [True, 2], [True, False], [1, True, 2.5], [[1, 2], [3, 4]], [], [[]], 3, 2.5, True,
        [np.float32(1.5), 2], [np.int32(3), 4], [[1.0], [2]], [2 ** 63 - 1], [-2 ** 63], [2 ** 40, 1],
        [2 ** 63], [-2 ** 63 - 1], [2 ** 64], 2 ** 63, [1.5, 2 ** 63]]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_of_python_data_as_torch(data):
    same(lambda lib: lib.tensor(data), where=f"tensor({data!r})")
    for dtype in ("float64", "float16"):
        same(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)), where=f"tensor({data!r}, {dtype})")


def test_factories_infer_dtypes_as_torch():
    for a, b, s in itertools.product([0, 1, 2.5, -3], [5, 2.5, 0, -1], [1, 0.5, -1, 2]):
        same(lambda lib: lib.arange(a, b, s), where=f"arange({a}, {b}, {s})")
    for a, b, n in itertools.product([0, 1, -2.5], [5, -1, 2.5], [0, 1, 5]):
        same(lambda lib: lib.linspace(a, b, n), where=f"linspace({a}, {b}, {n})")
        same(lambda lib: lib.logspace(a, b, n, base=2), where=f"logspace({a}, {b}, {n})", tol=1e-5)
    for v, shape in itertools.product([1, 2.5, True, -3], [(2, 3), (), (0,)]):
        same(lambda lib: lib.full(shape, v), where=f"full({shape}, {v})")
    for n, m in itertools.product([0, 1, 3], [0, 2, 4]):
        same(lambda lib: lib.eye(n, m, dtype=lib.int64), where=f"eye({n}, {m})")


def test_order_and_counting_functions_as_torch():
    x = np.array([[3.0, 1, 2, 1, 3], [2, 2, 1, 1, 0], [5, 5, 5, 5, 5]])
    for desc, dim in itertools.product([False, True], [0, -1]):
        same(lambda lib, x: lib.sort(x, dim=dim, descending=desc, stable=True), x, where=f"sort({desc}, {dim})")
    ints = np.array([[1, 3, 1], [2, 2, 0], [1, 3, 1]])
    for inv, cnt, dim in itertools.product([False, True], [False, True], [None, 0, 1]):
        same(lambda lib, x: lib.unique(x, return_inverse=inv, return_counts=cnt, dim=dim), ints,
             where=f"unique({inv}, {cnt}, {dim})")
    seq = np.array([1.0, 2, 3, 3, 5])
    for right, out_int32 in itertools.product([False, True], [False, True]):
        v = np.array([0, 1, 2.5, 9, 3])
        same(lambda lib, s, v: lib.searchsorted(s, v, right=right, out_int32=out_int32), seq, v, where="searchsorted")
        same(lambda lib, s, v: lib.bucketize(v, s, right=right, out_int32=out_int32), seq, v, where="bucketize")
    for bins, lo, hi in itertools.product([1, 4, 7], [0, 1, -1], [0, 3, 5]):
        same(lambda lib, x: lib.histc(x, bins, lo, hi), np.array([0, 1, 2, 2, 3, 5, 4.5, -1]), where=f"histc({bins})")
    for weights, minlength in itertools.product([None, np.array([0.5, 1, 2, 3, 4])], [0, 3, 10]):
        same(lambda lib, x, w: lib.bincount(x, weights=w, minlength=minlength), np.array([0, 1, 1, 4, 2]), weights,
             where=f"bincount({minlength})")


HOST_FUNCTIONS = {
    "nonzero": lambda lib, x: lib.nonzero(x), "nonzero as_tuple": lambda lib, x: lib.nonzero(x, as_tuple=True),
    "argwhere": lambda lib, x: lib.argwhere(x),
    "unique": lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
    "unique dim": lambda lib, x: lib.unique(x, dim=0), "unique_consecutive": lambda lib, x: lib.unique_consecutive(x),
    "histc": lambda lib, x: lib.histc(x, 4), "searchsorted": lambda lib, x: lib.searchsorted(x.flatten().sort()[0], x),
    "bucketize": lambda lib, x: lib.bucketize(x, x.flatten().sort()[0], right=True),
    "bincount weights": lambda lib, x: lib.bincount(lib.tensor([0, 1, 1]), weights=x[0]),
    "isin": lambda lib, x: lib.isin(x, x[0]), "to_sparse": lambda lib, x: x.to_sparse().to_dense(),
}


@pytest.mark.parametrize("name", sorted(HOST_FUNCTIONS))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_host_computed_functions_take_half_precision_as_torch(name, dtype):
    x = np.array([[1.5, -2.0, 0.0], [3.0, 1.5, -1.0], [1.5, -2.0, 0.0]], np.float32)
    same(lambda lib, x: HOST_FUNCTIONS[name](lib, x.to(getattr(lib, dtype))), x, where=f"{name}({dtype})")
