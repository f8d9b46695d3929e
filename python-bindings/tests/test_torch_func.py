"""glassgrad.func against torch.func: the same values from grad, grad_and_value, vjp, jacrev,
jacfwd, hessian and vmap (in_dims None, tuples, dicts, out_dims, nesting) on the same inputs,
functional_call on the same weights, the per-sample-gradients tutorial's model and pattern
(functional_call + vmap(grad(...))), the ensembling pattern (stack_module_state), and the same
parameters. Skipped when torch is not importable."""
import inspect

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.func as gf

torch = pytest.importorskip("torch")
import torch.func as tf  # noqa: E402

RNG = np.random.default_rng(3)


def _both(a):
    a = np.asarray(a, dtype=np.float64)
    return gg.tensor(a), torch.tensor(a)


def _close(ours, theirs, rtol=1e-10, atol=1e-12):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t, rtol, atol)
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs)
        for k in theirs:
            _close(ours[k], theirs[k], rtol, atol)
    else:
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def f(lib):
    def fn(x, w):
        return ((x @ w).tanh() ** 2).sum() + (x ** 3).sum() * w.sum()
    return fn


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_grad_and_hessian_match(argnums):
    (gx, tx), (gw, tw) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 2)))
    _close(gf.grad(f(gg), argnums)(gx, gw), tf.grad(f(torch), argnums)(tx, tw))
    _close(gf.grad_and_value(f(gg), argnums)(gx, gw), tf.grad_and_value(f(torch), argnums)(tx, tw))
    if argnums != -1:  # torch's hessian(f, -1) gives zeros here (its jacfwd over jacrev); ours is the Hessian
        _close(gf.hessian(f(gg), argnums)(gx, gw), tf.hessian(f(torch), argnums)(tx, tw), rtol=1e-9)
    else:
        _close(gf.hessian(f(gg), -1)(gx, gw), tf.hessian(f(torch), 1)(tx, tw), rtol=1e-9)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_of_several_outputs_and_inputs_match(transform):
    (gx, tx), (gw, tw) = _both(RNG.standard_normal((2, 3))), _both(RNG.standard_normal(3))

    def fn(x, w):
        return {"y": (x * w).sin(), "s": (x @ w).exp().sum()}, x.sum()
    ours = getattr(gf, transform)(fn, argnums=(0, 1), has_aux=True)(gx, gw)
    theirs = getattr(tf, transform)(fn, argnums=(0, 1), has_aux=True)(tx, tw)
    _close(ours, theirs)


def test_vjp_matches():
    (gx, tx), (gc, tc) = _both(RNG.standard_normal((3, 2))), _both(RNG.standard_normal((2, 3)))
    fn = lambda a: (a.exp().T, a.sum(0))
    go, gfn = gf.vjp(fn, gx)
    to, tfn = tf.vjp(fn, tx)
    _close(go, to)
    g1, t1 = _both(np.ones(2))
    _close(gfn((gc, g1)), tfn((tc, t1)))


@pytest.mark.parametrize("case", ["none", "tuple", "dict", "out_dims", "nested", "negative"])
def test_vmap_matches(case):
    (ga, ta), (gb, tb) = _both(RNG.standard_normal((3, 4))), _both(RNG.standard_normal((4, 5)))
    if case == "none":
        run = lambda lib, a, b: lib.vmap(lambda x, y: x @ y, in_dims=(0, None))(a, b)
    elif case == "tuple":
        run = lambda lib, a, b: lib.vmap(lambda p: (p[0] * 2, p[1].sum()), in_dims=((0, 1),))((a, a.T))
    elif case == "dict":
        run = lambda lib, a, b: lib.vmap(lambda d: d["x"].sum() + d["y"], in_dims=({"x": 0, "y": 0},))(
            {"x": b, "y": a[0, :4]})
    elif case == "out_dims":
        run = lambda lib, a, b: lib.vmap(lambda x: (x.exp(), x.sum()), out_dims=(1, 0))(a)
    elif case == "nested":
        run = lambda lib, a, b: lib.vmap(lib.vmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(
            a[0], b[:, 0])
    else:
        run = lambda lib, a, b: lib.vmap(lambda x: x.cumsum(0), in_dims=-1, out_dims=-1)(a)
    _close(run(gf, ga, gb), run(tf, ta, tb))


def test_functional_call_matches():
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                 torch.nn.Linear(4, 2)).double().eval()
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.BatchNorm1d(4), gg.nn.ReLU(), gg.nn.Linear(4, 2)).double().eval()
    model.load_state_dict({k: gg.tensor(v.numpy()) for k, v in tmodel.state_dict().items()})
    new = {k: RNG.standard_normal(tuple(v.shape)) for k, v in tmodel.named_parameters()}
    x = RNG.standard_normal((5, 3))
    theirs = tf.functional_call(tmodel, {k: torch.tensor(v) for k, v in new.items()}, (torch.tensor(x),))
    ours = gf.functional_call(model, {k: gg.tensor(v) for k, v in new.items()}, (gg.tensor(x),))
    _close(ours, theirs)


