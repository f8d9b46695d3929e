"""glassgrad.nn against torch.nn on the input forms PyTorch documents besides the batched one:
adaptive pooling of an unbatched (C, *) input for every output size (divisible, not divisible,
None keeping an axis), and cross_entropy's class-index targets, refused at the call when one is
out of range, as PyTorch's CPU kernels refuse them. Values and input gradients in float64 and
float32. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)

# (layer, spatial size of the input, output_size)
ADAPTIVE = [
    ("AdaptiveAvgPool1d", (7,), 3), ("AdaptiveAvgPool1d", (6,), 3),
    ("AdaptiveAvgPool2d", (7, 6), 3), ("AdaptiveAvgPool2d", (6, 6), 3), ("AdaptiveAvgPool2d", (7, 6), (7, 3)),
    ("AdaptiveAvgPool2d", (7, 6), (None, 2)), ("AdaptiveAvgPool2d", (7, 6), 1), ("AdaptiveAvgPool2d", (5, 4), (8, 9)),
    ("AdaptiveAvgPool3d", (5, 4, 3), 2), ("AdaptiveAvgPool3d", (4, 4, 2), (2, None, 1)),
    ("AdaptiveMaxPool1d", (7,), 3), ("AdaptiveMaxPool2d", (7, 6), (3, None)), ("AdaptiveMaxPool3d", (5, 4, 3), 2),
]


def _forward_backward(lib, layer, x, dtype, batched):
    t = lib.tensor(x if batched else x[0], dtype=dtype, requires_grad=True)
    y = layer(t)
    w = lib.tensor(np.linspace(-1.0, 1.0, int(np.prod(y.shape))).reshape(tuple(y.shape)), dtype=dtype)
    (y * w).sum().backward()
    return y.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("batched", [False, True], ids=["unbatched", "batched"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,spatial,output_size", ADAPTIVE, ids=[f"{n}-{s}-{o}" for n, s, o in ADAPTIVE])
def test_adaptive_pooling_matches_torch_with_and_without_a_batch_axis(name, spatial, output_size, dtype, batched):
    x = rng.standard_normal((2, 3) + spatial)
    got = _forward_backward(gg, getattr(gg.nn, name)(output_size), x, getattr(gg, dtype), batched)
    want = _forward_backward(torch, getattr(torch.nn, name)(output_size), x, getattr(torch, dtype), batched)
    tol = 1e-12 if dtype == "float64" else 1e-5
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("functional", [False, True], ids=["CrossEntropyLoss", "F.cross_entropy"])
@pytest.mark.parametrize("labels,kwargs", [([1, 5, 0], {}), ([1, -3, 0], {}), ([1, -1, 0], {"ignore_index": -2}),
                                           ([[1], [7], [0]], {}), ([2, 6, 1], {"label_smoothing": 0.1})])
def test_cross_entropy_refuses_an_out_of_range_target_at_the_call_as_torch(labels, kwargs, functional):
    x = rng.standard_normal((3, 5) + ((1,) if np.ndim(labels) == 2 else ()))
    for lib in (torch, gg):
        logits = lib.tensor(x, requires_grad=True)
        target = lib.tensor(np.array(labels))
        loss = (lambda a, b: lib.nn.functional.cross_entropy(a, b, **kwargs)) if functional else \
            lib.nn.CrossEntropyLoss(**kwargs)
        with pytest.raises(IndexError):
            loss(logits, target)   # the call itself raises, before any value is read


@pytest.mark.parametrize("labels,kwargs", [([1, -100, 0], {}), ([1, -1, 0], {"ignore_index": -1}), ([4, 0, 2], {})])
def test_cross_entropy_accepts_ignored_and_in_range_targets_as_torch(labels, kwargs):
    x = rng.standard_normal((3, 5))
    got, want = [], []
    for lib, out in ((torch, want), (gg, got)):
        logits = lib.tensor(x, requires_grad=True)
        loss = lib.nn.CrossEntropyLoss(**kwargs)(logits, lib.tensor(np.array(labels)))
        loss.backward()
        out += [loss.detach().numpy(), logits.grad.numpy()]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
