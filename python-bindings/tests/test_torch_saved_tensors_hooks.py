"""The saved_tensors_hooks script of test_saved_tensors_hooks.py run with torch and with
glassgrad: the same calls of the hooks. Skipped when torch is not importable."""
import pytest

import glassgrad as gg
from saved_tensor_hooks_script import run

torch = pytest.importorskip("torch")


def _rounded(v):
    if isinstance(v, float):
        return round(v, 5)
    if isinstance(v, (list, tuple)):
        return type(v)(_rounded(x) for x in v)
    return v


def test_saved_tensors_hooks_match_torch():
    assert _rounded(run(gg)) == _rounded(run(torch))