class _TutorialCNN:
    """The per-sample-gradients tutorial's model (conv, max-pool, fully connected, log-softmax)."""

    @staticmethod
    def make(lib):
        nn, F = lib.nn, lib.nn.functional

        class SimpleCNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 4, 3, 1)
                self.conv2 = nn.Conv2d(4, 8, 3, 1)
                self.fc1 = nn.Linear(8 * 4 * 4, 16)
                self.fc2 = nn.Linear(16, 10)

            def forward(self, x):
                x = F.relu(self.conv1(x))
                x = F.relu(self.conv2(x))
                x = F.max_pool2d(x, 2)
                x = x.flatten(1)
                x = F.relu(self.fc1(x))
                return F.log_softmax(self.fc2(x), dim=1)
        return SimpleCNN()


def _per_sample(lib, func, model, data, targets):
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch, targets = sample.unsqueeze(0), target.unsqueeze(0)
        predictions = func.functional_call(model, (params, buffers), (batch,))
        return lib.nn.functional.nll_loss(predictions, targets)

    return func.vmap(func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)


def test_per_sample_gradients_tutorial_matches_torch():
    torch.manual_seed(0)
    tmodel = _TutorialCNN.make(torch).double()
    model = _TutorialCNN.make(gg).double()
    model.load_state_dict({k: gg.tensor(v.numpy()) for k, v in tmodel.state_dict().items()})
    data, targets = RNG.standard_normal((6, 1, 12, 12)), RNG.integers(0, 10, 6)
    ours = _per_sample(gg, gf, model, gg.tensor(data), gg.tensor(targets))
    theirs = _per_sample(torch, tf, tmodel, torch.tensor(data), torch.tensor(targets))
    assert ours["conv1.weight"].shape == (6, 4, 1, 3, 3)
    _close(ours, theirs, rtol=1e-9, atol=1e-12)


def test_ensembling_with_stack_module_state_matches_torch():
    torch.manual_seed(0)
    tmodels = [torch.nn.Linear(3, 2).double() for _ in range(3)]
    models = [gg.nn.Linear(3, 2).double() for _ in range(3)]
    for m, t in zip(models, tmodels):
        m.load_state_dict({k: gg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = RNG.standard_normal((4, 3))

    def run(lib, func, ms, xs):
        params, buffers = func.stack_module_state(ms)
        return func.vmap(lambda p, b, xx: func.functional_call(ms[0], (p, b), (xx,)), in_dims=(0, 0, None))(
            params, buffers, xs)
    _close(run(gg, gf, models, gg.tensor(x)), run(torch, tf, tmodels, torch.tensor(x)))


@pytest.mark.parametrize("name", ["functional_call", "grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian",
                                  "vmap", "stack_module_state", "linearize", "replace_all_batch_norm_modules_"])
def test_parameters_match_torch_func(name):
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    assert params(getattr(gf, name)) == params(getattr(tf, name))


def test_linearize_matches_torch():
    (gx, tx), (gt, tt) = _both(RNG.standard_normal(5)), _both(RNG.standard_normal(5))
    fn = lambda x: (x.sin() * x.exp(), x.cumsum(0) ** 2)
    (gout, gfn), (tout, tfn) = gf.linearize(fn, gx), tf.linearize(fn, tx)
    _close(gout, tout)
    _close(gfn(gt), tfn(tt))
    _close(gfn(gt * 3), tfn(tt * 3))


def test_per_sample_gradients_through_batch_norm_without_running_stats_match_torch():
    def make(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 2))
    torch.manual_seed(0)
    tmodel = make(torch).double()
    model = make(gg).double()
    model.load_state_dict({k: gg.tensor(v.numpy()) for k, v in tmodel.state_dict().items()})
    for lib_func, m in ((gf, model), (tf, tmodel)):
        lib_func.replace_all_batch_norm_modules_(m)
    assert model[1].running_mean is None and not model[1].track_running_stats
    assert [k for k, _ in model.named_buffers()] == [k for k, _ in tmodel.named_buffers()] == []
    data, targets = RNG.standard_normal((4, 1, 6, 6)), RNG.integers(0, 2, 4)
    ours = _per_sample(gg, gf, model, gg.tensor(data), gg.tensor(targets))
    theirs = _per_sample(torch, tf, tmodel, torch.tensor(data), torch.tensor(targets))
    _close(ours, theirs, rtol=1e-9, atol=1e-12)


def test_vmap_is_at_the_top_level_as_torch_vmap():
    assert gg.vmap is gf.vmap and torch.vmap is tf.vmap


def test_grad_of_a_closure_over_parameters_is_differentiable_in_them_as_torch_s():
    # A gradient penalty written with func.grad: the critic's parameters are closed over, and the
    # penalty's gradient reaches them through the input gradient.
    torch.manual_seed(0)
    tcritic = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    critic = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.Tanh(), gg.nn.Linear(4, 1)).double()
    critic.load_state_dict({k: gg.tensor(v.numpy()) for k, v in tcritic.state_dict().items()})
    x = RNG.standard_normal((5, 3))

    def penalty(lib, func, net, xs):
        g = func.vmap(func.grad(lambda xi: net(xi.unsqueeze(0)).sum()))(xs)
        return ((g.pow(2).sum(1).sqrt() - 1) ** 2).mean()
    p, tp = penalty(gg, gf, critic, gg.tensor(x)), penalty(torch, tf, tcritic, torch.tensor(x))
    _close(p, tp)
    assert p.requires_grad
    p.backward()
    tp.backward()
    ours, theirs = [q.grad for q in critic.parameters()], [q.grad for q in tcritic.parameters()]
    assert [g is None for g in ours] == [g is None for g in theirs] == [False, False, False, True]
    _close(ours[:3], theirs[:3])  # the last bias does not change the input gradient
