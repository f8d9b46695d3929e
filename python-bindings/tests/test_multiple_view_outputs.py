"""The views of a function returning several views (split, split_with_sizes, chunk, unbind, and
iterating a tensor) refuse in-place ops under grad mode when they require grad, with PyTorch's
RuntimeError 'Output <i> of <Op>Backward0 is a view and is being modified inplace. ...' (the
reference versions' wording; PyTorch 2.14 names the op without Backward0); tensor_split, the
unsafe_ spellings, no_grad, .data and tensors that need no gradient allow them."""
import os
import sys

import pytest

import glassgrad as gg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_versions import skip_if_changed_in_2_14

_REFUSED = {
    "split": (lambda y: y.split(2)[0].mul_(2), "Output 0 of SplitBackward0 "),
    "split with sizes": (lambda y: y.split([1, 3])[0].mul_(2), "Output 0 of SplitWithSizesBackward0 "),
    "chunk": (lambda y: y.chunk(2)[1].add_(1), "Output 1 of SplitBackward0 "),
    "unbind": (lambda y: y.unbind(1)[2].zero_(), "Output 2 of UnbindBackward0 "),
    "torch.split": (lambda y: gg.split(y, 2)[1].mul_(2), "Output 1 of SplitBackward0 "),
    "one piece": (lambda y: y.split(4)[0].mul_(2), "Output 0 of SplitBackward0 "),
    "copy_": (lambda y: y.split(2)[0].copy_(y.split(2)[1]), "Output 0 of SplitBackward0 "),
    "unsqueeze_": (lambda y: y.split(2)[0].unsqueeze_(0), "Output 0 of SplitBackward0 "),
    "iteration": (lambda y: [row.mul_(2) for row in y], "Output 0 of UnbindBackward0 "),
}
_MESSAGE = ("is a view and is being modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one.")


def _y(lib=gg):
    return lib.ones(4, 4, requires_grad=True) * 1


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused_under_grad_mode(name):
    f, head = _REFUSED[name]
    with pytest.raises(RuntimeError) as e:
        f(_y())
    assert str(e.value).splitlines()[0] == head + _MESSAGE


def test_leaf_pieces_refused_too():
    x = gg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="Output 0 of SplitBackward0 is a view"):
        x.split(2)[0].mul_(2)


@pytest.mark.parametrize("allowed", ["tensor_split", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes",
                                     "no_grad", "data", "no gradient", "out of place"])
def test_allowed(allowed):
    y = _y()
    if allowed == "tensor_split":
        y.tensor_split(2)[0].mul_(2)
    elif allowed == "unsafe_split":
        y.unsafe_split(2)[0].mul_(2)
    elif allowed == "unsafe_chunk":
        y.unsafe_chunk(2)[0].mul_(2)
    elif allowed == "unsafe_split_with_sizes":
        y.unsafe_split_with_sizes([2, 2])[0].mul_(2)
    elif allowed == "no_grad":
        a = y.split(2)[0]
        with gg.no_grad():
            a.mul_(2)
    elif allowed == "data":
        y.split(2)[0].data.mul_(2)
    elif allowed == "no gradient":
        y = gg.ones(4, 4)
        y.split(2)[0].mul_(2)
    else:
        a = y.split(2)[0] * 2
        assert a.sum().item() == 16.0
        return
    assert y.sum().item() == 24.0  # the first two rows doubled through the view


@pytest.mark.parametrize("name", list(_REFUSED))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    skip_if_changed_in_2_14(torch, "the op's name in the multiple-views error (Split, not SplitBackward0)")
    f, head = _REFUSED[name]
    f = {"torch.split": lambda y: torch.split(y, 2)[1].mul_(2)}.get(name, f)
    with pytest.raises(RuntimeError) as e:
        f(_y(torch))
    assert str(e.value).splitlines()[0] == head + _MESSAGE
