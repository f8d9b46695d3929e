"""Forward-mode names against PyTorch: torch.autograd.forward_ad (make_dual, unpack_dual,
dual_level), torch.func.jvp, and torch.autograd.functional's jvp, vjp, hvp, vhp and hessian,
on the same inputs. Skipped when torch is not importable."""
import inspect

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.autograd.forward_ad as gfw
import glassgrad.autograd.functional as GA
import glassgrad.func as gf

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfw  # noqa: E402
import torch.autograd.functional as TA  # noqa: E402
import torch.func as tf  # noqa: E402

RNG = np.random.default_rng(11)


def _both(a):
    a = np.asarray(a, dtype=np.float64)
    return gg.tensor(a), torch.tensor(a)


def _close(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t)
    else:
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def net(lib):
    def fn(x, w):
        return (x @ w).exp().log1p().log1p() * lib.sigmoid(x.sum(1, keepdim=True)) + (x @ w).pow(3)
    return fn


def test_dual_tensors_match_torch():
    (gx, tx), (gw, tw) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 2)))
    (gt, tt), (gu, tu) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 2)))
    with gfw.dual_level(), tfw.dual_level():
        ours = gfw.unpack_dual(net(gg)(gfw.make_dual(gx, gt), gfw.make_dual(gw, gu)))
        theirs = tfw.unpack_dual(net(torch)(tfw.make_dual(tx, tt), tfw.make_dual(tw, tu)))
        _close(ours.primal, theirs.primal)
        _close(ours.tangent, theirs.tangent)
        only_x = gfw.unpack_dual(net(gg)(gfw.make_dual(gx, gt), gw))
        tonly_x = tfw.unpack_dual(net(torch)(tfw.make_dual(tx, tt), tw))
        _close(only_x.tangent, tonly_x.tangent)


def test_func_jvp_matches_torch():
    (gx, tx), (gw, tw) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 2)))
    (gt, tt), (gu, tu) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 2)))

    def fn(lib):
        return lambda x, w: (net(lib)(x, w), (x * 2).sum())
    _close(gf.jvp(fn(gg), (gx, gw), (gt, gu)), tf.jvp(fn(torch), (tx, tw), (tt, tu)))
    aux = gf.jvp(lambda x: (x.exp(), x.sum()), (gx,), (gt,), has_aux=True)
    taux = tf.jvp(lambda x: (x.exp(), x.sum()), (tx,), (tt,), has_aux=True)
    _close(aux, taux)


@pytest.mark.parametrize("name", ["jvp", "vjp", "hvp", "vhp", "hessian"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_autograd_functional_matches_torch(name, create_graph):
    (gx, tx), (gv, tv) = _both(RNG.standard_normal(4)), _both(RNG.standard_normal(4))

    def scalar(lib):
        return lambda x: (x.sin() * x.exp()).sum() + (x ** 3).prod()

    def vector(lib):
        return lambda x: x.sin() * x.exp() + x.cumsum(0)
    if name in ("jvp", "vjp"):
        ours = getattr(GA, name)(vector(gg), gx, gv, create_graph=create_graph)
        theirs = getattr(TA, name)(vector(torch), tx, tv, create_graph=create_graph)
    elif name == "hessian":
        ours = GA.hessian(scalar(gg), gx, create_graph=create_graph)
        theirs = TA.hessian(scalar(torch), tx, create_graph=create_graph)
    else:
        ours = getattr(GA, name)(scalar(gg), gx, gv, create_graph=create_graph)
        theirs = getattr(TA, name)(scalar(torch), tx, tv, create_graph=create_graph)
    _close(ours, theirs)


@pytest.mark.parametrize("name", ["make_dual", "unpack_dual", "enter_dual_level", "exit_dual_level"])
def test_parameters_match_torch_forward_ad(name):
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    assert params(getattr(gfw, name)) == params(getattr(tfw, name))
    assert params(gf.jvp) == params(tf.jvp)


@pytest.mark.parametrize("outputs", [1, 2])
def test_double_vjp_written_with_grad_outputs_matches_torch(outputs):
    # The trick as PyTorch users write it: grad_outputs u requiring grad, create_graph=True, then
    # the gradient in u. The gradients must be differentiable in grad_outputs, as PyTorch's are.
    (gx, tx), (gt, tt) = _both(RNG.standard_normal(4)), _both(RNG.standard_normal(4))

    def run(lib, x, t):
        x = x.clone().requires_grad_(True)
        ys = [x.sin() * x.exp(), (x ** 2).cumsum(0)][:outputs]
        us = [lib.zeros_like(y).requires_grad_(True) for y in ys]
        (g,) = lib.autograd.grad(ys, [x], us, create_graph=True)
        return lib.autograd.grad([(g * t).sum()], us)
    _close(run(gg, gx, gt), run(torch, tx, tt))


def test_backward_with_a_gradient_in_the_graph_matches_torch():
    (gx, tx), (gv, tv) = _both(RNG.standard_normal(3)), _both(RNG.standard_normal(3))

    def run(lib, x, v):
        x = x.clone().requires_grad_(True)
        v = v.clone().requires_grad_(True)
        (x.exp() * x).backward(v, create_graph=True)
        return lib.autograd.grad([x.grad.sum()], [v])
    _close(run(gg, gx, gv), run(torch, tx, tv))


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_autograd_functional_create_graph_stays_differentiable_in_the_inputs_as_torch_s(name):
    a = RNG.standard_normal(3)

    def run(lib, F):
        x = lib.tensor(a).requires_grad_(True)
        v = lib.ones(3, dtype=x.dtype)
        scalar = lambda t: (t.sin() * t.exp()).sum()
        vector = lambda t: t.sin() * t
        if name == "jacobian":
            out = F.jacobian(vector, x, create_graph=True)
        elif name == "hessian":
            out = F.hessian(scalar, x, create_graph=True)
        elif name in ("vjp", "jvp"):
            out = getattr(F, name)(vector, x, v, create_graph=True)[1]
        else:
            out = getattr(F, name)(scalar, x, v, create_graph=True)[1]
        (out * lib.arange(out.numel(), dtype=x.dtype).reshape(out.shape)).sum().backward()
        return x.grad
    _close(run(gg, GA), run(torch, TA))
