"""The dtype a factory infers from its data, and the dtype of a tensor-scalar operation, against
PyTorch's, one table row each: torch.tensor and torch.as_tensor on Python and NumPy scalars,
bools, nested lists mixing ints and floats, NumPy arrays inside lists and empty lists (the
elements' types promote together; a NumPy scalar keeps its dtype there); torch.full, arange and
linspace on the same kinds of numbers (there a NumPy scalar counts as the Python number of its
kind, np.bool_ as a float); and 26 tensor-scalar operations (the operators on either side, in
place too, torch.add/mul/fmod/clamp/where/lerp, add's alpha, full_like, fill_, masked_fill) of a
tensor of every dtype with every kind of number. Values are compared too. Skipped
without torch."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

F64, F32, F16 = np.float64(1.5), np.float32(1.5), np.float16(1.5)
I64, I32, I8, U8, NB = np.int64(2), np.int32(2), np.int8(2), np.uint8(2), np.bool_(True)

# (data, what it shows); the data goes to both libraries as it is
DATA = [
    (1.5, "a Python float: the default float type"),
    (2, "a Python int: int64"),
    (True, "a Python bool: bool"),
    (F64, "a NumPy scalar keeps its dtype"), (F32, ""), (F16, ""), (I32, ""), (np.int16(3), ""), (U8, ""),
    (I64, ""), (NB, ""),
    ([F64, 2], "a NumPy float64 in a list makes the list float64"),
    ([F32, 2.5], ""), ([F16, 2.5], "float16 with a Python float: float32"), ([np.float16(1), 2], "float16 with an int"),
    ([np.float16(1), I64], ""), ([I32, 2], "int32 with a Python int: int64"), ([I32, I32], ""),
    ([U8, I8], "uint8 with int8: int16"), ([I32, 2.5], ""), ([np.int8(1), True], ""), ([U8, 2.5], ""),
    ([F64, F32], ""), ([True, 2], "bool with int: int64"), ([True, 2.5], ""), ([True, False], ""),
    ([], "empty: the default float type"), ([[], []], ""), ((1, 2), "a tuple"), ([[1, 2], [3.5, 4]], "nested"),
    ([[1, 2], [F64, 4]], "a NumPy scalar deep inside"), ([[F64], [2]], ""),
    ([np.array([1., 2.]), np.array([3., 4.])], "NumPy arrays in a list keep their dtype"),
    ([np.array([1, 2], dtype=np.int32), [3, 4]], ""),
    ([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)], ""),
    ([1.5, 2.5], ""), ([1, 2], ""),
]

NUMBERS = [1.5, 2, True, F64, F32, F16, I64, I32, U8, NB]
ARANGE = [(3,), (3.0,), (F64,), (I32,), (I64,), (0, 3, 0.5), (np.float32(0), 3), (True,), (True, 5), (0, True),
          (NB,), (np.float64(0.5), I32)]
LINSPACE = [(0, 1, 3), (np.float64(0), 1, 3), (0, F64, 3), (I32, 4, 3), (True, 5, 3), (0, NB, 3)]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
OPS = {
    "add": lambda t, s, lib: t + s, "sub": lambda t, s, lib: t - s, "mul": lambda t, s, lib: t * s,
    "truediv": lambda t, s, lib: t / s, "radd": lambda t, s, lib: s + t, "rmul": lambda t, s, lib: s * t, "rsub": lambda t, s, lib: s - t,
    "torch.add": lambda t, s, lib: lib.add(t, s), "torch.mul": lambda t, s, lib: lib.mul(t, s),
    "gt": lambda t, s, lib: t > s, "where": lambda t, s, lib: lib.where(t > 0, t, s),
    "pow": lambda t, s, lib: t ** s, "rpow": lambda t, s, lib: s ** t, "floordiv": lambda t, s, lib: t // s,
    "mod": lambda t, s, lib: t % s, "rtruediv": lambda t, s, lib: s / t, "eq": lambda t, s, lib: t == s,
    "fmod": lambda t, s, lib: lib.fmod(t, s), "clamp": lambda t, s, lib: lib.clamp(t, min=s),
    "full_like": lambda t, s, lib: lib.full_like(t, s), "masked_fill": lambda t, s, lib: t.masked_fill(t > 0, s),
    "fill_": lambda t, s, lib: t.clone().fill_(s), "iadd": lambda t, s, lib: _in_place(t, s, "__iadd__"),
    "imul": lambda t, s, lib: _in_place(t, s, "__imul__"), "add alpha": lambda t, s, lib: lib.add(t, t, alpha=s),
    "lerp weight": lambda t, s, lib: lib.lerp(t.float(), t.float() * 2, s),
}


def _in_place(t, s, method):
    t = t.clone()
    return getattr(t, method)(s)


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _outcome(fn):
    """('ok', dtype name, values) or ('refused', '') of fn() (the exception types differ: the
    error tests say which glassgrad raises)."""
    try:
        out = fn()
    except Exception:
        return ("refused", "")
    values = out.detach().numpy() if hasattr(out, "detach") else np.asarray(out)
    return ("ok", _name(out.dtype), values.astype(np.float64).tolist())


def _same(ours, theirs):
    assert ours[:2] == theirs[:2], f"glassgrad {ours[:2]}, torch {theirs[:2]}"
    if ours[0] == "ok":
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-3)


@pytest.mark.parametrize("factory", ["tensor", "as_tensor"])
@pytest.mark.parametrize("data", [d for d, _ in DATA], ids=[f"{i}-{type(d).__name__}" for i, (d, _) in enumerate(DATA)])
def test_factory_infers_torchs_dtype(factory, data):
    _same(_outcome(lambda: getattr(gg, factory)(data)), _outcome(lambda: getattr(torch, factory)(data)))


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("data", [[F32, 2.5], [1.5, 2], [F16, 2.5], 1.5])
def test_default_dtype_takes_part(default, data):
    try:
        gg.set_default_dtype(getattr(gg, default))
        torch.set_default_dtype(getattr(torch, default))
        _same(_outcome(lambda: gg.tensor(data)), _outcome(lambda: torch.tensor(data)))
    finally:
        gg.set_default_dtype(gg.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("value", NUMBERS, ids=repr)
def test_full_infers_torchs_dtype(value):
    _same(_outcome(lambda: gg.full((2,), value)), _outcome(lambda: torch.full((2,), value)))


@pytest.mark.parametrize("args", ARANGE, ids=repr)
def test_arange_infers_torchs_dtype(args):
    _same(_outcome(lambda: gg.arange(*args)), _outcome(lambda: torch.arange(*args)))


@pytest.mark.parametrize("args", LINSPACE, ids=repr)
def test_linspace_infers_torchs_dtype(args):
    _same(_outcome(lambda: gg.linspace(*args)), _outcome(lambda: torch.linspace(*args)))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_scalar_promotion_is_torchs(op, dtype):
    data = np.array([1, 0, 3])
    for s in NUMBERS:
        if (op, dtype) == ("clamp", "bool") and s is True:
            continue  # torch has no bool clamp kernel (it refuses); glassgrad clamps the bools
        ours = _outcome(lambda: OPS[op](gg.tensor(data, dtype=getattr(gg, dtype)), s, gg))
        theirs = _outcome(lambda: OPS[op](torch.tensor(data, dtype=getattr(torch, dtype)), s, torch))
        assert ours[:2] == theirs[:2], f"{dtype} tensor {op} {s!r}: glassgrad {ours[:2]}, torch {theirs[:2]}"
        if ours[0] == "ok":
            np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-3, err_msg=f"{dtype} {op} {s!r}")


def test_numpy_float64_in_a_list_is_float64():
    # the reported case: NumPy scalars keep their dtype in inference
    t = gg.tensor([np.float64(1.5), 2])
    assert t.dtype == gg.float64 and t.tolist() == [1.5, 2.0]


@pytest.mark.parametrize("data", [[1, 2 + 1j], 1 + 2j, [[1.5], [2j]], np.complex64(1)], ids=repr)
def test_complex_data_is_refused_with_the_reason(data):
    # PyTorch makes a complex tensor; glassgrad has no complex dtype and says so
    assert torch.tensor(data).dtype.is_complex
    with pytest.raises(gg.DTypeError, match="complex numbers are not supported"):
        gg.tensor(data)
