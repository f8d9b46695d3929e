"""A convolution given an input of the wrong rank raises PyTorch's error: a RuntimeError (glassgrad's
ShapeError) whose first line is PyTorch's "Expected 3D (unbatched) or 4D (batched) input to conv2d,
but got input of size: [3, 3]", for the functions and the layers, 1-d, 2-d and 3-d, transposed or not."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

# (function, weight shape, spatial dims, layer class)
KINDS = [("conv1d", (1, 1, 2), 1, "Conv1d"), ("conv2d", (1, 1, 2, 2), 2, "Conv2d"),
         ("conv3d", (1, 1, 2, 2, 2), 3, "Conv3d"), ("conv_transpose1d", (1, 1, 2), 1, "ConvTranspose1d"),
         ("conv_transpose2d", (1, 1, 2, 2), 2, "ConvTranspose2d"),
         ("conv_transpose3d", (1, 1, 2, 2, 2), 3, "ConvTranspose3d")]


def _first_line(call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert isinstance(info.value, gg.ShapeError)
    return str(info.value).splitlines()[0]


def _expected(name, spatial, shape):
    return (f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got input of "
            f"size: {list(shape)}")


@pytest.mark.parametrize("name,weight,spatial,layer", KINDS)
@pytest.mark.parametrize("extra", [-1, 2])  # one dimension short of unbatched, one past batched
def test_function_and_layer_errors_read_as_torchs(name, weight, spatial, layer, extra):
    shape = (1,) * (spatial + extra) + (3,) * spatial if extra > 0 else (3,) * spatial
    x = gg.tensor(np.zeros(shape, np.float32))
    w = gg.tensor(np.zeros(weight, np.float32))
    assert _first_line(lambda: getattr(F, name)(x, w)) == _expected(name, spatial, shape)
    assert _first_line(lambda: getattr(gg.nn, layer)(1, 1, 2)(x)) == _expected(name, spatial, shape)


def test_flattened_images_get_a_cause_and_a_fix():
    with pytest.raises(RuntimeError) as info:
        gg.nn.Conv2d(1, 4, 3)(gg.zeros(8, 784))
    msg = str(info.value)
    assert "flattened samples" in msg and "fix: give (N, C_in, H, W) or one sample (C_in, H, W)" in msg


@pytest.mark.parametrize("shape", [(1, 4, 4), (2, 1, 4, 4)])
def test_the_accepted_ranks_still_run(shape):
    y = gg.nn.Conv2d(1, 2, 3)(gg.zeros(*shape))
    assert tuple(y.shape) == shape[:-3] + (2, 2, 2)


def test_as_torch():
    torch = pytest.importorskip("torch")
    for name, weight, spatial, _ in KINDS:
        shape = (3,) * spatial
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch.nn.functional, name)(torch.zeros(shape), torch.zeros(weight))
        ours = _first_line(lambda: getattr(F, name)(gg.zeros(*shape), gg.zeros(*weight)))
        assert ours == str(theirs.value).splitlines()[0]
