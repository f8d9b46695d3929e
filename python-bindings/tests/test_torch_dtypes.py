"""The storage types (int8, int16, int32, float16, bfloat16) against PyTorch: reductions, scans,
sorting, indexing and shape functions of every dtype give torch's dtypes and values; casts between
every pair of dtypes, bfloat16 included, give torch's bits; gg.tensor keeps a NumPy array's dtype
as torch.tensor does; index tensors of int32 work where torch takes them; the dtype methods and
names. (Promotion of the operators over every pair is in test_torch_surface.py.) Skipped without
torch; tools/torch_differential.sh runs it where torch is installed."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _tensor(lib, values, dtype):
    """lib.tensor of values in dtype (bfloat16 through float32: NumPy has none)."""
    if dtype in ("float16", "bfloat16"):
        return lib.tensor(np.asarray(values, dtype=np.float32)).to(getattr(lib, dtype))
    return lib.tensor(np.asarray(values, dtype=dtype))


def _values(t):
    return (t.float() if str(t.dtype).endswith("bfloat16") else t).detach().numpy()


def _outcome(fn, x):
    try:
        out = fn(x)
    except (RuntimeError, TypeError, ValueError, NotImplementedError, gg.GlassgradError) as e:
        return ("error", type(e).__name__)
    outs = out if isinstance(out, tuple) else (out,)
    return ("ok", [str(o.dtype).split(".")[-1] for o in outs], [_values(o) for o in outs])


FUNCTIONS = {
    "sum": lambda x: x.sum(), "sum(1)": lambda x: x.sum(1), "prod": lambda x: x.prod(), "prod(0)": lambda x: x.prod(0),
    "max": lambda x: x.max(), "min": lambda x: x.min(), "max(1)": lambda x: tuple(x.max(1)),
    "amax(0)": lambda x: x.amax(0), "argmax": lambda x: x.argmax(), "argmin(1)": lambda x: x.argmin(1),
    "mean": lambda x: x.mean(), "cumsum(1)": lambda x: x.cumsum(1), "cumprod(0)": lambda x: x.cumprod(0),
    "sort(1)": lambda x: tuple(x.sort(1)), "topk(2)": lambda x: tuple(x.topk(2)),
    "x[1]": lambda x: x[1], "x[:, ::2]": lambda x: x[:, ::2], "t()": lambda x: x.t().contiguous(),
    "reshape": lambda x: x.reshape(3, 2), "flip": lambda x: x.flip(1), "abs": lambda x: x.abs(),
    "clamp(1, 3)": lambda x: x.clamp(1, 3), "x > 1": lambda x: x > 1, "where": lambda x: x.where(x > 1, x),
    "eq": lambda x: x.eq(x), "neg": lambda x: -x, "square": lambda x: x * x,
}
# Two rows with values every type holds, sums that wrap around in int8 only via products; then
# each type's extremes (negating int8's -128 wraps, so a min computed as -max(-x) would be wrong)
# and, for the floats, fractions (a sort must not truncate them).
DATA = [[3, 1, 2], [0, 5, 4]]
EXTREMES = {"uint8": [0, 255], "int8": [-128, 127], "int16": [-32768, 32767], "int32": [-2 ** 31, 2 ** 31 - 1],
            "float16": [-0.75, 2.5], "bfloat16": [-0.75, 2.5], "float32": [-0.75, 2.5], "float64": [-0.75, 2.5]}


def _data(dt):
    lo, hi = EXTREMES.get(dt, [0, 1])
    return [[lo, hi, 0], [hi, 1, lo]]


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("data", ["small", "extremes"])
def test_functions_of_every_dtype_give_torchs_dtypes_and_values(name, data):
    fn, problems = FUNCTIONS[name], []
    for dt in DTYPES:
        values = DATA if data == "small" else _data(dt)
        if data == "extremes" and dt == "int32" and name in ("square", "prod", "prod(0)", "cumprod(0)"):
            continue  # int32 products past int64: PyTorch's int64 accumulator overflows too (undefined in C)
        want = _outcome(fn, _tensor(torch, values, dt))
        got = _outcome(fn, _tensor(gg, values, dt))
        if want[0] == "error" or got[0] == "error":
            if want[0] != got[0] and not (dt == "bool" and name in ("argmax", "argmin(1)", "topk(2)")):
                problems.append(f"{name} of {dt}: glassgrad {got}, torch {want}")
            continue
        if got[1] != want[1]:
            problems.append(f"{name} of {dt}: dtypes {got[1]}, torch's {want[1]}")
            continue
        for g, w in zip(got[2], want[2]):
            if not np.array_equal(g.astype(np.float64), w.astype(np.float64)):
                problems.append(f"{name} of {dt}: {g.tolist()}, torch {w.tolist()}")
    assert not problems, "\n".join(problems)


def _bits(t):
    """Each element's stored value, comparable across libraries (bfloat16 exactly as float32)."""
    return _values(t).astype(np.float64)


