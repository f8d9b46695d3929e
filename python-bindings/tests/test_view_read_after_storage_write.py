"""A view read after its storage was written in place and an op computed from the view: the
view's own value is computed after the plan that wrote the storage (realize.cpp, views_after),
whose nodes are no longer in flight then. Reading it raised "cannot compute a tensor ... now: the
plan that computes it is running"."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("index", ["slice", "int"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_view_read_after_write_and_op(index, requires_grad):
    x = gg.ones(4, requires_grad=requires_grad)
    with gg.no_grad():
        v = x[0:1] if index == "slice" else x[0]
        x.mul_(5)
    w = v * 2
    assert v.tolist() == ([5.0] if index == "slice" else 5.0)
    assert w.tolist() == ([10.0] if index == "slice" else 10.0)


def test_view_read_after_write_without_no_grad():
    x = gg.arange(4.0)
    v = x[1:3]
    x.add_(1)
    w = v.exp()
    assert v.tolist() == [2.0, 3.0]
    assert w.tolist() == pytest.approx([7.389056, 20.085537])
