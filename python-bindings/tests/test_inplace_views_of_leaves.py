"""An in-place view op (squeeze_, unsqueeze_, t_, transpose_, ...) on a view of a leaf that requires
grad raises PyTorch's RuntimeError under grad mode, as a write through such a view does; under
no_grad, or on a view of a computed tensor, it changes the view's shape."""
import pytest

import glassgrad as gg

_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."

_VIEW_OPS = {
    "x[None].squeeze_()": lambda x: x[None].squeeze_(),
    "x[:1].t_()": lambda x: x[:1].t_(),
    "x.view(6).unsqueeze_(0)": lambda x: x.view(6).unsqueeze_(0),
    "x.t().transpose_(0, 1)": lambda x: x.t().transpose_(0, 1),
    "x[0, :].unsqueeze_(1)": lambda x: x[0, :].unsqueeze_(1),
}


@pytest.mark.parametrize("name", list(_VIEW_OPS))
def test_view_of_a_leaf_refuses_an_in_place_view_op(name):
    x = gg.ones(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_MESSAGE.replace(".", r"\.")):
        _VIEW_OPS[name](x)
    assert list(x.shape) == [3, 2]


@pytest.mark.parametrize("name", list(_VIEW_OPS))
def test_allowed_under_no_grad_and_on_views_of_computed_tensors(name):
    x = gg.ones(3, 2, requires_grad=True)
    with gg.no_grad():
        _VIEW_OPS[name](x)
    y = x * 2
    v = _VIEW_OPS[name](y)
    v.sum().backward()
    assert x.grad.sum().item() == 2.0 * v.numel()  # each element the view holds, times 2
    _VIEW_OPS[name](gg.ones(3, 2))  # no gradient wanted: allowed


def test_shape_after_in_place_view_op_on_a_view_of_a_computed_tensor():
    x = gg.ones(3, 2, requires_grad=True)
    v = (x * 1)[None]
    assert v.squeeze_() is v and list(v.shape) == [3, 2]


@pytest.mark.parametrize("name", list(_VIEW_OPS))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (gg, torch):
        x = lib.ones(3, 2, requires_grad=True)
        try:
            _VIEW_OPS[name](x)
            errors.append(None)
        except RuntimeError as e:
            errors.append(str(e).splitlines()[0])
    assert errors[0] == errors[1] == _MESSAGE
