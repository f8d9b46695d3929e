"""glassgrad's tensor surface against PyTorch's, case by case of torch_surface_table.py: the same
function of the module runs in both libraries on the same float64 (or integer, or bool) data,
and gives the same values, dtypes and shapes, and the same gradients for every float input
(d sum(out * u) / d input, u random). Then PyTorch's type promotion (every pair of dtypes and
operand kinds, the operators and the functions) and its subgradients at kinks and ties. Skipped
without torch; tools/torch_differential.sh runs it where torch is installed."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import glassgrad as gg
from torch_surface_table import CASES, V, draw

torch = pytest.importorskip("torch")
from torch_versions import skip_if_changed_in_2_14  # noqa: E402


def _flat(out):
    """(kind, value) leaves of a result: tensors, numbers, bools, shapes, dtypes, nested tuples."""
    if isinstance(out, (gg.Tensor, torch.Tensor)):
        return [("tensor", out)]
    if isinstance(out, (tuple, list)) and not isinstance(out, (gg.Size, torch.Size)):
        return [leaf for o in out for leaf in _flat(o)]
    if isinstance(out, (gg.Size, torch.Size)):
        return [("shape", tuple(out))]
    if isinstance(out, (gg.dtype, torch.dtype)):
        return [("dtype", str(out).split(".")[-1])]
    return [("value", out)]


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def _run(case, module, arrays, seed=1):
    if module is gg:
        xs = [gg.tensor(a, requires_grad=case.grad and a.dtype.kind == "f") for a in arrays]
    else:
        xs = [torch.tensor(a, requires_grad=case.grad and a.dtype.kind == "f") for a in arrays]
    out = case.fn(module, *xs)
    leaves = _flat(out)
    results = []
    for kind, v in leaves:
        if kind == "tensor":
            results.append(("tensor", _dtype_name(v), tuple(v.shape), np.asarray(v.detach().numpy()
                                                                               if module is torch else v.detach().numpy())))
        else:
            results.append((kind, v))
    grads = []
    diff = [i for i, a in enumerate(arrays) if case.grad and a.dtype.kind == "f"]
    tensors = [v for kind, v in leaves if kind == "tensor" and v.dtype in (gg.float64, torch.float64)
               and v.requires_grad]
    if diff and tensors:
        rng = np.random.default_rng(seed)
        total = None
        for t in tensors:
            u = rng.standard_normal(tuple(t.shape))
            term = (t * (gg.tensor(u) if module is gg else torch.tensor(u))).sum()
            total = term if total is None else total + term
        total.backward()
        for i in diff:
            g = xs[i].grad
            grads.append(np.zeros(arrays[i].shape) if g is None else np.asarray(
                g.numpy() if module is gg else g.detach().numpy()))
    return results, grads


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_surface_matches_torch(case):
    if case.name in ("quantile-nan", "fmax/fmin"):
        skip_if_changed_in_2_14(torch, "the gradient at ties (fmax/fmin split it) and quantile's NaN order")
    rng = np.random.default_rng(0)
    arrays = [draw(spec, rng) for spec in case.inputs]
    gg.manual_seed(0)
    got, got_grads = _run(case, gg, arrays)
    want, want_grads = _run(case, torch, arrays)
    assert len(got) == len(want), f"{case.name}: {len(got)} results, torch gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert g[0] == w[0], f"{case.name} result {k}: a {g[0]}, torch gives a {w[0]}"
        if g[0] == "tensor":
            assert g[1] == w[1], f"{case.name} result {k}: dtype {g[1]}, torch's {w[1]}"
            assert g[2] == w[2], f"{case.name} result {k}: shape {g[2]}, torch's {w[2]}"
            if "rand" in case.name or ("like" in case.name and k > 3):
                continue
            if g[3].dtype.kind == "f":
                np.testing.assert_allclose(g[3], w[3], rtol=case.rtol, atol=1e-12, err_msg=f"{case.name} {k}")
            else:
                np.testing.assert_array_equal(g[3], w[3], err_msg=f"{case.name} {k}")
        else:
            assert g[1] == w[1], f"{case.name} result {k}: {g[1]!r}, torch gives {w[1]!r}"
    assert len(got_grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10, err_msg=f"{case.name}: gradient of input {i}")


# ---- type promotion: every pair of dtypes, tensors of one or zero dims, Python numbers ----------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _operand(kind, dtype, lib):
    """A tensor of `dtype` with `kind` dims ('dim': [3], '0-d': []), or a Python number. Integers
    beyond the narrower integer types (results wrap around) but held exactly by float16 and
    bfloat16: where a value does not fit the result type, PyTorch's CPU kernels round it or not
    depending on the operand's position (a 0-d second operand stays float32), which no documented
    rule says."""
    values = {"bool": [True, False, True], "uint8": [3, 0, 250], "int8": [-7, 100, 0], "int16": [300, -3, 2],
              "int32": [40960, -3, 0], "int64": [7, -3, 0], "float16": [1.5, -2.25, 0.0],
              "bfloat16": [0.1, -3.5, 2.0], "float32": [1.5, -2.25, 0.0], "float64": [0.125, -3.5, 2.0]}[dtype]
    if kind in ("dim", "0-d"):
        return _tensor_of(values if kind == "dim" else values[0], dtype, lib)
    return {"bool": True, "int64": 3, "float64": 2.5}[dtype]  # a Python number


def _tensor_of(values, dtype, lib):
    """lib.tensor of values in dtype (bfloat16 through float32: NumPy has none)."""
    t = lib.tensor(np.array(values, dtype=dtype if dtype != "bfloat16" else "float32"))
    return t.to(lib.bfloat16) if dtype == "bfloat16" else t


def _values(t):
    """A tensor's elements as NumPy (bfloat16 exactly, as float32: NumPy has no bfloat16)."""
    return (t.float() if _dtype_name(t) == "bfloat16" else t).detach().numpy()


OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b, "==": lambda a, b: a == b,
    "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
}
KINDS = [(k, d) for k in ("dim", "0-d") for d in DTYPES] + [("number", d) for d in ("bool", "int64", "float64")]
PAIRS = [(a, b) for a, b in itertools.product(KINDS, KINDS) if "dim" in (a[0], b[0])]


def _outcome(fn, a, b):
    try:
        out = fn(a, b)
    except (RuntimeError, TypeError, ValueError, ZeroDivisionError, gg.GlassgradError) as e:
        return ("error", type(e).__name__)
    return ("ok", _dtype_name(out), np.asarray(_values(out)))


# The 16-bit floats: both libraries compute in float32 and round once, so results agree but for a
# last-bit difference where a float32 library function (pow) differs.
_RTOL = {"float16": 1e-3, "bfloat16": 8e-3}


@pytest.mark.parametrize("op", list(OPERATORS))
def test_operators_promote_as_torch(op):
    fn = OPERATORS[op]
    problems = []
    for (ka, da), (kb, db) in PAIRS:
        want = _outcome(fn, _operand(ka, da, torch), _operand(kb, db, torch))
        got = _outcome(fn, _operand(ka, da, gg), _operand(kb, db, gg))
        where = f"{ka} {da} {op} {kb} {db}"
        if want[0] == "error":
            if got[0] != "error":
                problems.append(f"{where}: torch raises {want[1]}, glassgrad gives {got[1]}")
            continue
        if got[0] == "error":
            problems.append(f"{where}: glassgrad raises {got[1]}, torch gives {want[1]}")
            continue
        if got[1] != want[1]:
            problems.append(f"{where}: dtype {got[1]}, torch's {want[1]}")
            continue
        g, w = got[2], want[2]
        same = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=_RTOL.get(want[1], 1e-6), equal_nan=True) \
            if w.dtype.kind == "f" else np.array_equal(g, w)
        if not same:
            problems.append(f"{where}: {g.tolist()} but torch gives {w.tolist()}")
    assert not problems, f"{len(problems)} cases differ:\n  " + "\n  ".join(problems[:40])


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES + ["int8", "int16", "int32", "float16", "bfloat16"],
                                                        repeat=2)))
