"""PyTorch's results and exception types for index ops, counting and norms at their edges
(scatter_reduce's 'max'/'min', take_along_dim's broadcast, bincount/histc dtypes, linalg norms'
ord), torch-free with values from PyTorch's documented behaviour, and against PyTorch where it
is installed."""
import math

import numpy as np
import pytest

import glassgrad as gg


def test_scatter_reduce_takes_max_and_min_as_amax_and_amin():
    x = gg.zeros(3)
    index = gg.tensor([0, 0])
    src = gg.tensor([1.0, -2.0])
    assert x.scatter_reduce(0, index, src, "max").tolist() == [1.0, 0.0, 0.0]
    assert x.scatter_reduce(0, index, src, "min").tolist() == [-2.0, 0.0, 0.0]
    assert x.scatter_reduce(0, index, src, "min", include_self=False).tolist() == [-2.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin"):
        x.scatter_reduce(0, index, src, "add")


def test_take_along_dim_broadcast_mismatch_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="must broadcast"):
        gg.take_along_dim(gg.zeros(3, 4), gg.tensor([[0], [1]]), 1)
    assert gg.take_along_dim(gg.arange(12.0).reshape(3, 4), gg.tensor([[1]]), 1).tolist() == [[1.0], [5.0], [9.0]]


def test_bincount_and_histc_refuse_dtypes_as_not_implemented():
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        gg.bincount(gg.tensor([1.0]))
    with pytest.raises(NotImplementedError, match="'Bool'"):
        gg.bincount(gg.tensor([True]))
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        gg.histc(gg.tensor([1, 2]), bins=2)
    with pytest.raises(RuntimeError, match="1-d non-negative integral"):
        gg.bincount(gg.tensor([[1]]))
    assert gg.bincount(gg.tensor([1, 1, 3])).tolist() == [0, 2, 0, 1]


def test_norm_ord_types():
    A = gg.tensor([[3.0, 0.0], [4.0, 0.0]])
    with pytest.raises(TypeError):
        gg.linalg.vector_norm(A, ord="fro")
    with pytest.raises(TypeError):
        gg.linalg.vector_norm(A, ord=None)
    with pytest.raises(TypeError):
        gg.linalg.matrix_norm(A, ord=None)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        gg.linalg.norm(gg.tensor([3.0, 4.0]), ord="fro")
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        gg.linalg.norm(A, ord="nuc", dim=1)
    assert gg.linalg.norm(A, ord="fro").item() == 5.0
    assert gg.linalg.norm(gg.tensor([3.0, 4.0]), ord=math.inf).item() == 4.0


CASES = ["x.scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1., -2., 3.]), 'max')",
         "x.scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1., -2., 3.]), 'min', include_self=False)",
         "torch.take_along_dim(torch.zeros(3, 4), torch.tensor([[0], [1]]), 1)",
         "torch.bincount(torch.tensor([1.]))", "torch.histc(torch.tensor([1, 2]), bins=2)",
         "torch.linalg.vector_norm(torch.eye(2), ord='fro')", "torch.linalg.matrix_norm(torch.eye(2), ord=None)",
         "torch.linalg.norm(torch.ones(3), ord='fro')", "torch.linalg.norm(torch.ones(3, 3), ord='nuc', dim=1)",
         "torch.linalg.norm(torch.ones(3, 3), ord='fro', dim=(0, 1))"]


def _outcome(lib, expr):
    try:
        return np.asarray(eval(expr, {"torch": lib, "x": lib.zeros(3)}).tolist())
    except Exception as e:  # the exception's kind is compared
        return [k.__name__ for k in (NotImplementedError, TypeError, RuntimeError) if isinstance(e, k)][0]


@pytest.mark.parametrize("expr", CASES)
def test_as_torch(expr):
    torch = pytest.importorskip("torch")
    got, want = _outcome(gg, expr), _outcome(torch, expr)
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_allclose(got, want)


def test_low_precision_linalg_and_integer_histogram_are_not_implemented():
    for fn in (gg.linalg.eigh, gg.linalg.cholesky, gg.linalg.det, gg.linalg.inv, gg.linalg.svd):
        with pytest.raises(NotImplementedError, match="Low precision dtypes not supported"):
            fn(gg.eye(3).half())
        with pytest.raises(RuntimeError):  # PyTorch's inv raises a RuntimeError, its eigh a NotImplementedError
            fn(gg.eye(3).bfloat16())
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Int'"):
        gg.histogram(gg.eye(3).int(), 3)


def test_out_of_take_and_the_scatters():
    x = gg.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    index = gg.tensor([[1]])
    for fn, args, want in [(gg.take, (x, gg.tensor([1, 4])), [1.0, -1.0]),
                           (gg.scatter, (x, 0, index, 9.0), [[3.0, 1.0, 2.0], [9.0, -1.0, 5.0]]),
                           (gg.scatter_add, (x, 0, index, x[:1, :1]), [[3.0, 1.0, 2.0], [3.0, -1.0, 5.0]]),
                           (gg.scatter_reduce, (x, 0, index, x[:1, :1], "amax"), [[3.0, 1.0, 2.0], [3.0, -1.0, 5.0]]),
                           (gg.slice_scatter, (x, x[1:], 0, 0, 1), [[0.0, -1.0, 5.0], [0.0, -1.0, 5.0]])]:
        out = gg.empty(0)
        assert fn(*args, out=out) is out and out.tolist() == want


