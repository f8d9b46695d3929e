"""The pieces of torch.unsafe_split, unsafe_chunk and unsafe_split_with_sizes record PyTorch's nodes
(Tensor.grad_fn) UnsafeSplitBackward0 and UnsafeSplitWithSizesBackward0, not split's, and stay free
to be modified in place; their gradients are split's. The names are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("call,node", [
    (lambda x: gg.unsafe_split(x, 3, 1), "UnsafeSplitBackward0"),
    (lambda x: x.unsafe_split(2, 1), "UnsafeSplitBackward0"),
    (lambda x: gg.unsafe_chunk(x, 3, 1), "UnsafeSplitBackward0"),
    (lambda x: gg.unsafe_split(x, [2, 4], 1), "UnsafeSplitWithSizesBackward0"),
    (lambda x: gg.unsafe_split_with_sizes(x, [1, 5], 1), "UnsafeSplitWithSizesBackward0"),
    (lambda x: gg.split(x, 3, 1), "SplitBackward0"),
    (lambda x: gg.chunk(x, 2, 1), "SplitBackward0"),
])
def test_each_piece_records_torch_s_node(call, node):
    x = gg.ones(4, 6, requires_grad=True)
    pieces = call(x)
    assert [type(p.grad_fn).__name__ for p in pieces] == [node] * len(pieces)


def test_unsafe_pieces_may_be_modified_in_place_and_pass_gradients():
    x = gg.ones(2, 4, requires_grad=True)
    a, b = gg.unsafe_chunk(x * 1, 2, 1)
    a.mul_(3)
    (a.sum() + 2 * b.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 3, 2, 2], [3, 3, 2, 2]])
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        gg.chunk(x * 1, 2, 1)[0].mul_(3)
