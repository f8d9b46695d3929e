"""A second backward() without retain_graph through one op, as PyTorch answers it: a node whose
PyTorch counterpart saved tensors raises ("Trying to backward through the graph a second time"),
one that saved none (sums, views, adds, concatenations) runs again. glassgrad decides this per
forward op from the values its gradient reads, plus the ops PyTorch saves a value for that the
gradient here does not read (backward.cpp, saves_unread_value), and a composite's ops as their
attribute torch_saves says. Double backward (create_graph=True) through the composites checked
against float64 finite differences. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_W = np.random.default_rng(5).standard_normal((4, 4))

# (name, input shape, f(lib, functional, x)), each run the same way in both libraries
_CASES = [
    ("avg_pool1d", (2, 3, 7), lambda L, F, x: F.avg_pool1d(x, 3)),
    ("avg_pool1d padded", (3, 9), lambda L, F, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 7, 5), lambda L, F, x: F.avg_pool2d(x, 3)),
    ("avg_pool2d ceil", (1, 2, 7, 7), lambda L, F, x: F.avg_pool2d(x, 2, ceil_mode=True)),
    ("avg_pool3d", (2, 3, 5, 5, 5), lambda L, F, x: F.avg_pool3d(x, 2)),
    ("adaptive_avg_pool2d", (2, 3, 7, 7), lambda L, F, x: F.adaptive_avg_pool2d(x, 2)),
    ("max_pool2d", (2, 3, 7, 7), lambda L, F, x: F.max_pool2d(x, 2)),
    ("x * 3", (3, 4), lambda L, F, x: x * 3),
    ("x / 2", (3, 4), lambda L, F, x: x / 2),
    ("exp", (3, 4), lambda L, F, x: x.exp()),
    ("relu", (3, 4), lambda L, F, x: F.relu(x)),
    ("softmax", (3, 4), lambda L, F, x: x.softmax(1)),
    ("index_select", (3, 4), lambda L, F, x: x.index_select(0, L.tensor([0, 2]))),
    ("matmul", (3, 4), lambda L, F, x: x @ L.tensor(_W)),
    ("sum", (3, 4), lambda L, F, x: x.sum()),
    ("mean", (3, 4), lambda L, F, x: x.mean(1)),
    ("x + 1", (3, 4), lambda L, F, x: x + 1),
    ("x - 1", (3, 4), lambda L, F, x: x - 1),
    ("neg", (3, 4), lambda L, F, x: -x),
    ("reshape", (3, 4), lambda L, F, x: x.reshape(-1)),
    ("expand", (3, 1), lambda L, F, x: x.expand(3, 4)),
    ("constant pad", (3, 4), lambda L, F, x: F.pad(x, (1, 2))),
    ("cat", (3, 4), lambda L, F, x: L.cat([x, x])),
    ("slice", (3, 4), lambda L, F, x: x[1:]),
    ("flip", (3, 4), lambda L, F, x: x.flip(0)),
    ("cumsum", (3, 4), lambda L, F, x: x.cumsum(1)),
    ("nearest upsampling", (1, 2, 3, 3), lambda L, F, x: F.interpolate(x, scale_factor=2)),
    ("floor", (3, 4), lambda L, F, x: x.floor()),
    # composites: reflection/replication/circular padding save their input in PyTorch; tril, triu,
    # diag_embed, unfold, fold and the linear upsampling modes save no tensor there (their masks,
    # index tables and matrices are constants here: attribute torch_saves)
    ("reflection pad", (1, 2, 5, 6), lambda L, F, x: F.pad(x, (1, 2, 2, 1), mode="reflect")),
    ("replication pad", (1, 2, 5, 6), lambda L, F, x: F.pad(x, (1, 2, 2, 1), mode="replicate")),
    ("circular pad", (1, 2, 5, 6), lambda L, F, x: F.pad(x, (1, 2, 2, 1), mode="circular")),
    ("reflection pad 1-d", (2, 7), lambda L, F, x: F.pad(x, (3, 1), mode="reflect")),
    ("tril", (4, 5), lambda L, F, x: x.tril()),
    ("triu", (2, 4, 5), lambda L, F, x: x.triu(1)),
    ("diag_embed", (3, 4), lambda L, F, x: L.diag_embed(x, 1)),
    ("unfold", (1, 2, 5, 6), lambda L, F, x: F.unfold(x, 2)),
    ("unfold padded", (1, 2, 5, 6), lambda L, F, x: F.unfold(x, 3, padding=1, stride=2)),
    ("fold", (1, 8, 12), lambda L, F, x: F.fold(x, (4, 5), 2)),
    ("bilinear upsampling", (1, 2, 3, 4), lambda L, F, x: F.interpolate(x, scale_factor=2, mode="bilinear")),
    ("bilinear align_corners", (1, 2, 3, 4), lambda L, F, x: F.interpolate(x, size=(5, 7), mode="bilinear",
                                                                           align_corners=True)),
    ("linear upsampling", (2, 3, 5), lambda L, F, x: F.interpolate(x, scale_factor=1.5, mode="linear")),
    ("bicubic upsampling", (1, 1, 4, 4), lambda L, F, x: F.interpolate(x, scale_factor=2, mode="bicubic")),
    ("trilinear upsampling", (1, 1, 2, 3, 3), lambda L, F, x: F.interpolate(x, scale_factor=2, mode="trilinear")),
    ("area interpolation", (1, 2, 6, 6), lambda L, F, x: F.interpolate(x, size=(4, 3), mode="area")),
    ("nearest to a size", (1, 2, 3, 4), lambda L, F, x: F.interpolate(x, size=(5, 7))),
]


def _second_backward_raises(lib, functional, shape, f) -> bool:
    x = lib.tensor(np.random.default_rng(1).standard_normal(shape), requires_grad=True)
    y = f(lib, functional, x)
    y.sum().backward()
    try:
        y.sum().backward()
    except RuntimeError as e:
        assert "second time" in str(e)
        return True
    return False


@pytest.mark.parametrize("name,shape,f", _CASES, ids=[c[0] for c in _CASES])
def test_second_backward_raises_as_torch(name, shape, f):
    want = _second_backward_raises(torch, torch.nn.functional, shape, f)
    assert _second_backward_raises(gg, F, shape, f) == want


@pytest.mark.parametrize("name,shape,f", [("avg_pool1d", (2, 4, 7), lambda x: F.avg_pool1d(x, 2)),
                                          ("avg_pool2d", (1, 2, 4, 6), lambda x: F.avg_pool2d(x, 2))])
def test_retain_graph_allows_the_second_backward_through_avg_pool(name, shape, f):
    x = gg.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    y = f(x)
    y.sum().backward(retain_graph=True)
    first = x.grad.detach().numpy().copy()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * first)


_DOUBLE = [c for c in _CASES if c[0] in ("reflection pad", "circular pad", "tril", "diag_embed", "unfold", "fold",
                                         "bilinear upsampling", "linear upsampling", "bicubic upsampling")]


@pytest.mark.parametrize("name,shape,f", _DOUBLE, ids=[c[0] for c in _DOUBLE])
def test_double_backward_through_a_composite_matches_finite_differences(name, shape, f):
    """d/dx of sum(w * grad(sum(w' * f(x)^2))) by create_graph=True, against central differences
    of the first gradient (computed by glassgrad) in float64, and against torch's."""
    rng = np.random.default_rng(7)
    x0 = rng.standard_normal(shape)
    y_shape = tuple(f(torch, torch.nn.functional, torch.tensor(x0)).shape)
    w1 = rng.uniform(0.5, 1.5, y_shape)
    w2 = rng.uniform(0.5, 1.5, shape)

    def first_gradient(a):
        x = gg.tensor(a, requires_grad=True)
        (g,) = gg.autograd.grad((gg.tensor(w1) * f(gg, F, x) ** 2).sum(), x, create_graph=True)
        return x, g

    x, g = first_gradient(x0)
    (gg.tensor(w2) * g).sum().backward()
    got = x.grad.detach().numpy()
    eps = 1e-6
    want = np.zeros_like(x0)
    for i in np.ndindex(*shape):
        hi, lo = x0.copy(), x0.copy()
        hi[i] += eps
        lo[i] -= eps
        gh = first_gradient(hi)[1].detach().numpy()
        gl = first_gradient(lo)[1].detach().numpy()
        want[i] = ((gh - gl) * w2).sum() / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    xt = torch.tensor(x0, requires_grad=True)
    (gt_,) = torch.autograd.grad((torch.tensor(w1) * f(torch, torch.nn.functional, xt) ** 2).sum(), xt,
                                 create_graph=True)
    (torch.tensor(w2) * gt_).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-9, atol=1e-10)
