"""Property-based tests (hypothesis) over the op table: for every OpSpec, drawn dtypes, sizes
(empty ones included), seeds and input layouts (dense, strided, transposed, offset views) give the
NumPy reference's numbers, or, for an empty input, a clean GlassgradError; drawn attribute values
(reduction axes, softmax dims, permutations, slices, expand and reshape shapes, casts, scalar
operands, pooling and convolution geometry) do the same; and shapes drawn near the 2^60 size
limit are accepted exactly when their byte count fits, whatever the op.

Examples are bounded and derandomized, so CI runs the same examples each time in tens of
seconds; GLASSGRAD_PROPERTY_EXAMPLES=200 explores more locally (and varies them)."""
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glassgrad as gg
from glassgrad import _C
from glassgrad.testing import to_tensor
from op_specs import SPECS
from op_specs.conv import conv2d_ref
from op_specs.pool import avg_pool2d_ref, max_pool2d_ref

EXAMPLES = int(os.environ.get("GLASSGRAD_PROPERTY_EXAMPLES", "0"))
BOUNDED = settings(max_examples=EXAMPLES or 6, deadline=None, derandomize=not EXAMPLES, database=None,
                   suppress_health_check=list(HealthCheck))
ARGS = settings(BOUNDED, max_examples=EXAMPLES or 25)

LAYOUTS = ("dense", "strided", "transposed", "offset")


def present(a: np.ndarray, layout: str) -> "_C.Tensor":
    """A runtime tensor with a's values, laid out as `layout` over its storage."""
    a = np.asarray(a)
    if layout == "dense" or a.ndim == 0 or a.size == 0:
        return _C.Tensor.from_numpy(a)
    if layout == "strided":  # every other element of a doubled last axis
        return to_tensor(a, contiguous=False)
    if layout == "transposed":  # a permuted view of the transposed data
        return _C.Tensor.from_numpy(np.ascontiguousarray(np.transpose(a))).permute(list(reversed(range(a.ndim))))
    # "offset": rows 1..n of a buffer with a row of padding at each end
    pad = np.full((1,) + a.shape[1:], 7, a.dtype)
    return _C.Tensor.from_numpy(np.concatenate([pad, a, pad])).slice(0, 1, 1 + a.shape[0])


def run(op, arrays, attrs, layouts):
    return [t.numpy() for t in _C.run_op(op, [present(a, l) for a, l in zip(arrays, layouts)], attrs, "")]


def assert_matches(got, want, dtype, rtol, atol, what):
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _inplace_inputs(op):
    return {i for _, i in _C.op_schema(op)["inplace"]}


# ---- every op-table entry: dtypes, sizes, layouts ---------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
@BOUNDED
@given(data=st.data())
def test_every_op_matches_numpy_for_drawn_dtypes_sizes_and_layouts(spec, data):
    dtype = data.draw(st.sampled_from(spec.dtypes), label="dtype")
    # The spec's own sizes (valid by construction) and 0: whatever the generator makes of it
    # (often empty inputs) must be computed right or refused cleanly.
    n = data.draw(st.sampled_from(sorted(set(spec.sizes) | {0})), label="n")
    seed = data.draw(st.integers(0, 2 ** 32 - 1), label="seed")
    try:
        arrays = spec.inputs(np.random.default_rng(seed), dtype, n)
    except ValueError:  # this spec's generator has no inputs of that size (e.g. labels in [0, 0))
        return
    attrs = spec.attrs_for(n)
    fixed = _inplace_inputs(spec.op)
    layouts = [data.draw(st.sampled_from(LAYOUTS if spec.noncontiguous and i not in fixed else ("dense",)),
                         label=f"layout {i}") for i in range(len(arrays))]
    valid = n in spec.sizes
    try:
        want = spec.reference([np.array(a, copy=True) for a in arrays], attrs)
    except (ValueError, ZeroDivisionError, IndexError, FloatingPointError):
        want = None  # NumPy has no answer for these inputs (e.g. the max of nothing)
    try:
        got = run(spec.op, arrays, attrs, layouts)
    except gg.GlassgradError as e:
        assert not valid, f"{spec.id}: refused the valid size {n}: {e}"
        return  # size 0 may be refused, cleanly
    if want is None:  # NumPy's reference cannot take these (empty) inputs: only empty results are right
        assert all(g.size == 0 for g in got), f"{spec.id}: computed values where NumPy has none (n={n})"
        return
    idx = spec.outputs if spec.outputs is not None else range(len(want))
    for k in idx:
        assert_matches(got[k], want[k], dtype, spec.rtol.get(dtype, 0), spec.atol.get(dtype, 0),
                       f"{spec.id} output {k}, {dtype}, n={n}, layouts {layouts}")


