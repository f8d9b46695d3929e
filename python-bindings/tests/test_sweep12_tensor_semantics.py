"""Differences from PyTorch a sweep of tensor semantics found (round 12), mended: round(x,
decimals=) of an integer or bool tensor is PyTorch's NotImplementedError for every decimals, 0
too, and torch.special.round's default decimals=0 (its overload with decimals has no integer
kernel; x.round() keeps integers as they are); sort without stable=True puts more than 16 ties
where PyTorch's CPU std::sort does; the strides and offsets of random chains of views are
PyTorch's (test_view_strides has the cases by hand).
Each case is compared with PyTorch itself. Torch-guarded: CI has no torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad as gg  # noqa: E402
from sweep_outcomes import assert_same_outcome  # noqa: E402


def _check(call):
    assert_same_outcome(call, gg, torch)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
@pytest.mark.parametrize("decimals", [None, 0, 1, -1])
def test_round_with_decimals_of_integers(dtype, decimals):
    def call(m):
        x = m.tensor([15, 25, 1, 0]).to(getattr(m, dtype))
        return x.round() if decimals is None else m.round(x, decimals=decimals)
    _check(call)
    if decimals is not None:
        _check(lambda m: m.tensor([15, 25, 1, 0]).to(getattr(m, dtype)).round_(decimals=decimals))
    _check(lambda m: m.special.round(m.tensor([15, 25, 1, 0]).to(getattr(m, dtype))))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "bool"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_puts_ties_where_pytorchs_cpu_sort_does(dtype, descending):
    # more than 16 ties: std::sort's introsort moves them; stable=True keeps the input order
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2 if dtype == "bool" else 3, (3, 50))
    for kwargs in ({}, {"stable": True}, {"stable": False}):
        def indices(m, dim):
            x = m.tensor(a).to(getattr(m, dtype))
            return m.sort(x, dim=dim, descending=descending, **kwargs).indices
        for dim in (-1, 0):
            _check(lambda m: indices(m, dim))
    _check(lambda m: m.argsort(m.tensor(a).to(getattr(m, dtype)), descending=descending))


def test_sort_keeps_input_order_where_pytorch_sorts_stably():
    # an expanded line is left as it is; a long 1-d integer input takes a stable radix sort
    _check(lambda m: m.sort(m.zeros(1).expand(40)).indices)
    big = np.random.default_rng(1).integers(0, 3, 40000)
    _check(lambda m: m.sort(m.tensor(big)).indices)
    _check(lambda m: m.sort(m.tensor(big), descending=True).indices)


def _view_chain(rng, shape):
    """A random chain of views of a tensor of `shape`: (name, args) steps."""
    steps = []
    for _ in range(int(rng.integers(1, 4))):
        n = len(shape)
        choices = ["unsqueeze"] + (["select", "narrow", "transpose", "permute", "squeeze", "index", "expand"]
                                   if n else [])
        kind = choices[int(rng.integers(len(choices)))]
        if kind == "unsqueeze":
            d = int(rng.integers(-n - 1, n + 1))
            step, shape = (kind, d), shape[:d % (n + 1)] + [1] + shape[d % (n + 1):]
        else:
            d = int(rng.integers(n))
            if kind == "select":
                if not shape[d]:
                    break
                step, shape = (kind, d, int(rng.integers(shape[d]))), shape[:d] + shape[d + 1:]
            elif kind == "narrow":
                start = int(rng.integers(shape[d] + 1))
                length = int(rng.integers(shape[d] - start + 1))
                step, shape = (kind, d, start, length), shape[:d] + [length] + shape[d + 1:]
            elif kind == "transpose":
                e = int(rng.integers(n))
                step = (kind, d, e)
                shape = list(shape)
                shape[d], shape[e] = shape[e], shape[d]
            elif kind == "permute":
                p = [int(v) for v in rng.permutation(n)]
                step, shape = (kind, p), [shape[i] for i in p]
            elif kind == "squeeze":
                step, shape = (kind, d), shape[:d] + shape[d + 1:] if shape[d] == 1 else shape
            elif kind == "expand":
                sizes = [3 if s == 1 else s for s in shape]
                step, shape = (kind, sizes), sizes
            else:
                key, new = [], []
                for size in shape:
                    r = rng.random()
                    if r < 0.2:
                        key.append(None)
                        new.append(1)
                    if r < 0.45 and size:
                        key.append(int(rng.integers(size)))
                        continue
                    start, step_ = int(rng.integers(size + 1)), int(rng.integers(1, 3))
                    key.append(slice(start, None, step_))
                    new.append(len(range(start, size, step_)))
                step, shape = (kind, tuple(key)), new
        steps.append(step)
    return steps


def _apply(x, steps):
    for kind, *args in steps:
        x = x[args[0]] if kind == "index" else getattr(x, kind)(*args)
    return x


@pytest.mark.parametrize("seed", range(4))
def test_random_chains_of_views_have_pytorchs_strides(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        shape = [int(s) for s in rng.integers(1, 4, int(rng.integers(0, 4)))]
        steps = _view_chain(rng, shape)
        n = int(np.prod(shape))
        want = _apply(torch.arange(float(n)).reshape(shape), steps)
        got = _apply(gg.arange(float(n)).reshape(shape), steps)
        assert (tuple(got.shape), got.stride(), got.storage_offset()) == \
            (tuple(want.shape), want.stride(), want.storage_offset()), (shape, steps)
