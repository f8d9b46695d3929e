"""Convolution layers keep kernel_size, stride, padding, dilation and output_padding tuples of any
length, as PyTorch's _single/_pair/_triple do: nn.Conv1d(c, c, kernel_size=(1, 2)) builds with a
4-d weight (Graph-WaveNet builds its gate convolutions so) and prints as PyTorch's; its call,
and F.conv1d/conv2d/conv3d and the transposed ones given such arguments or a weight of another
rank, raise PyTorch's RuntimeError with its sentence, in PyTorch's order (docs/porting.md)."""
import numpy as np
import pytest

import glassgrad.torch as gtorch

torch = pytest.importorskip("torch")

LAYERS = [
    ("Conv1d", (8, 8), {"kernel_size": (1, 2), "dilation": 2}),
    ("Conv1d", (2, 2), {"kernel_size": (1, 2, 3)}),
    ("Conv1d", (2, 2), {"kernel_size": 3, "stride": (1, 2)}),
    ("Conv1d", (2, 2), {"kernel_size": 3, "padding": (1, 1)}),
    ("Conv2d", (2, 2), {"kernel_size": (1, 2, 3)}),
    ("Conv2d", (2, 2), {"kernel_size": 3, "stride": (1, 2, 3)}),
    ("Conv2d", (2, 2), {"kernel_size": 3, "dilation": (1, 1, 1)}),
    ("Conv3d", (2, 2), {"kernel_size": (1, 2)}),
    ("ConvTranspose1d", (2, 2), {"kernel_size": 3, "stride": (1, 2)}),
    ("ConvTranspose2d", (2, 2), {"kernel_size": (1, 2, 3)}),
]
INPUTS = {"1d": [(3, 2, 13), (3, 2, 5, 13)], "2d": [(1, 2, 5, 5), (2, 5, 5)], "3d": [(1, 2, 5, 5, 5)]}


def _both(fn):
    """fn(torch) and fn(glassgrad.torch): each the result or (the built-in error classes, first line)."""
    out = []
    for fw in (torch, gtorch):
        try:
            out.append(fn(fw))
        except Exception as e:
            out.append(({c for c in type(e).__mro__ if c.__module__ == "builtins"} & {RuntimeError, ValueError,
                                                                                      TypeError},
                        str(e).splitlines()[0]))
    return out


@pytest.mark.parametrize("name,channels,kwargs", LAYERS, ids=lambda v: str(v))
def test_layer_builds_as_pytorchs_and_its_call_refuses_as_pytorchs(name, channels, kwargs):
    built = _both(lambda fw: (str(getattr(fw.nn, name)(*channels, **kwargs)),
                              tuple(getattr(fw.nn, name)(*channels, **kwargs).weight.shape)))
    assert built[1] == built[0]
    for shape in INPUTS[name[-2:]]:
        x = np.random.default_rng(0).standard_normal(shape[:1] + (channels[0],) + shape[2:]).astype(np.float32)

        def call(fw):
            fw.manual_seed(0)
            return tuple(getattr(fw.nn, name)(*channels, **kwargs)(fw.from_numpy(x)).shape)
        theirs, ours = _both(call)
        assert ours[0] <= {RuntimeError, ValueError} and RuntimeError in ours[0], ours
        assert theirs[0] == {RuntimeError} and ours[1] == theirs[1]


FUNCTIONAL = [
    ("conv1d", (3, 8, 13), (8, 8, 1, 2), {}),
    ("conv1d", (3, 2, 13), (2, 2, 3), {"stride": (1, 2)}),
    ("conv2d", (1, 2, 5, 5), (2, 2, 3, 3), {"stride": (1, 2, 3)}),
    ("conv2d", (1, 2, 5, 5), (2, 2, 1, 2, 3), {}),
    ("conv2d", (1, 2, 5, 5), (2, 2, 3), {}),
    ("conv3d", (1, 2, 5, 5, 5), (2, 2, 3, 3), {}),
    ("conv_transpose2d", (1, 2, 5, 5), (2, 2, 3, 3), {"padding": (0, 0, 0)}),
    ("conv_transpose1d", (1, 2, 5), (2, 2, 1, 3), {}),
]


@pytest.mark.parametrize("fn,xs,ws,kwargs", FUNCTIONAL, ids=lambda v: str(v))
def test_functional_refuses_other_lengths_and_ranks_as_pytorch(fn, xs, ws, kwargs):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    theirs, ours = _both(lambda fw: getattr(fw.nn.functional, fn)(fw.from_numpy(x), fw.from_numpy(w), **kwargs))
    assert theirs[0] == {RuntimeError} and RuntimeError in ours[0] and ours[1] == theirs[1]


def test_graph_wavenet_gate_convolution_keeps_its_checkpoint_weight():
    # a 4-d Conv1d weight, as old checkpoints of such models hold it, loads into the layer built alike
    ours = gtorch.nn.Conv1d(4, 4, kernel_size=(1, 2), dilation=2)
    theirs = torch.nn.Conv1d(4, 4, kernel_size=(1, 2), dilation=2)
    ours.load_state_dict({k: gtorch.from_numpy(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    # and a Conv2d of the same weight convolves what the layer would have under PyTorch 1.x
    conv2d = gtorch.nn.Conv2d(4, 4, (1, 2), dilation=2)
    conv2d.load_state_dict(ours.state_dict())
    assert tuple(conv2d(gtorch.zeros(1, 4, 3, 9)).shape) == (1, 4, 3, 7)