def test_shape_errors_of_index_copy_put_masked_select_cross_einsum():
    x = gg.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError, match="index_copy_"):
        x.index_copy(0, gg.tensor([0]), gg.ones(2, 4))
    with pytest.raises(IndexError, match="put_"):
        x.put_(gg.tensor([0]), gg.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="do not broadcast"):
        gg.masked_select(x, gg.ones(2, 4).bool())
    with pytest.raises(RuntimeError):
        gg.cross(gg.ones(3), gg.ones(4))
    with pytest.raises(RuntimeError, match="'->' may appear once"):
        gg.einsum("ij->ij->ij", x)


@pytest.mark.parametrize("expr", ["x.index_copy(0, torch.tensor([0]), torch.ones(2, 4))",
                                  "x.put_(torch.tensor([0]), torch.tensor([1, 2.]))",
                                  "torch.masked_select(x, torch.ones(2, 4).bool())",
                                  "torch.cross(torch.ones(3), torch.ones(4), dim=0)", "torch.einsum('ij->ij->ij', x)"])
def test_error_kinds_as_torch(expr):
    torch = pytest.importorskip("torch")
    kinds = []
    for lib in (torch, gg):
        with pytest.raises(Exception) as info:
            eval(expr, {"torch": lib, "x": lib.arange(12.0).reshape(3, 4)})
        kinds.append({k for k in (IndexError, RuntimeError) if isinstance(info.value, k)})
    assert kinds[0] and kinds[0] <= kinds[1]


def test_searchsorted_and_bucketize_with_one_bool_operand():
    edges = gg.tensor([0.0, 1.0, 2.0, 5.0])
    got = gg.searchsorted(edges, gg.tensor([[True, False, True]]))
    assert got.dtype == gg.int64 and got.tolist() == [[1, 0, 1]]
    assert gg.bucketize(gg.tensor([True, False]), edges).tolist() == [1, 0]
    assert gg.searchsorted(gg.tensor([False, True]), gg.tensor([1.0])).tolist() == [1]
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        gg.searchsorted(gg.tensor([False, True]), gg.tensor([True]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        gg.bucketize(gg.tensor([True]), gg.tensor([False, True]))


@pytest.mark.parametrize("seq,vals", [("int64", "bool"), ("float32", "bool"), ("bool", "float32"), ("bool", "bool")])
def test_searchsorted_bool_as_torch(seq, vals):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            return lib.searchsorted(lib.tensor([0.0, 1.0, 1.0]).to(getattr(lib, seq)),
                                    lib.tensor([1.0, 0.0]).to(getattr(lib, vals))).tolist()
        except NotImplementedError:
            return "NotImplementedError"
    assert outcome(gg) == outcome(torch)


def test_histogram_of_no_elements_spans_zero_to_one():
    hist, edges = gg.histogram(gg.tensor([]), 2)
    assert hist.tolist() == [0.0, 0.0] and edges.tolist() == [0.0, 0.5, 1.0]
    hist, edges = gg.histogram(gg.tensor([]).double(), 4)
    assert edges.dtype == gg.float64 and edges.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    # an explicit empty range and a single value are still widened by 0.5 each way
    assert gg.histogram(gg.tensor([]), 2, range=(0.0, 0.0))[1].tolist() == [-0.5, 0.0, 0.5]
    assert gg.histogram(gg.tensor([2.0, 2.0]), 2)[1].tolist() == [1.5, 2.0, 2.5]


@pytest.mark.parametrize("call", [
    lambda x: x.norm(dtype=gg.float64), lambda x: gg.norm(x, "fro", dtype=gg.float32),
    lambda x: gg.norm(x, 1, dtype=gg.float64), lambda x: gg.linalg.vector_norm(x, dtype=gg.float64),
    lambda x: gg.linalg.norm(x, dtype=gg.float64), lambda x: gg.linalg.matrix_norm(x, dtype=gg.float64)])
@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
def test_norm_of_an_integer_input_is_refused_whatever_dtype_asks(call, dtype):
    # PyTorch checks the input's dtype before dtype= converts it: 'Expected a floating point ...'
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        call(gg.tensor([[1, 2], [3, 4]]).to(getattr(gg, dtype)))


def test_norm_dtype_converts_a_floating_input():
    x = gg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.norm(dtype=gg.float64).dtype == gg.float64
    assert abs(x.half().norm(dtype=gg.float32).item() - 30 ** 0.5) < 1e-5
    assert gg.linalg.vector_norm(x.half(), dtype=gg.float32).dtype == gg.float32
    with pytest.raises(RuntimeError, match="floating point"):
        gg.norm(x, dtype=gg.int64)
