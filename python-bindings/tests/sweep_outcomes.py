"""The outcome of one call made with glassgrad and with torch, in a form the two can be compared
by: tensors as (dtype name, shape, values), containers as their type name and items, an error
as the builtin exception class it is (glassgrad's errors derive from PyTorch's builtin ones)."""
import numpy as np


class _Values:
    """A tensor's values, equal to another's within float32 rounding (1e-4), NaN or an infinity where
    the other has it, or, for uint8 images, off by at most 1 in a few pixels (resampling rounds a value
    ending in .5 either way)."""

    def __init__(self, a: np.ndarray, dtype: str):
        self.a, self.uint8 = a, dtype.endswith("uint8")

    def __eq__(self, other) -> bool:
        if not isinstance(other, _Values) or self.a.shape != other.a.shape:
            return False
        with np.errstate(invalid="ignore"):  # inf - inf: NaN, read through `same` below
            d = np.abs(self.a - other.a)
        if self.uint8 and d.size and d.max() <= 1:
            return bool(d.mean() < 0.02)
        same = (self.a == other.a) | (np.isnan(self.a) & np.isnan(other.a))  # infinities and NaN
        return bool(np.all((d <= 1e-4 * np.maximum(1, np.abs(self.a))) | same))

    def __repr__(self) -> str:
        return repr(self.a.tolist())


def plain(x):
    """x with tensors, arrays and containers replaced by comparable tuples."""
    if hasattr(x, "dtype") and hasattr(x, "shape") and hasattr(x, "detach"):
        a = x.detach().cpu().numpy()
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), _Values(a.astype(np.float64), str(x.dtype)))
    if hasattr(x, "getbands"):  # a PIL image
        a = np.asarray(x)
        return ("PIL", x.mode, x.size, _Values(a.astype(np.float64), str(a.dtype)))
    if isinstance(x, np.ndarray):
        return ("array", str(x.dtype), x.shape, x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, [plain(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    if isinstance(x, float):
        return round(x, 5)
    return x


def outcome(fn, module):
    """("ok", plain result) or ("raised", the first builtin class of the exception's MRO, the exception)."""
    try:
        return ("ok", plain(fn(module)))
    except Exception as e:  # the exception is the outcome compared
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return ("raised", builtin, e)


def assert_same_outcome(fn, glassgrad_module, torch_module):
    """fn(glassgrad) behaves as fn(torch): equal results, or an exception that is an instance of
    the builtin class torch's is."""
    want = outcome(fn, torch_module)
    got = outcome(fn, glassgrad_module)
    if want[0] == "raised":
        assert got[0] == "raised", f"torch raised {want[1].__name__}: {want[2]}; glassgrad returned {got[1]}"
        assert isinstance(got[2], want[1]), f"torch raised {want[1].__name__}: {want[2]}; glassgrad {got[2]!r}"
        return
    assert got[0] == "ok", f"torch returned {want[1]}; glassgrad raised {got[2]!r}"
    assert got[1] == want[1]