# ---- drawn attribute values ---------------------------------------------------------------------

FLOATS = ("float32", "float64")
TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-10)}


@st.composite
def arrays(draw, min_rank=0, max_rank=4, max_side=4, dtypes=FLOATS, min_side=0):
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_rank, max_size=max_rank)))
    dtype = draw(st.sampled_from(dtypes))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype in ("int64", "uint8"):
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@ARGS
@given(a=arrays(), data=st.data())
def test_reductions_over_drawn_axes_match_numpy(a, data):
    axes = sorted(data.draw(st.sets(st.integers(0, max(a.ndim - 1, 0)), max_size=a.ndim)) if a.ndim else [])
    signed = [ax - a.ndim if data.draw(st.booleans()) else ax for ax in axes]
    keep = data.draw(st.booleans())
    op = data.draw(st.sampled_from(["Sum", "Mean", "Max", "Var"]))
    attrs = {"dims": signed, "keepdim": keep}
    np_axes = tuple(axes) if axes else None
    reduced = a.size if np_axes is None else math.prod(a.shape[i] for i in axes)
    # Mean, Max and Var refuse any empty input (over nothing they have no value); Var of one value
    # divides by max(0, 1 - correction) = 0: NaN, as PyTorch.
    if op in ("Mean", "Max", "Var") and (reduced == 0 or a.size == 0):
        with pytest.raises(gg.GlassgradError):
            run(op, [a], attrs if op != "Var" else dict(attrs, correction=1), ["dense"])
        return
    layout = data.draw(st.sampled_from(LAYOUTS))
    if op == "Var":
        attrs["correction"] = 1
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, for one value: NaN
            want = np.var(a.astype(np.float64), axis=np_axes, keepdims=keep, ddof=1).astype(a.dtype)
    else:
        want = {"Sum": np.sum, "Mean": np.mean, "Max": np.max}[op](a, axis=np_axes, keepdims=keep)
    (got,) = run(op, [a], attrs, [layout])
    assert_matches(got, np.asarray(want, dtype=a.dtype), a.dtype.name, *TOL[a.dtype.name], f"{op} {attrs} {a.shape}")


@ARGS
@given(a=arrays(min_rank=1, min_side=1), data=st.data())
def test_softmax_and_argmax_along_a_drawn_dim_match_numpy(a, data):
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    e = np.exp(a.astype(np.float64) - a.max(axis=dim, keepdims=True))
    soft = e / e.sum(axis=dim, keepdims=True)
    (got,) = run("Softmax", [a], {"dim": dim}, [data.draw(st.sampled_from(LAYOUTS))])
    assert_matches(got, soft.astype(a.dtype), a.dtype.name, *TOL[a.dtype.name], f"Softmax dim={dim}")
    (got,) = run("LogSoftmax", [a], {"dim": dim}, ["dense"])
    assert_matches(got, np.log(soft).astype(a.dtype), a.dtype.name, *TOL[a.dtype.name], f"LogSoftmax dim={dim}")
    (got,) = run("ArgMax", [a], {"dim": dim, "keepdim": False}, ["dense"])
    np.testing.assert_array_equal(got, np.argmax(a, axis=dim))
    with pytest.raises(IndexError):
        run("Softmax", [a], {"dim": a.ndim + data.draw(st.integers(0, 3))}, ["dense"])


