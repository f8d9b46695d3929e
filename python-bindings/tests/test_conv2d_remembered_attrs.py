"""F.conv2d remembers a layer's checked attrs by its arguments' identities (functional.py,
_args.remember), with and without PyTorch's operand list for a recorded call without bias
(docs/performance.md): calls that alternate between grad mode and no_grad() with the same
argument objects each get their own, and no call changes what a later one records."""
import numpy as np

import glassgrad as gg
import glassgrad.functional as F
from glassgrad import nn

STRIDE, PADDING = (1, 1), (1, 1)  # the same objects every call, as a layer's


def _conv(x, w, b=None):
    return F.conv2d(x, w, b, STRIDE, PADDING)


def test_alternating_grad_modes_keep_their_own_attrs():
    x = gg.ones(1, 2, 5, 5)
    w = gg.ones(3, 2, 3, 3, requires_grad=True)
    for _ in range(2):
        with gg.no_grad():
            y = _conv(x, w)
        assert y.grad_fn is None
        assert y._h.producer_attr("torch_operands") is None  # no operand list outside a recorded call
        y = _conv(x, w)
        assert y.grad_fn.name() == "ConvolutionBackward0"
        assert [n is None for n, _ in y.grad_fn.next_functions] == [True, False, True]  # input, weight, bias


def test_a_bias_call_between_keeps_three_operands():
    x = gg.ones(1, 2, 5, 5, requires_grad=True)
    w = gg.ones(3, 2, 3, 3, requires_grad=True)
    b = gg.zeros(3, requires_grad=True)
    _conv(x, w)
    node = _conv(x, w, b).grad_fn
    assert [n.variable is t for (n, _), t in zip(node.next_functions, (x, w, b))] == [True, True, True]
    assert _conv(x, w).grad_fn.next_functions[2] == (None, 0)


def test_the_remembered_attrs_are_not_changed_by_calls():
    layer = nn.Conv2d(2, 3, 3, padding=1, bias=False)
    x = gg.tensor(np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5))
    with gg.no_grad():
        before = layer(x).numpy()
    layer(x).sum().backward()
    with gg.no_grad():
        after = layer(x)
    assert after._h.producer_attr("torch_operands") is None
    np.testing.assert_array_equal(after.numpy(), before)
    assert layer.weight.grad.shape == (3, 2, 3, 3)
