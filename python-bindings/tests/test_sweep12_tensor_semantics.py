"""Differences from PyTorch a sweep of tensor semantics found (round 12), mended: round(x,
decimals=) of an integer or bool tensor is PyTorch's NotImplementedError for every decimals, 0
too (its overload with decimals has no integer kernel; x.round() keeps integers as they are).
Each case is compared with PyTorch itself. Torch-guarded: CI has no torch."""
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
