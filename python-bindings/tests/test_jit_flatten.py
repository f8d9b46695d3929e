"""torch.jit._flatten, which export tests use to compare a model's nested outputs with a runtime's
list (DETR's test_all.py: `outputs, _ = torch.jit._flatten(outputs)` on a dict of tensors and lists
of dicts): the tensors in order, numbers as 0-d tensors, strings and None left out, other objects
refused with PyTorch's RuntimeError. Compared with torch where it is installed."""
import numpy as np
import pytest

import glassgrad.torch as gtorch

UNSUPPORTED = "Only tuples, lists and Variables are supported as JIT inputs/outputs"


def _nested(lib):
    a, b, c = (lib.tensor(np.arange(n, dtype=np.float32)) for n in (1, 2, 3))
    return ({"pred": a, "aux": [{"boxes": b, "name": "x"}, {"boxes": c}]}, a * 2, (None, 3, 2.5, True), {7: b})


def _described(tensors):
    return [(str(t.dtype).split(".")[-1], t.tolist()) for t in tensors]


def test_tensors_in_order_numbers_as_0d_tensors():
    tensors, desc = gtorch.jit._flatten(_nested(gtorch))
    assert isinstance(tensors, list) and type(desc).__name__ == "IODescriptor"
    assert _described(tensors) == [("float32", [0.0]), ("float32", [0.0, 1.0]), ("float32", [0.0, 1.0, 2.0]),
                                   ("float32", [0.0]), ("int64", 3), ("float64", 2.5), ("bool", True),
                                   ("int64", 7), ("float32", [0.0, 1.0])]
    first = _nested(gtorch)[0]["pred"]
    assert gtorch.jit._flatten(first)[0][0] is first
    assert gtorch.jit._flatten([])[0] == []


def test_the_same_as_torch():
    torch = pytest.importorskip("torch")
    assert _described(gtorch.jit._flatten(_nested(gtorch))[0]) == _described(torch.jit._flatten(_nested(torch))[0])


def test_other_objects_are_refused_as_pytorch_refuses_them():
    with pytest.raises(RuntimeError, match=f"^{UNSUPPORTED}.*unsupported type: object$"):
        gtorch.jit._flatten((gtorch.ones(1), object()))
