"""NumPy functions run on a tensor (np.clip, np.exp, comparisons) hand back a tensor, through
Tensor.__array_wrap__, as PyTorch's do."""
import warnings

import numpy as np

import glassgrad as gg


def test_numpy_functions_on_a_tensor_hand_back_a_tensor_as_pytorchs_array_wrap_does():
    # PyTorch's Tensor.__array_wrap__: np.clip(t, 0, 1) (a denoising notebook clips its noisy
    # images so, then feeds them to a Conv2d), np.exp(t) and comparisons give CPU tensors back;
    # bool results become uint8; a 0-d tensor stays 0-d.
    t = gg.tensor([-1.0, 0.5, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy 2 warns when __array_wrap__ lacks its arguments
        clipped = np.clip(t, 0.0, 1.0)
        exp = np.exp(t)
        positive = np.greater(t, 0)
        zero_d = np.clip(gg.tensor(3.0), 0, 1)
    assert isinstance(clipped, gg.Tensor) and clipped.tolist() == [0.0, 0.5, 1.0] and clipped.dtype == gg.float32
    np.testing.assert_allclose(exp.numpy(), np.exp([-1.0, 0.5, 2.0]), rtol=1e-6)
    assert positive.dtype == gg.uint8 and positive.tolist() == [0, 1, 1]
    assert zero_d.shape == () and zero_d.item() == 1.0
    assert isinstance(np.asarray(t), np.ndarray)  # asarray still gives the array
