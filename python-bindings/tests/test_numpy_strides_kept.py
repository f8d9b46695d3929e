"""A script's NumPy array with positive strides other than row-major keeps them, as PyTorch's
(docs/porting.md, "Creating tensors from data"; glassgrad/_numpy_strides.py): from_numpy and
as_tensor take the array's strides in elements (a transpose's, a slice's gaps, a broadcast's 0),
torch.tensor lays its copy out as clone() does (the order kept, gaps closed). The expected
strides are PyTorch 2.14's for the same arrays."""
import numpy as np
import pytest

import glassgrad as gg

A = np.arange(12, dtype=np.float32).reshape(3, 4)
B = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)


@pytest.mark.parametrize("make, array, strides", [
    (gg.from_numpy, A.T, (1, 4)),
    (gg.from_numpy, A[:, ::2], (4, 2)),
    (gg.from_numpy, A[1:, 1:3], (4, 1)),
    (gg.from_numpy, B, (1, 12, 4)),
    (gg.from_numpy, np.arange(10.0)[::3], (3,)),
    (gg.from_numpy, np.broadcast_to(np.arange(3.0), (2, 3)), (0, 1)),
    (gg.as_tensor, A.T, (1, 4)),
    (gg.as_tensor, B[::2, :, 1:], (2, 12, 4)),
    (lambda a: gg.as_tensor(a, dtype=gg.float64), A.T, (1, 4)),
    (gg.tensor, A.T, (1, 4)),
    (gg.tensor, B, (1, 12, 4)),
    (gg.tensor, A[:, ::2], (2, 1)),
    (gg.tensor, B[::2, :, 1:], (1, 4, 2)),
    (gg.tensor, np.arange(10.0)[::3], (1,)),
    (gg.tensor, np.broadcast_to(np.arange(3.0), (2, 3)), (3, 1)),
], ids=["from_numpy T", "from_numpy gaps", "from_numpy offset", "from_numpy 3-d", "from_numpy 1-d step",
        "from_numpy broadcast", "as_tensor T", "as_tensor 3-d gaps", "as_tensor dtype", "tensor T", "tensor 3-d",
        "tensor gaps", "tensor 3-d gaps", "tensor 1-d step", "tensor broadcast"])
def test_strides_and_values(make, array, strides):
    t = make(array)
    assert t.stride() == strides
    np.testing.assert_array_equal(t.cpu().numpy(), array)
    assert t.is_contiguous() == (strides == tuple(np.ascontiguousarray(array).strides[i] // array.itemsize
                                                  for i in range(array.ndim)))


def test_a_transposed_array_views_as_pytorchs_does():
    t = gg.from_numpy(A.T)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.view(-1)  # as PyTorch's: the transpose is not contiguous
    assert t.reshape(-1).tolist() == A.T.reshape(-1).tolist()
    assert t.contiguous().stride() == (3, 1)


def test_row_major_arrays_and_leaves_requiring_grad_are_row_major():
    assert gg.from_numpy(A).stride() == (4, 1)
    t = gg.tensor(A.T, requires_grad=True)
    assert t.is_leaf and t.stride() == (3, 1)
    (t * 2).sum().backward()
    assert t.grad.tolist() == [[2.0] * 3] * 4


def test_writes_into_the_kept_view_stay_in_the_tensor():
    t = gg.from_numpy(A[:, ::2].copy().T.copy().T)  # a transpose of a copy: the array itself stays unchanged
    t[0, 1] = -1.0
    assert t.tolist()[0][1] == -1.0
    assert t.stride() == (1, 3)
