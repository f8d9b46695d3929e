"""Double backward (autograd.grad(create_graph=True), then backward) through batch normalization
in training and evaluation mode, InstanceNorm (which runs on the same ops) and the gradient penalty
of a WGAN-GP critic: float64 central differences of the first gradient, and torch's results.
Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from torch_compare import assert_parameter_grads_match

torch = pytest.importorskip("torch")


def _bn_train(L, F_, x, w, b):
    return F_.batch_norm(x, None, None, w, b, training=True, eps=1e-3)


def _bn_eval(L, F_, x, w, b):
    c = x.shape[1]
    rm = L.tensor(np.linspace(-0.3, 0.4, c))
    rv = L.tensor(np.linspace(0.5, 1.7, c))
    return F_.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)


def _instance(L, F_, x, w, b):
    return F_.instance_norm(x, weight=w, bias=b, eps=1e-3)


# (name, x's shape, f(lib, functional, x, weight, bias), affine)
_CASES = [
    ("batch_norm 2-d", (5, 3), _bn_train, True),
    ("batch_norm 3-d", (3, 2, 5), _bn_train, True),
    ("batch_norm 4-d", (2, 3, 3, 2), _bn_train, True),
    ("batch_norm 5-d", (2, 2, 2, 3, 2), _bn_train, True),
    ("batch_norm no affine", (3, 2, 4), _bn_train, False),
    ("batch_norm eval", (3, 3, 4), _bn_eval, True),
    ("batch_norm eval no affine", (2, 3, 2, 2), _bn_eval, False),
    ("instance_norm 4-d", (2, 3, 3, 3), _instance, True),
    ("instance_norm 3-d no affine", (2, 2, 5), _instance, False),
]


def _inputs(shape, affine, rng):
    x0 = rng.standard_normal(shape)
    c = shape[1]
    w0 = rng.uniform(0.5, 1.5, c) if affine else None
    b0 = rng.standard_normal(c) if affine else None
    return x0, w0, b0


def _penalty(L, F_, f, x0, w0, b0, w1, w2):
    """Leaves x, weight, bias and the scalar sum(w2 * d/dx sum(w1 * f(x)^3)), its first gradient
    made with create_graph=True (the cube makes the second derivative depend on every input)."""
    x = L.tensor(x0, requires_grad=True)
    w = L.tensor(w0, requires_grad=True) if w0 is not None else None
    b = L.tensor(b0, requires_grad=True) if b0 is not None else None
    (g,) = L.autograd.grad((L.tensor(w1) * f(L, F_, x, w, b) ** 3).sum(), x, create_graph=True)
    return x, w, b, (L.tensor(w2) * g).sum()


def _central_differences(value, arrays, eps=1e-6):
    """d value(*arrays) / d each array, by central differences."""
    out = []
    for k, a in enumerate(arrays):
        if a is None:
            out.append(None)
            continue
        d = np.zeros_like(a)
        for i in np.ndindex(*a.shape):
            hi = [v.copy() if v is not None else None for v in arrays]
            lo = [v.copy() if v is not None else None for v in arrays]
            hi[k][i] += eps
            lo[k][i] -= eps
            d[i] = (value(*hi) - value(*lo)) / (2 * eps)
        out.append(d)
    return out


@pytest.mark.parametrize("name,shape,f,affine", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, shape, f, affine):
    rng = np.random.default_rng(11)
    x0, w0, b0 = _inputs(shape, affine, rng)
    w1 = rng.uniform(0.5, 1.5, shape)
    w2 = rng.uniform(0.5, 1.5, shape)
    x, w, b, p = _penalty(gg, F, f, x0, w0, b0, w1, w2)
    p.backward()
    got = [t.grad.detach().numpy() if t is not None else None for t in (x, w, b)]

    def value(xa, wa, ba):
        return float(_penalty(gg, F, f, xa, wa, ba, w1, w2)[3].detach().numpy())

    want = _central_differences(value, [x0, w0, b0])
    xt, wt, bt, pt = _penalty(torch, torch.nn.functional, f, x0, w0, b0, w1, w2)
    pt.backward()
    theirs = [t.grad.numpy() if t is not None else None for t in (xt, wt, bt)]
    for name_, a, fd, t in zip(("x", "weight", "bias"), got, want, theirs):
        if fd is None:
            continue
        if t is None:  # torch: no path from this input to the penalty (bias, whose gradient is constant)
            t = np.zeros_like(fd)
        np.testing.assert_allclose(a, fd, rtol=1e-5, atol=1e-6, err_msg=name_)
        np.testing.assert_allclose(a, t, rtol=1e-8, atol=1e-9, err_msg=name_)


def test_the_first_gradient_alone_still_matches_torch():
    """create_graph=True changes nothing in the first gradient's values (a regression check of the
    BatchNorm rule that the second-order rules sit beside)."""
    rng = np.random.default_rng(3)
    x0, w0, b0 = _inputs((4, 3, 2, 2), True, rng)
    out = []
    for L, F_ in ((gg, F), (torch, torch.nn.functional)):
        x = L.tensor(x0, requires_grad=True)
        (g,) = L.autograd.grad((_bn_train(L, F_, x, L.tensor(w0), L.tensor(b0)) ** 2).sum(), x, create_graph=True)
        out.append(g.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-9, atol=1e-10)


def _critic(L, norm):
    """A WGAN-GP critic (Conv2d, a norm layer, LeakyReLU(0.2), Conv2d), its weights from one seed."""
    layers = L.nn.Sequential(L.nn.Conv2d(3, 4, 4, 2, 1), norm(L), L.nn.LeakyReLU(0.2), L.nn.Conv2d(4, 1, 4))
    rng = np.random.default_rng(0)
    with L.no_grad():
        for p in layers.parameters():
            p.copy_(L.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=L.float32))
    return layers


_NORMS = {
    "BatchNorm2d": lambda L: L.nn.BatchNorm2d(4),
    "InstanceNorm2d affine": lambda L: L.nn.InstanceNorm2d(4, affine=True),
    # the WGAN-GP paper drops batch norm from the critic for layer normalization
    "LayerNorm": lambda L: L.nn.LayerNorm([4, 4, 4]),
    "GroupNorm": lambda L: L.nn.GroupNorm(2, 4),
    "GroupNorm no affine": lambda L: L.nn.GroupNorm(2, 4, affine=False),
}


@pytest.mark.parametrize("norm", sorted(_NORMS))
def test_wgan_gp_penalty_through_a_norm_layer_matches_torch(norm):
    """The gradient penalty of PyTorch-GAN's dualgan.py and Machine-Learning-Collection's WGAN-GP:
    ((||d D(x) / dx|| - 1) ** 2).mean(), then backward into the critic's parameters."""
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((3, 3, 8, 8)).astype(np.float32)
    grads = []
    for L in (gg, torch):
        d = _critic(L, _NORMS[norm])
        x = L.tensor(x0, requires_grad=True)
        out = d(x)
        (g,) = L.autograd.grad(out, x, L.ones(tuple(out.shape)), create_graph=True)
        ((g.reshape(g.shape[0], -1).norm(2, dim=1) - 1) ** 2).mean().backward()
        grads.append([None if p.grad is None else p.grad.detach().numpy() for p in d.parameters()])
    assert_parameter_grads_match(*grads, rtol=2e-3, atol=2e-5)


def test_module_batchnorm_in_training_mode_runs_a_double_backward():
    """nn.BatchNorm1d in training mode (running statistics updated by the forward) under a second
    backward: the parameters' gradients match torch's."""
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((6, 5))
    res = []
    for L in (gg, torch):
        lin, bn = L.nn.Linear(5, 3).double(), L.nn.BatchNorm1d(3).double()
        with L.no_grad():
            lin.weight.copy_(L.tensor(np.linspace(-1, 1, 15).reshape(3, 5)))
            lin.bias.copy_(L.tensor([0.1, -0.2, 0.3]))
            bn.weight.copy_(L.tensor([0.7, 1.1, 1.4]))
        x = L.tensor(x0, requires_grad=True)
        (g,) = L.autograd.grad(L.tanh(bn(lin(x))).pow(2).sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        res.append([lin.weight.grad.detach().numpy(), bn.weight.grad.detach().numpy(), bn.bias.grad.detach().numpy(),
                    bn.running_mean.detach().numpy()])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)

