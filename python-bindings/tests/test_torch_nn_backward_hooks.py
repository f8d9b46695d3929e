"""Module.register_full_backward_hook / register_full_backward_pre_hook against PyTorch: what the
hooks see (grad_input, grad_output: lengths, None entries, values), when they run, what a hook's
return value replaces, prepend order and handle removal; the same script runs on glassgrad.torch
and torch and the recorded calls and the resulting .grad values are compared."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")


def _arr(t):
    return None if t is None else np.asarray(t.detach().numpy(), dtype=np.float64)


def _record(log, tag):
    def hook(m, *grads):
        log.append((tag, type(m).__name__) + tuple(
            tuple(_arr(g) if g is not None else None for g in gs) for gs in grads))
    return hook


def _same(a, b):
    assert len(a) == len(b), (a, b)
    for x, y in zip(a, b):
        if isinstance(x, tuple):
            _same(x, y)
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
        else:
            assert x == y


def _run(lib, script):
    torch.manual_seed(0)
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return script(lib)


def _weights(lib, layer, seed=0):
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in layer.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return layer


def _x(lib, *shape, grad=True, seed=1):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=grad)


def linear_hooks(lib):
    log = []
    lin = _weights(lib, lib.nn.Linear(3, 2).double())
    lin.register_full_backward_pre_hook(_record(log, "pre"))
    lin.register_full_backward_hook(_record(log, "full"))
    x = _x(lib, 4, 3)
    (lin(x) ** 2).sum().backward()
    return log, [_arr(x.grad), _arr(lin.weight.grad)]


def replace_grad_input(lib):
    lin = _weights(lib, lib.nn.Linear(3, 2).double())
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 3,))
    x = _x(lib, 4, 3)
    (lin(x) ** 2).sum().backward()
    return [], [_arr(x.grad), _arr(lin.weight.grad)]


def replace_grad_output(lib):
    log = []
    lin = _weights(lib, lib.nn.Linear(3, 2).double())
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0 + 1,))
    lin.register_full_backward_hook(_record(log, "full"))
    x = _x(lib, 4, 3)
    (lin(x) ** 2).sum().backward()
    return log, [_arr(x.grad), _arr(lin.weight.grad)]


def two_inputs_one_constant(lib):
    log = []
    bil = _weights(lib, lib.nn.Bilinear(2, 3, 4).double())
    bil.register_full_backward_hook(_record(log, "full"))
    a, b = _x(lib, 5, 2), _x(lib, 5, 3, grad=False, seed=2)
    bil(a, b).sum().backward()
    return log, [_arr(a.grad)]


def no_input_needs_grad(lib):
    log = []
    lin = _weights(lib, lib.nn.Linear(3, 2).double())
    lin.register_full_backward_hook(_record(log, "full"))
    (lin(_x(lib, 4, 3, grad=False)) ** 2).sum().backward()
    return log, [_arr(lin.weight.grad)]


def nested_model_order(lib):
    log = []
    nn = lib.nn
    model = nn.Sequential(_weights(lib, nn.Linear(3, 4)), nn.Tanh(), _weights(lib, nn.Linear(4, 2), 1)).double()
    for i, m in enumerate(model):
        m.register_full_backward_hook(_record(log, f"full{i}"))
        m.register_full_backward_pre_hook(_record(log, f"pre{i}"))
    model.register_full_backward_hook(_record(log, "model"))
    x = _x(lib, 2, 3)
    model(x).sum().backward()
    return log, [_arr(x.grad)]


def prepend_and_remove(lib):
    log = []
    act = lib.nn.Tanh()
    h1 = act.register_full_backward_hook(lambda m, gi, go: log.append("first"))
    act.register_full_backward_hook(lambda m, gi, go: log.append("zeroth"), prepend=True)
    act.register_full_backward_pre_hook(lambda m, go: log.append("pre"))
    x = _x(lib, 3)
    act(x).sum().backward()
    h1.remove()
    act(x).sum().backward()
    return log, [_arr(x.grad)]


def tuple_output(lib):
    log = []

    class Split(lib.nn.Module):
        def forward(self, x, scale):
            return x * scale, x.sum(), "tag"

    m = Split()
    m.register_full_backward_hook(_record(log, "full"))
    m.register_full_backward_pre_hook(_record(log, "pre"))
    x = _x(lib, 3)
    a, s, tag = m(x, 2.0)
    (a.sum() * 3 + s).backward()
    return log + [tag], [_arr(x.grad)]


def hook_not_called_without_backward(lib):
    log = []
    lin = lib.nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda m, gi, go: log.append(1))
    with lib.no_grad():
        lin(lib.ones(1, 3))
    lin(lib.ones(1, 3))
    return log, []


SCRIPTS = [linear_hooks, replace_grad_input, replace_grad_output, two_inputs_one_constant, no_input_needs_grad,
           nested_model_order, prepend_and_remove, tuple_output, hook_not_called_without_backward]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.__name__ for s in SCRIPTS])
def test_backward_hooks_match_torch(script):
    ours, theirs = _run(gt, script), _run(torch, script)
    _same(ours[0], theirs[0])
    _same(tuple(ours[1]), tuple(theirs[1]))


def test_a_hook_returning_the_wrong_number_of_gradients_is_refused():
    for lib in (gt, torch):
        lin = lib.nn.Linear(3, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        with pytest.raises(RuntimeError, match="invalid number of grad_input"):
            lin(lib.ones(1, 3, requires_grad=True)).sum().backward()


def test_full_backward_hook_gradients_pass_finite_differences():
    # the hook scales grad_input by 2: the input gradient is twice that of the plain function
    lin = _weights(gt, gt.nn.Linear(3, 2).double())
    x = _x(gt, 4, 3)
    (lin(x) ** 3).sum().backward()
    plain = _arr(x.grad)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    x2 = _x(gt, 4, 3)
    (lin(x2) ** 3).sum().backward()
    np.testing.assert_allclose(_arr(x2.grad), 2 * plain, rtol=1e-12)
    w, b, xv = (_arr(t) for t in (lin.weight, lin.bias, x2))
    eps, fd = 1e-6, np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[i] = eps
        fd[i] = ((((xv + d) @ w.T + b) ** 3).sum() - (((xv - d) @ w.T + b) ** 3).sum()) / (2 * eps)
    np.testing.assert_allclose(plain, fd, rtol=1e-6, atol=1e-8)


def _global_hooks_script(lib):
    nn = lib.nn
    mm = nn.modules.module
    log = []
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    m[0].register_forward_hook(lambda mod, a, o: log.append(("own-post", type(mod).__name__)))
    handles = [mm.register_module_forward_pre_hook(lambda mod, a: log.append(("g-pre", type(mod).__name__))),
               mm.register_module_forward_hook(lambda mod, a, o: log.append(("g-post", type(mod).__name__,
                                                                               tuple(o.shape)))),
               mm.register_module_full_backward_hook(lambda mod, gi, go: log.append(("g-bw", type(mod).__name__,
                                                                                      len(gi)))),
               mm.register_module_full_backward_pre_hook(lambda mod, go: log.append(("g-bwpre", type(mod).__name__)))]
    try:
        x = lib.ones(1, 2, requires_grad=True)
        m(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    m(x)  # removed: only the module's own hook runs
    return log


def test_global_module_hooks_run_before_each_modules_own_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _global_hooks_script(gt) == _global_hooks_script(torch)