@pytest.mark.parametrize("source", DTYPES)
def test_casts_between_every_pair_give_torchs_values(source):
    rng = np.random.default_rng(3)
    if source == "bool":
        data = rng.random(64) < 0.5
    elif source in ("float16", "bfloat16", "float32", "float64"):
        data = rng.uniform(-300, 300, 64)  # finite: float -> int of NaN/inf is undefined in C
    else:
        info = np.iinfo(source)
        data = rng.integers(info.min, info.max, 64, endpoint=True, dtype=np.int64)
    # the source tensor: made in float64 or int64 and cast in torch, then given to both libraries
    t = torch.tensor(data).to(getattr(torch, source))
    g = gg.tensor(_values(t) if source != "bfloat16" else t.float().numpy()).to(gg.bfloat16) \
        if source == "bfloat16" else gg.tensor(t.numpy())
    assert g.dtype == source
    for target in DTYPES:
        if source in ("float16", "bfloat16", "float32", "float64") and target in ("uint8",):
            continue  # a negative float into uint8 is undefined in C; PyTorch's result varies by platform
        want, got = t.to(getattr(torch, target)), g.to(getattr(gg, target))
        assert got.dtype == target
        np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{source} -> {target}")


def test_rounding_into_float16_and_bfloat16_is_to_nearest_even_as_torchs():
    # ties, the largest finite values, overflow to infinity, subnormals, NaN
    x = np.array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 65504, 65519.99, 65520, -65520, 2 ** -24, 2 ** -25,
                  3 * 2 ** -25, 1e-30, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.3895314e38, np.inf, np.nan], dtype=np.float32)
    for dt in ("float16", "bfloat16"):
        want = torch.tensor(x).to(getattr(torch, dt)).float().numpy()
        got = gg.tensor(x).to(getattr(gg, dt)).float().numpy()
        np.testing.assert_array_equal(got, want, err_msg=dt)


@pytest.mark.parametrize("np_dtype", ["int8", "int16", "int32", "int64", "uint8", "bool", "float16", "float32",
                                      "float64"])
def test_tensor_keeps_a_numpy_arrays_dtype_as_torch(np_dtype):
    a = np.arange(6).reshape(2, 3).astype(np_dtype)
    assert gg.tensor(a).dtype == str(torch.tensor(a).dtype).split(".")[-1]
    assert gg.tensor(a).numpy().dtype == a.dtype


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_int32_and_int64_index_tensors_work_as_in_torch(index_dtype):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    i = np.array([2, 0, 2], dtype=index_dtype)
    gx, tx = gg.tensor(x), torch.tensor(x)
    gi, ti = gg.tensor(i), torch.tensor(i)
    cases = {
        "index_select": (lambda a, j: a.index_select(0, j)),
        "gather": (lambda a, j: a.gather(0, j.reshape(1, 3))),
        "x[idx]": (lambda a, j: a[j]),
        "scatter_add": (lambda a, j: a.scatter_add(0, j.reshape(1, 3), a[:1])),
        "index_add": (lambda a, j: a.index_add(0, j, a[:3])),
    }
    for name, fn in cases.items():
        np.testing.assert_array_equal(fn(gx, gi).numpy(), fn(tx, ti).numpy(), err_msg=name)
    for name, fn in cases.items():  # and other integer types are refused by both
        with pytest.raises(RuntimeError if name != "x[idx]" else IndexError):
            fn(tx, ti.to(torch.int16))
        if name == "x[idx]":  # PyTorch's IndexError and message for a subscript
            with pytest.raises(IndexError, match="must be long, int, byte or bool tensors"):
                fn(gx, gi.to(gg.int16))
        else:
            with pytest.raises(gg.DTypeError, match="int64 or int32"):
                fn(gx, gi.to(gg.int16))
    emb = np.random.default_rng(0).standard_normal((5, 2)).astype(np.float32)
    np.testing.assert_array_equal(gg.nn.functional.embedding(gi, gg.tensor(emb)).numpy(),
                                  torch.nn.functional.embedding(ti, torch.tensor(emb)).numpy())


@pytest.mark.parametrize("method,dtype", [("int", "int32"), ("short", "int16"), ("char", "int8"), ("half", "float16"),
                                          ("bfloat16", "bfloat16"), ("byte", "uint8"), ("long", "int64")])