def test_promote_types_and_can_cast_are_torchs(a, b):
    assert _dtype_name_of(gg.promote_types(a, b)) == _dtype_name_of(torch.promote_types(getattr(torch, a), getattr(torch, b)))
    assert gg.can_cast(a, b) == torch.can_cast(getattr(torch, a), getattr(torch, b))


def _dtype_name_of(dt):
    return str(dt).split(".")[-1]


def test_result_type_is_torchs():
    for (ka, da), (kb, db) in PAIRS + [(("number", "int64"), ("number", "float64"))]:
        want = torch.result_type(_operand(ka, da, torch), _operand(kb, db, torch)) if (ka, kb) != (
            "number", "number") else torch.float32
        got = gg.result_type(_operand(ka, da, gg), _operand(kb, db, gg))
        assert _dtype_name_of(got) == _dtype_name_of(want), f"{ka} {da} with {kb} {db}"


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "log", "sigmoid", "tanh", "abs", "neg", "floor", "square",
                                  "reciprocal", "rsqrt", "sign"])
def test_unary_functions_give_torchs_dtypes(name):
    for dt in DTYPES:
        want = _outcome(lambda x, _: getattr(torch, name)(x), _tensor_of([1, 0, 1], dt, torch), None)
        got = _outcome(lambda x, _: getattr(gg, name)(x), _tensor_of([1, 0, 1], dt, gg), None)
        if want[0] == "error":
            assert got[0] == "error", f"{name}({dt}): torch raises, glassgrad gives {got[1]}"
            continue
        assert got[0] == "ok" and got[1] == want[1], f"{name}({dt}): {got}, torch gives {want[1]}"
        np.testing.assert_allclose(got[2].astype(np.float64), want[2].astype(np.float64), rtol=_RTOL.get(dt, 1e-6))


def test_integer_division_by_a_zero_number_raises_as_torch():
    x = gg.tensor([5, -3])
    for fn in (lambda: x // 0, lambda: x % 0, lambda: gg.fmod(x, 0)):
        with pytest.raises(ZeroDivisionError):
            fn()


# ---- subgradients at kinks and ties ---------------------------------------------------------------
KINKS = [
    ("abs at 0", lambda t, x: t.abs(x), V((0.0, -1.0, 2.0, -0.0))),
    ("x ** 0 at 0", lambda t, x: x ** 0, V((0.0, 1.0, -2.0))),
    ("x.pow(0.0) at 0", lambda t, x: x.pow(0.0), V((0.0, 3.0))),
    ("relu at 0", lambda t, x: t.relu(x), V((0.0, -1.0, 1.0))),
    ("clamp at the bounds", lambda t, x: t.clamp(x, -1.0, 1.0), V((-1.0, 1.0, 0.0, 2.0, -2.0))),
    ("clamp with min > max", lambda t, x: t.clamp(x, 1.0, -1.0), V((-2.0, 0.0, 2.0))),
    ("amax ties", lambda t, x: t.amax(x, 1), V(((1.0, 3.0, 3.0), (2.0, 2.0, 2.0)))),
    ("max ties", lambda t, x: t.max(x), V(((1.0, 3.0, 3.0), (2.0, 3.0, 0.0)))),
    ("min ties", lambda t, x: x.min(), V((1.0, -3.0, -3.0))),
    ("amin ties", lambda t, x: t.amin(x, 0), V(((1.0, 3.0), (1.0, 2.0)))),
    ("max over a dim, ties", lambda t, x: t.max(x, 1).values, V(((1.0, 3.0, 3.0), (2.0, 2.0, 2.0)))),
    ("min over a dim, ties", lambda t, x: x.min(0)[0], V(((1.0, 3.0), (1.0, 2.0)))),
    ("sign", lambda t, x: t.sign(x), V((0.0, -1.5, 2.0))),
    ("round, floor, ceil, trunc", lambda t, x: t.round(x) + t.floor(x) + t.ceil(x) + t.trunc(x), V((0.5, -1.5, 2.2))),
    ("norm at 0", lambda t, x: x.norm(), V((0.0, 0.0, 0.0))),
    ("norm of rows, one zero", lambda t, x: x.norm(dim=1), V(((0.0, 0.0), (3.0, 4.0)))),
    ("cumprod with zeros", lambda t, x: t.cumprod(x, 0), V((2.0, 0.0, 3.0, 0.0, 5.0))),
    ("prod with one zero", lambda t, x: t.prod(x), V((2.0, 0.0, 3.0))),
    ("prod with two zeros", lambda t, x: t.prod(x), V((2.0, 0.0, 3.0, 0.0))),
    ("sort ties", lambda t, x: t.sort(x).values, V((1.0, 2.0, 1.0, 2.0))),
    ("topk ties", lambda t, x: t.topk(x, 2).values, V((2.0, 3.0, 3.0, 1.0))),
    ("median ties", lambda t, x: t.median(x), V((2.0, 1.0, 2.0, 3.0))),
    ("sqrt at 0 (infinite slope)", lambda t, x: t.sqrt(x), V((0.0, 4.0))),
    ("logsumexp with -inf", lambda t, x: t.logsumexp(x, 0), V((-math.inf, 0.0, 1.0))),
    ("remainder at a multiple", lambda t, x: t.remainder(x, 2.0), V((4.0, -2.0, 3.0))),
]


@pytest.mark.parametrize("name,fn,spec", KINKS, ids=[k[0] for k in KINKS])
def test_subgradients_at_kinks_are_torchs(name, fn, spec):
    if name == "clamp at the bounds":
        skip_if_changed_in_2_14(torch, "clamp's gradient at its bounds (0 there)")
    a = draw(spec, np.random.default_rng(0))
    x = gg.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = fn(gg, x), fn(torch, tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, err_msg=name)
    u = np.random.default_rng(1).standard_normal(tuple(ty.shape)) + 2.0
    (y * gg.tensor(u)).sum().backward()
    (ty * torch.tensor(u)).sum().backward()
    want = tx.grad.numpy() if tx.grad is not None else np.zeros_like(a)
    got = x.grad.numpy() if x.grad is not None else np.zeros_like(a)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=name)


