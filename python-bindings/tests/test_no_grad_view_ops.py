"""Ops on a view made under no_grad() of a tensor that requires grad (docs/inplace-and-views.md,
"Views made under no_grad"): the view is a leaf without grad_fn, what is computed from it outside
the block requires grad and has a grad_fn, and backward through it reaches neither the view nor
its base. Expected values are PyTorch's (test_torch_no_grad_view_ops.py compares with torch)."""
import pytest

import glassgrad as gg
from no_grad_views_script import record


def test_ops_on_no_grad_views_as_pytorch():
    assert record(gg) == {
        "view": (True, True, None),
        "computed": (True, False, "MulBackward0"),
        "after_backward": (None, None),
        "view_of_view_outside": (True, False, "TBackward0"),
        "view_of_computed": (True, True, None),
        "grad_wrt_view": "The differentiated Tensor at index 0 appears to not have been used in the graph",
        "grad_wrt_view_unused": (None,),
        "requires_grad_off": True,
        "requires_grad_on": ([2.0, 2.0], None),
        "element": (True, True, True, "MulBackward0"),
        "view_of_detached": (False, False),
    }


def test_the_other_path_still_reaches_the_base():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    with gg.no_grad():
        v = x.view(2)
    (v * 10 + x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_in_place_on_the_view_under_grad_mode_still_raises():
    x = gg.ones(4, requires_grad=True)
    with gg.no_grad():
        v = x[:2]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v.mul_(2)


def test_write_through_the_view_under_no_grad_then_ops():
    x = gg.ones(4, requires_grad=True)
    with gg.no_grad():
        v = x[:2]
        v.mul_(3)
    w = v * 2
    assert x.tolist() == [3.0, 3.0, 1.0, 1.0] and w.tolist() == [6.0, 6.0]
    assert w.requires_grad and v.is_leaf and v.grad_fn is None
    w.sum().backward()
    assert x.grad is None


def test_a_computed_tensor_with_no_grad_view_requires_grad_for_backward():
    # PyTorch's backward from it runs (no "does not require grad" error) and fills no .grad
    lin = gg.nn.Linear(3, 2)
    with gg.no_grad():
        w_t = lin.weight.t()
    loss = (gg.ones(1, 3) @ w_t.t().t()).sum()
    loss.backward()
    assert lin.weight.grad is None