def test_conversion_methods_names_and_sizes_are_torchs(method, dtype):
    g, t = getattr(gg.tensor([1.5, -2.0]), method)(), getattr(torch.tensor([1.5, -2.0]), method)()
    assert g.dtype == dtype == str(t.dtype).split(".")[-1]
    assert g.element_size() == t.element_size()
    assert g.is_floating_point() == t.is_floating_point()
    assert g.type() == t.type().replace("torch.", "glassgrad.")
    np.testing.assert_array_equal(_values(g), _values(t))
    assert getattr(gg, dtype) == g.dtype and getattr(gg, dtype).itemsize == getattr(torch, dtype).itemsize


def test_the_short_names_are_torchs():
    for name in ("int", "short", "half", "long", "float", "double", "int8", "int16", "int32", "float16", "bfloat16"):
        assert str(getattr(gg, name)) == str(getattr(torch, name)).replace("torch.", "glassgrad."), name


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_print_as_torchs_with_glassgrads_module_name(dtype):
    ours, theirs = getattr(gg, dtype), getattr(torch, dtype)
    for show in (str, repr, "{}".format, lambda d: "%s" % d):
        assert show(ours) == show(theirs).replace("torch.", "glassgrad.")
    t = _tensor(torch, [1, 0, 1], dtype)
    g = _tensor(gg, [1, 0, 1], dtype)
    assert f"{g.dtype}" == f"{t.dtype}".replace("torch.", "glassgrad.")
    assert repr(g) == repr(t).replace("torch.", "glassgrad.")


def test_integer_tensors_refuse_requires_grad_as_torch():
    for dt in ("int8", "int16", "int32"):
        with pytest.raises(RuntimeError):
            torch.zeros(2, dtype=getattr(torch, dt), requires_grad=True)
        with pytest.raises(gg.DTypeError, match="Only Tensors of floating point and complex dtype can require gradients"):
            gg.zeros(2, dtype=getattr(gg, dt), requires_grad=True)


def test_bfloat16_numpy_is_refused_as_torch_with_the_fix():
    with pytest.raises(TypeError):
        torch.zeros(2, dtype=torch.bfloat16).numpy()
    with pytest.raises(TypeError, match=r"(?s)bfloat16.*fix: convert first: x\.float\(\)\.numpy\(\)"):
        gg.zeros(2, dtype=gg.bfloat16).numpy()
    assert gg.zeros(2, dtype=gg.bfloat16).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_finfo_and_iinfo_are_torchs(dtype):
    if dtype == "bool":
        return
    floating = dtype in ("float16", "bfloat16", "float32", "float64")
    mine, theirs = (gg.finfo, torch.finfo) if floating else (gg.iinfo, torch.iinfo)
    got, want = mine(getattr(gg, dtype)), theirs(getattr(torch, dtype))
    names = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution") if floating else ("bits", "max", "min")
    for name in names:
        assert getattr(got, name) == getattr(want, name), f"{dtype}.{name}"
    assert repr(got) == repr(want)
    with pytest.raises(TypeError):
        (gg.iinfo if floating else gg.finfo)(getattr(gg, dtype))
    x = _tensor(gg, [np.inf, -np.inf, np.nan], dtype) if floating else None
    if x is not None:  # nan_to_num's defaults are the dtype's limits
        want_n = torch.nan_to_num(_tensor(torch, [np.inf, -np.inf, np.nan], dtype))
        np.testing.assert_array_equal(_values(gg.nan_to_num(x)), _values(want_n))


def test_checkpoints_hold_the_storage_types_as_torch_reads_them(tmp_path):
    saved = {"i8": gg.tensor([1, -2], dtype=gg.int8), "i16": gg.tensor([300, -2], dtype=gg.int16),
             "i32": gg.tensor(np.array([70000, -3], np.int32)), "f16": gg.tensor([1.5, 2.25], dtype=gg.half),
             "bf16": gg.tensor([0.1, 3.0, -1e30], dtype=gg.bfloat16)}
    gg.save(saved, tmp_path / "t.pt")
    loaded = torch.load(tmp_path / "t.pt", map_location="cpu")  # saved on the default device
    for k, t in saved.items():
        assert str(loaded[k].dtype).split(".")[-1] == t.dtype, k
        np.testing.assert_array_equal(_values(loaded[k]), _values(t), err_msg=k)
    back = gg.load(tmp_path / "t.pt")  # tensors of the saved dtypes, as torch.load gives them
    assert back["bf16"].dtype == gg.bfloat16 and back["i32"].dtype == gg.int32
    np.testing.assert_array_equal(_values(back["bf16"]), _values(saved["bf16"]))
    model = gg.nn.Linear(3, 2).bfloat16()
    again = gg.nn.Linear(3, 2).bfloat16()
    again.load_state_dict(model.state_dict())
    assert again.weight.dtype == "bfloat16"
    np.testing.assert_array_equal(_values(again.weight), _values(model.weight))
