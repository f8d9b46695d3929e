"""Differences from PyTorch a sweep of tensor semantics found (round 10), mended: unique and
unique_consecutive with dim over empty inputs (PyTorch's RuntimeError when an axis other than dim
is empty, empty results when dim itself is, IndexError for a 0-d input); arange's int64 count
from truncated bounds; eye in bfloat16; tril_indices/triu_indices of other dtypes than int64 and
int32 refused; linspace and logspace reading start and end through the result dtype's checked
conversion (integers truncated and wrapped), and refusing bool for two or more values; lerp's
0-d weight joining the type promotion; out= of the functions whose PyTorch kernel wants out in
the result's dtype exactly (abs, floor, amax, argmax, signbit, the (values, indices) pairs, ...),
of all/any (bool or uint8 only), of bfloat16 (resize_ of a bfloat16 tensor failed), and of the
special functions and linalg.tensorinv/tensorsolve/ldl_solve and F.normalize (resized as
PyTorch's, not refused). Each case is compared with PyTorch itself. Torch-guarded: CI has no
torch."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad as gg  # noqa: E402


def _same(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        # the last bits of a special function's value may differ (rtol 1e-5); all else is equal
        np.testing.assert_allclose(a.numpy().astype(np.float64), b.numpy().astype(np.float64), rtol=1e-5, atol=0)


def _outcome(call):
    try:
        return call(), None
    except Exception as e:  # the comparison below reads its type
        return None, e


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 3), (3, 2), ()])
def test_unique_with_dim_over_empty_and_0d_inputs(name, shape):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 2
    for dim in range(-len(shape), len(shape)) if shape else [0]:
        def call(m):
            return getattr(m, name)(m.tensor(data), dim=dim, return_inverse=True, return_counts=True)
        theirs, their_error = _outcome(lambda: call(torch))
        ours, our_error = _outcome(lambda: call(gg))
        if their_error is not None:
            assert isinstance(our_error, type(their_error)), (shape, dim, our_error, their_error)
        else:
            assert our_error is None, (shape, dim, our_error)
            _same(ours, theirs)


def _compare(call):
    theirs, their_error = _outcome(lambda: call(torch))
    ours, our_error = _outcome(lambda: call(gg))
    if their_error is not None:
        assert isinstance(our_error, type(their_error)), (our_error, their_error)
    else:
        assert our_error is None, our_error
        _same(ours, theirs)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float32"])
@pytest.mark.parametrize("bounds", [(0.5, 4.5, 1.5), (-2.5, 4.7, 2), (0, 5, 1.9), (5, 0, -1.5), (1, 4, 0.5),
                                    (0.5, 3.9), (0, 3.5, 1), (7, 2, -2)])
def test_arange_of_an_integer_dtype_with_fractional_bounds(dtype, bounds):
    _compare(lambda m: m.arange(*bounds, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("size", [(3,), (2, 4), (0,)])
def test_eye_in_bfloat16(size):
    _compare(lambda m: m.eye(*size, dtype=m.bfloat16).float())
    assert gg.eye(*size, dtype=gg.bfloat16).dtype == gg.bfloat16


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float32", "bool"])
def test_triangle_indices_dtypes(name, dtype):
    _compare(lambda m: getattr(m, name)(3, 4, 1, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("args", [(-3, 3, 4, "uint8"), (-100, 100, 5, "uint8"), (-200, 3, 4, "uint8"),
                                  (0, 300, 2, "uint8"), (-3.5, 3, 4, "uint8"), (-129, 3, 4, "int8"),
                                  (0.5, 10.7, 4, "int64"), (0.5, 2.5, 5, "int32"), (0, 70000, 3, "float16"),
                                  (0, 1e39, 3, "float32"), (0, 10, 0, "bool"), (0, 10, 1, "bool"),
                                  (-1, 2.5, 1, "bool"), (0, 10, 2, "bool"), (0, 1, 3, "bool")])
def test_linspace_and_logspace_read_their_ends_in_the_result_dtype(name, args):
    *ends, steps, dtype = args
    _compare(lambda m: getattr(m, name)(*ends, steps, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16", "float32"])
@pytest.mark.parametrize("weight", ["float32", "float64", "float16", "int64"])
def test_lerp_promotes_with_a_zero_dim_weight(dtype, weight):
    def call(m, inplace=False):
        start, end = m.tensor([1, 0, 3]).to(getattr(m, dtype)), m.tensor([4, 1, 0]).to(getattr(m, dtype))
        w = m.tensor(0.25).to(getattr(m, weight))
        return start.clone().lerp_(end, w) if inplace else m.lerp(start, end, w)
    _compare(call)
    _compare(lambda m: call(m, inplace=True))


_OUT_DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
_OUT_CALLS = {  # (input dtype, call(m, x, out)) for every dtype of out, empty or of the wrong shape
    "abs": ("float32", lambda m, x, out: m.abs(x, out=out)),
    "neg int": ("int64", lambda m, x, out: m.neg(x, out=out)),
    "floor": ("float16", lambda m, x, out: m.floor(x, out=out)),
    "sign": ("int64", lambda m, x, out: m.sign(x, out=out)),
    "bitwise_not": ("bool", lambda m, x, out: m.bitwise_not(x, out=out)),
    "nan_to_num": ("float32", lambda m, x, out: m.nan_to_num(x, out=out)),
    "amax": ("float32", lambda m, x, out: m.amax(x, 1, out=out)),
    "argmax": ("float32", lambda m, x, out: m.argmax(x, 1, out=out)),
    "signbit": ("float32", lambda m, x, out: m.signbit(x, out=out)),
    "isposinf": ("int64", lambda m, x, out: m.isposinf(x, out=out)),
    "all": ("float32", lambda m, x, out: m.all(x, 1, out=out)),
    "any": ("int64", lambda m, x, out: m.any(x, out=out)),
    "tril": ("int64", lambda m, x, out: m.tril(x, out=out)),
    "index_select": ("float32", lambda m, x, out: m.index_select(x, 0, m.tensor([1, 0]), out=out)),
    "nonzero": ("float32", lambda m, x, out: m.nonzero(x, out=out)),
    "float_power": ("float32", lambda m, x, out: m.float_power(x, 2, out=out)),
    "exp": ("float32", lambda m, x, out: m.exp(x, out=out)),
    "add": ("int64", lambda m, x, out: m.add(x, x, out=out)),
    "erfc": ("float32", lambda m, x, out: m.erfc(x, out=out)),
    "erfinv": ("float32", lambda m, x, out: m.erfinv(x * 0.1, out=out)),
    "lgamma": ("float32", lambda m, x, out: m.lgamma(x, out=out)),
    "igamma": ("float32", lambda m, x, out: m.igamma(x.abs() + 1, x.abs() + 1, out=out)),
    "normalize": ("float32", lambda m, x, out: m.nn.functional.normalize(x, out=out)),
    "tensorinv": ("float64", lambda m, x, out: m.linalg.tensorinv(x.reshape(2, 1, 2) + m.eye(2).reshape(2, 1, 2) * 9,
                                                                  ind=1, out=out)),
}


@pytest.mark.parametrize("name", sorted(_OUT_CALLS))
@pytest.mark.parametrize("size", [0, 3])
def test_out_dtypes_and_resizing(name, size):
    dtype, call = _OUT_CALLS[name]
    data = [[1.5, -2.0], [0.0, 3.25]]
    for out_dtype in _OUT_DTYPES:
        def run(m):
            x = m.tensor(data).to(getattr(m, dtype))
            out = m.zeros(size, dtype=getattr(m, out_dtype))
            result = call(m, x, out)
            assert result is out
            return out.float()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the resize of an out with elements warns, in both
            _compare(run)


@pytest.mark.parametrize("name", ["sort", "cummax", "kthvalue", "mode", "topk", "median", "max"])
def test_out_pairs_take_the_results_dtypes(name):
    args = {"sort": (), "cummax": (1,), "kthvalue": (1,), "mode": (1,), "topk": (1,), "median": (1,), "max": (1,)}[name]
    for values, indices in [("float32", "int64"), ("float64", "int64"), ("float32", "int32"), ("int64", "int64")]:
        def run(m):
            out = (m.zeros(0, dtype=getattr(m, values)), m.zeros(0, dtype=getattr(m, indices)))
            got = getattr(m, name)(m.tensor([[1.5, -2.0], [0.0, 3.25]]), *args, out=out)
            return got[0], got[1]
        _compare(run)


def test_resize_of_a_bfloat16_tensor_keeps_its_values():
    for m in (torch, gg):
        x = m.tensor([1.5, 2.25, 3.0]).to(m.bfloat16)
        x.resize_(2, 1)
        assert x.dtype == m.bfloat16 and x.float().tolist() == [[1.5], [2.25]]


@pytest.mark.parametrize("name", ["atan2_", "arctan2_", "heaviside_", "hypot_", "logical_and_", "logical_or_",
                                  "logical_xor_", "nextafter_"])
def test_in_place_methods_taking_a_tensor_refuse_a_number(name):
    for number in (2, 2.5, True):
        _compare(lambda m: getattr(m.ones(2), name)(number))
    _compare(lambda m: getattr(m.tensor([0.5, -1.0]), name)(m.tensor([1.0, 0.0])))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("start,end,weight", [(-np.inf, 2.0, 0.6), (1.0, np.inf, 0.2), (1e30, -1e30, 0.9), (0.1, 0.7, 0.9999),
                                              (2.0, 5.0, 1.0), (3.0, -1.0, -0.7), (0.1, 0.3, 0.3)])
def test_lerp_computes_from_the_nearer_end_as_pytorch(dtype, start, end, weight):
    # start + weight * (end - start) below weight 0.5, end - (end - start) * (1 - weight) from there
    def call(m, tensor_weight):
        s, e = m.tensor([start]).to(getattr(m, dtype)), m.tensor([end]).to(getattr(m, dtype))
        return m.lerp(s, e, m.tensor([weight]).to(getattr(m, dtype)) if tensor_weight else weight)
    for tensor_weight in (False, True):
        theirs, ours = call(torch, tensor_weight), call(gg, tensor_weight)
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


@pytest.mark.parametrize("bounds", [(np.int64(2),), (np.int32(1), np.int64(7), np.int16(2)),
                                    (np.float64(-2.5), 4.7, 2), (0, np.float32(5), 1.9)])
@pytest.mark.parametrize("dtype", [None, "int64", "int32", "uint8"])
def test_arange_takes_numpy_scalar_bounds(bounds, dtype):
    _compare(lambda m: m.arange(*bounds, dtype=None if dtype is None else getattr(m, dtype)))


@pytest.mark.parametrize("dim", [3, -4, 5, True, -1, 1])
def test_glu_dim_out_of_range_is_an_index_error(dim):
    _compare(lambda m: m.nn.functional.glu(m.arange(24.0).reshape(2, 3, 4), dim))


@pytest.mark.parametrize("dim", [2, -3, 5, 0, -1])
def test_select_scatter_dim_out_of_range_is_an_index_error(dim):
    def call(m):
        x = m.zeros(2, 3)
        return m.select_scatter(x, m.ones(x.select(dim % 2, 0).shape), dim, 0)
    _compare(call)
    _compare(lambda m: m.select_scatter(m.tensor(1.0), m.tensor(2.0), 0, 0))


_AXIS_CALLS = {
    "torch.gather": lambda m, x: m.gather(x, axis=1, index=m.tensor([[0], [2], [1]])),
    "Tensor.gather": lambda m, x: x.gather(axis=0, index=m.tensor([[1, 0, 2, 1]])),
    "torch.index_select": lambda m, x: m.index_select(x, axis=1, index=m.tensor([3, 0])),
    "Tensor.index_select": lambda m, x: x.index_select(axis=0, index=m.tensor([2])),
    "torch.take_along_dim": lambda m, x: m.take_along_dim(x, m.tensor([[0], [1], [3]]), axis=1),
    "Tensor.take_along_dim": lambda m, x: x.take_along_dim(m.tensor([[0], [1], [3]]), axis=1),
    "torch.softmax": lambda m, x: (m if m is torch else gg.torch).softmax(x, axis=0),
    "torch.log_softmax": lambda m, x: (m if m is torch else gg.torch).log_softmax(x, axis=1),
    "Tensor.softmax": lambda m, x: x.softmax(axis=1),
    "Tensor.log_softmax": lambda m, x: x.log_softmax(axis=0),
}


@pytest.mark.parametrize("name", sorted(_AXIS_CALLS))
def test_axis_is_dim_for_the_indexing_and_softmax_functions(name):
    import glassgrad.torch  # noqa: F401  (the port's namespace, whose softmax needs a dim as torch's)
    _compare(lambda m: _AXIS_CALLS[name](m, m.arange(12.0).reshape(3, 4) / 7))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "bool", "float32"])
def test_index_fill_value_is_a_number_or_a_zero_dim_tensor_converted_checked(dtype):
    for value in (lambda m: m.tensor(-2.5), lambda m: m.tensor(300), lambda m: m.tensor([1.0]),
                  lambda m: m.tensor([[2]]), lambda m: m.tensor(2.5), lambda m: -3, lambda m: m.tensor(True)):
        _compare(lambda m: m.ones(3, dtype=getattr(m, dtype)).index_fill(0, m.tensor([0]), value(m)))
        _compare(lambda m: m.ones(3, dtype=getattr(m, dtype)).index_fill_(0, m.tensor([2]), value(m)))


@pytest.mark.parametrize("value", [1, 2.5])
def test_addcmul_of_bools_is_refused_as_pytorch(value):
    def call(m, inplace):
        x, t = m.tensor([True, False, True]), m.tensor([True, True, False])
        return x.clone().addcmul_(t, t, value=value) if inplace else m.addcmul(x, t, t, value=value)
    for inplace in (False, True):
        _compare(lambda m: call(m, inplace))
    _compare(lambda m: m.addcmul(m.tensor([1, 0]), m.tensor([True, True]), m.tensor([True, False]), value=value))


_NORM_CALLS = {
    "torch.norm": lambda m, x, d: m.norm(x, dtype=d),
    "torch.norm(p=1, dim=1)": lambda m, x, d: m.norm(x, p=1, dim=1, dtype=d),
    "Tensor.norm": lambda m, x, d: x.norm(dtype=d),
    "linalg.vector_norm": lambda m, x, d: m.linalg.vector_norm(x, dtype=d),
    "linalg.norm": lambda m, x, d: m.linalg.norm(x, dtype=d),
    "linalg.matrix_norm(ord=1)": lambda m, x, d: m.linalg.matrix_norm(x, ord=1, dtype=d),
}


@pytest.mark.parametrize("name", sorted(_NORM_CALLS))
def test_a_norms_dtype_may_widen_the_input_never_narrow_it(name):
    for source, target in [("float64", "float32"), ("float32", "float16"), ("float16", "bfloat16"),
                           ("bfloat16", "float16"), ("float32", "float64"), ("float16", "float32")]:
        _compare(lambda m: _NORM_CALLS[name](m, m.tensor([[1.0, -2.0, 3.0], [0.5, 0.0, 1.0]]).to(getattr(m, source)),
                                             getattr(m, target)).float())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("order", ["fro", 1, -1, np.inf, -np.inf, "nuc", 2])
def test_matrix_norms_of_sums_take_16_bit_floats(dtype, order):
    data = [[[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]], [[1.0, 1.5, -2.5], [0.25, -3.0, 1.0]]]
    _compare(lambda m: m.linalg.matrix_norm(m.tensor(data).to(getattr(m, dtype)), ord=order).float())
    _compare(lambda m: m.linalg.norm(m.tensor(data).to(getattr(m, dtype)), ord=order, dim=(0, 2), keepdim=True).float())