@ARGS
@given(a=arrays(min_rank=1, dtypes=FLOATS + ("int64", "bool")), data=st.data())
def test_permute_slice_expand_reshape_with_drawn_arguments_match_numpy(a, data):
    perm = data.draw(st.permutations(range(a.ndim)))
    (got,) = run("Permute", [a], {"dims": list(perm)}, [data.draw(st.sampled_from(LAYOUTS))])
    np.testing.assert_array_equal(got, np.transpose(a, perm))
    dim = data.draw(st.integers(0, a.ndim - 1))
    size = a.shape[dim]
    start = data.draw(st.integers(0, size))
    stop = data.draw(st.integers(start, size))
    step = data.draw(st.integers(1, 3))
    (got,) = run("Slice", [a], {"dim": dim, "start": start, "stop": stop, "step": step}, ["dense"])
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, stop, step)
    np.testing.assert_array_equal(got, a[tuple(index)])
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = lead + [s if s != 1 else data.draw(st.integers(0, 3)) for s in a.shape]
    (got,) = run("Expand", [a], {"shape": target}, ["dense"])
    np.testing.assert_array_equal(got, np.broadcast_to(a, target))
    flat = [a.size] if a.size else [0]
    (got,) = run("Reshape", [a], {"shape": flat}, [data.draw(st.sampled_from(LAYOUTS))])
    np.testing.assert_array_equal(got, a.reshape(flat))


@ARGS
@given(a=arrays(dtypes=FLOATS + ("int64", "uint8", "bool")), to=st.sampled_from(["float32", "float64", "int64", "uint8", "bool"]))
def test_casts_between_every_pair_of_dtypes_match_numpy(a, to):
    if a.dtype.kind == "f" and to in ("int64", "uint8"):
        a = np.trunc(np.clip(a * 10, 0, 200))  # in range: out-of-range float->int casts are undefined
    (got,) = run("Cast", [a], {"dtype": to}, ["dense"])
    np.testing.assert_array_equal(got, a.astype(to))


@ARGS
@given(a=arrays(), value=st.floats(-8, 8, allow_nan=False).filter(lambda v: abs(v) > 1e-3),
       op=st.sampled_from(["AddScalar", "MulScalar", "RDivScalar", "PowScalar", "LeakyReLU"]))
def test_scalar_operands_drawn_from_a_range_match_numpy(a, value, op):
    x64 = a.astype(np.float64)
    if op == "RDivScalar":
        a = np.where(np.abs(a) < 0.1, 1.0, a).astype(a.dtype)
        x64 = a.astype(np.float64)
    if op == "PowScalar":
        a = (np.abs(a) + 0.5).astype(a.dtype)
        x64 = a.astype(np.float64)
        value = round(value) / 2  # integer and half-integer exponents of a positive base
    attrs = {"AddScalar": {"value": value}, "MulScalar": {"value": value}, "RDivScalar": {"value": value},
             "PowScalar": {"exponent": value}, "LeakyReLU": {"negative_slope": value}}[op]
    want = {"AddScalar": lambda: x64 + value, "MulScalar": lambda: x64 * value, "RDivScalar": lambda: value / x64,
            "PowScalar": lambda: x64 ** value, "LeakyReLU": lambda: np.where(x64 > 0, x64, x64 * value)}[op]()
    (got,) = run(op, [a], attrs, ["dense"])
    rtol, atol = TOL[a.dtype.name]
    assert_matches(got, want.astype(a.dtype), a.dtype.name, rtol * 10, atol * 10, f"{op} {attrs}")