def test_maximum_and_minimum_split_the_gradient_at_ties_as_torch():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])
    for name in ("maximum", "minimum"):
        x, y = gg.tensor(a, requires_grad=True), gg.tensor(b, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        getattr(gg, name)(x, y).sum().backward()
        getattr(torch, name)(tx, ty).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
        np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())


def test_pow_with_a_tensor_exponent_masks_as_torch():
    a, e = np.array([0.0, 0.0, 2.0, 3.0]), np.array([2.0, 0.0, 0.0, 1.5])
    x, y = gg.tensor(a, requires_grad=True), gg.tensor(e, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(e, requires_grad=True)
    (x ** y).sum().backward()
    (tx ** ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)


def test_clamp_with_tensor_bounds_sends_the_gradient_to_the_bound_selected():
    skip_if_changed_in_2_14(torch, "clamp's gradient at its bounds (0 there)")
    a, lo, hi = np.array([0.0, 1.0, 2.0, 5.0]), np.array([0.0, 1.5, 2.0, 0.0]), np.array([1.0, 3.0, 3.0, 4.0])
    xs = [gg.tensor(v, requires_grad=True) for v in (a, lo, hi)]
    ts = [torch.tensor(v, requires_grad=True) for v in (a, lo, hi)]
    gg.clamp(*xs).sum().backward()
    torch.clamp(*ts).sum().backward()
    for g, t in zip(xs, ts):
        np.testing.assert_array_equal(g.grad.detach().numpy(), t.grad.detach().numpy())


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_targets_of_uint8_work_and_int32_are_refused_as_in_torch(loss):
    z = np.random.default_rng(0).standard_normal((4, 3))
    y = np.array([0, 2, 1, 2], dtype=np.uint8)
    got = getattr(gg.nn.functional, loss)(gg.tensor(z), gg.tensor(y))
    want = getattr(torch.nn.functional, loss)(torch.tensor(z), torch.tensor(y))
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, loss)(torch.tensor(z), torch.tensor(y.astype(np.int32)))
    with pytest.raises(gg.DTypeError, match="int64 \\(or uint8\\)"):
        getattr(gg.nn.functional, loss)(gg.tensor(z), y.astype(np.int32))
