"""Assigning Tensor.grad as PyTorch: None or a tensor like the tensor; other values raise
PyTorch's exception types (TypeError for a number, RuntimeError for another size or dtype)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("value", [0.0, 1, "g", np.zeros(3, np.float32), ("t", (2,)), ("t", (3, 1)),
                                   ("t", (3,)), ("f64", (3,)), ("i64", (3,)), None])
def test_grad_assignment_raises_or_sets_as_torch(value):
    def make(fw):
        if isinstance(value, tuple):
            dtype = {"t": None, "f64": fw.float64, "i64": fw.int64}[value[0]]
            return fw.ones(*value[1], dtype=dtype)
        return value

    outcome = []
    for fw in (torch, gg):
        a = fw.zeros(3, requires_grad=True)
        try:
            a.grad = make(fw)
            outcome.append(None if a.grad is None else np.asarray(a.grad.tolist()))
        except (TypeError, RuntimeError) as e:
            outcome.append(TypeError if isinstance(e, TypeError) else RuntimeError)
    want, got = outcome
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got is want