@st.composite
def pool_cases(draw):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = (draw(st.integers(0, k[0] // 2)), draw(st.integers(0, k[1] // 2)))
    h = draw(st.integers(max(k[0] - 2 * p[0], 1), 7))
    w = draw(st.integers(max(k[1] - 2 * p[1], 1), 7))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.standard_normal((n, c, h, w)).astype(draw(st.sampled_from(FLOATS)))
    return x, k, s, p, draw(st.booleans())


@ARGS
@given(case=pool_cases(), layout=st.sampled_from(LAYOUTS))
def test_pooling_with_drawn_kernel_stride_padding_matches_numpy(case, layout):
    x, k, s, p, include = case
    attrs = {"kernel": list(k), "stride": list(s), "padding": list(p)}
    (got,) = run("MaxPool2D", [x], attrs, [layout])
    assert_matches(got, max_pool2d_ref(x, k, s, p), x.dtype.name, *TOL[x.dtype.name], f"MaxPool2D {attrs}")
    (got,) = run("AvgPool2D", [x], dict(attrs, count_include_pad=include), [layout])
    want = avg_pool2d_ref(x, k, s, p, count_include_pad=include)
    assert_matches(got, want, x.dtype.name, *TOL[x.dtype.name], f"AvgPool2D {attrs} count_include_pad={include}")


@st.composite
def conv_cases(draw):
    groups = draw(st.integers(1, 3))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    r, q = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    pad = [draw(st.integers(0, 2)) for _ in range(4)]
    h = draw(st.integers(max(d[0] * (r - 1) + 1 - pad[0] - pad[1], 1), 7))
    w = draw(st.integers(max(d[1] * (q - 1) + 1 - pad[2] - pad[3], 1), 7))
    dtype = draw(st.sampled_from(FLOATS))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.standard_normal((draw(st.integers(1, 2)), cin, h, w)).astype(dtype)
    wt = rng.standard_normal((cout, cin // groups, r, q)).astype(dtype)
    b = rng.standard_normal(cout).astype(dtype) if draw(st.booleans()) else None
    return x, wt, b, s, pad, d, groups


@ARGS
@given(case=conv_cases(), layout=st.sampled_from(LAYOUTS))
def test_convolution_with_drawn_geometry_matches_numpy(case, layout):
    x, w, b, s, pad, d, groups = case
    attrs = {"stride": list(s), "padding": pad, "dilation": list(d), "groups": groups}
    ins = [x, w] + ([b] if b is not None else [])
    (got,) = run("Conv2D", ins, attrs, [layout] + ["dense"] * (len(ins) - 1))
    want = conv2d_ref(x, w, b, stride=s, padding=pad, dilation=d, groups=groups)
    rtol, atol = TOL[x.dtype.name]
    assert_matches(got, want, x.dtype.name, rtol * 10, atol * 10, f"Conv2D {attrs}")


# ---- sizes near the overflow limit --------------------------------------------------------------

LIMIT = 2 ** 60  # types.h kMaxSize: the largest element or byte count


@ARGS
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64", "uint8", "bool"]),
       op=st.sampled_from(["expand", "neg", "add", "sum", "reshape"]))
def test_shapes_near_the_size_limit_are_accepted_exactly_when_they_fit(data, dtype, op):
    rank = data.draw(st.integers(1, 4))
    exps = data.draw(st.lists(st.integers(0, 40), min_size=rank, max_size=rank))
    shape = [2 ** e + data.draw(st.sampled_from([-1, 0, 1])) for e in exps]
    shape = [max(s, 1) for s in shape]
    nbytes = math.prod(shape) * np.dtype(dtype if dtype != "bool" else np.bool_).itemsize
    fits = math.prod(shape) <= LIMIT and nbytes <= LIMIT
    base = gg.zeros(*([1] * rank), dtype=dtype)
    try:
        x = base.expand(*shape)
        if op == "neg" and dtype in ("float32", "float64"):
            x = -x
        elif op == "add":
            x = x + base
        elif op == "sum":
            x.sum(0)  # recorded, not run
        elif op == "reshape":
            x = x.reshape(-1)
    except gg.ShapeError as e:
        assert not fits, f"refused {shape} {dtype} ({nbytes} bytes, within the limit): {e}"
        assert "2^60" in str(e)
        return
    except gg.GlassgradError:
        if op in ("neg", "add", "sum") and dtype in ("bool", "uint8"):
            return  # the op's own dtype rule
        raise
    assert fits, f"accepted {shape} {dtype}: {nbytes} bytes is over the limit"
    assert x.numel() == math.prod(x.shape)
