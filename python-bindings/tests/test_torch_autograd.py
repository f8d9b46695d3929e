"""glassgrad.autograd against torch.autograd on the same float64 data: grad (leaves, computed
inputs, grad_outputs, several outputs), backward(inputs=), a custom Function, jacobian/jvp/vjp,
and binary_cross_entropy's gradient where probabilities saturate. Skipped when torch is not
importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.autograd as A
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(11)
X = _rng.standard_normal((5, 3))
W = _rng.standard_normal((3, 4))
V = _rng.standard_normal((5, 4))


def _both(a):
    return gg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def test_grad_matches_torch():
    (x, tx), (w, tw) = _both(X), _both(W)
    h, th = (x @ w).sigmoid(), (tx @ tw).sigmoid()
    outs = [(h * h).sum(1), h.tanh()]
    touts = [(th * th).sum(1), th.tanh()]
    seeds = [np.arange(5.0), V]
    got = A.grad(outs, [x, w, h], [gg.tensor(s) for s in seeds])
    want = torch.autograd.grad(touts, [tx, tw, th], [torch.tensor(s) for s in seeds])
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-12, atol=1e-14)


def test_backward_inputs_matches_torch():
    (x, tx), (w, tw) = _both(X), _both(W)
    ((x @ w) ** 2).sum().backward(inputs=[x])
    ((tx @ tw) ** 2).sum().backward(inputs=[tx])
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert w.grad is None and tw.grad is None


def _clamp_grad_fn(lib):
    class ClampedExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, limit):
            y = x.exp().clamp(max=limit)
            ctx.save_for_backward(y)
            ctx.limit = limit
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y * (y < ctx.limit), None
    return ClampedExp


def test_custom_function_matches_torch():
    (x, tx) = _both(X)
    ours, theirs = _clamp_grad_fn(gg), _clamp_grad_fn(torch)
    y, ty = ours.apply(x * 2, 3.0), theirs.apply(tx * 2, 3.0)
    (y * gg.tensor(V[:, :3])).sum().backward()
    (ty * torch.tensor(V[:, :3])).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_functional_matches_torch():
    def f(lib):
        return lambda a, b: ((a * b).sin().sum(0), a.exp())
    args = (X, X[::-1].copy())
    ours = A.functional.jacobian(f(gg), tuple(gg.tensor(a) for a in args))
    theirs = torch.autograd.functional.jacobian(f(torch), tuple(torch.tensor(a) for a in args))
    for row, trow in zip(ours, theirs):
        for j, tj in zip(row, trow):
            np.testing.assert_allclose(j.numpy(), tj.numpy(), rtol=1e-12, atol=1e-14)
    v = (gg.tensor(V[:, :3]), gg.tensor(V[:, 1:]))
    tv = tuple(torch.tensor(np.asarray(t.numpy())) for t in v)
    g1 = A.functional.jvp(lambda a, b: (a * b).sum(1), tuple(gg.tensor(a) for a in args), v)[1]
    t1 = torch.autograd.functional.jvp(lambda a, b: (a * b).sum(1), tuple(torch.tensor(a) for a in args), tv)[1]
    np.testing.assert_allclose(g1.numpy(), t1.numpy(), rtol=1e-12)


def test_binary_cross_entropy_gradient_at_saturation_matches_torch():
    p = np.array([0.0, 1.0, 0.0, 1.0, 0.3, 1e-30, 1 - 1e-16])
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.6, 0.0, 1.0])
    (x, tx) = _both(p)
    for reduction in ("mean", "sum"):
        x.grad, tx.grad = None, None
        F.binary_cross_entropy(x, gg.tensor(t), reduction=reduction).backward()
        torch.nn.functional.binary_cross_entropy(tx, torch.tensor(t), reduction=reduction).backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_wgan_gp_gradient_penalty_matches_torch():
    # WGAN-GP's penalty on a small conv critic: grad(critic(interp).sum(), interp, create_graph=True),
    # then ((||g||_2 - 1)^2).mean() and its gradient in the critic's weights.
    rng = np.random.default_rng(3)
    real, fake = rng.standard_normal((4, 1, 8, 8)), rng.standard_normal((4, 1, 8, 8))
    alpha = rng.uniform(size=(4, 1, 1, 1))
    gg.manual_seed(0)
    critic = gg.nn.Sequential(gg.nn.Conv2d(1, 3, 3, 2, 1), gg.nn.LeakyReLU(0.2), gg.nn.Flatten(), gg.nn.Linear(48, 1))
    critic.double()
    tcritic = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, 2, 1), torch.nn.LeakyReLU(0.2), torch.nn.Flatten(),
                                  torch.nn.Linear(48, 1)).double()
    tcritic.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in critic.state_dict().items()})

    def penalty(lib, net):
        interp = lib.tensor(alpha * real + (1 - alpha) * fake, requires_grad=True)
        out = net(interp)
        (g,) = lib.autograd.grad(out, interp, lib.ones_like(out), create_graph=True)
        return ((g.reshape(4, -1).norm(2, dim=1) - 1) ** 2).mean()

    p, tp = penalty(gg, critic), penalty(torch, tcritic)
    p.backward()
    tp.backward()
    np.testing.assert_allclose(p.item(), tp.item(), rtol=1e-10)
    for (name, param), (_, tparam) in zip(critic.named_parameters(), tcritic.named_parameters()):
        # The biases enter the penalty only through LeakyReLU's mask, whose derivative is 0: PyTorch
        # gives the first zeros and the last None, glassgrad None (no gradient term) for both.
        ours = np.zeros(tuple(param.shape)) if param.grad is None else param.grad.numpy()
        theirs = np.zeros(tuple(param.shape)) if tparam.grad is None else tparam.grad.numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12, err_msg=name)
    assert np.abs(critic[0].weight.grad.numpy()).max() > 1e-3  # the weights' gradients are not all 0


def test_hessian_matches_torch():
    def f(lib):
        return lambda a: (a.tanh() * a.sum()).sum() + (a ** 3).sum()
    x = _rng.standard_normal(5)
    H = A.functional.hessian(f(gg), gg.tensor(x))
    tH = torch.autograd.functional.hessian(f(torch), torch.tensor(x))
    np.testing.assert_allclose(H.numpy(), tH.numpy(), rtol=1e-12, atol=1e-14)


def _variable_facts(lib, V):
    """What a script of PyTorch 0.3's time sees from Variable(t, ...) (MorvanZhou's 202_variable.py)."""
    t = lib.tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    v = V(t, requires_grad=True)
    out = lib.mean(v * v)
    out.backward()
    a = lib.tensor(np.ones(2), requires_grad=True)
    b = a * 2
    plain, kept, shared = V(b), V(a), V(t)
    with lib.no_grad():
        t[0, 0] = 9.0  # a Variable that needs no gradient shares t's values
    return (v is t, t.requires_grad, v.requires_grad, v.is_leaf, v.grad.tolist(), t.grad is None,
            repr(out).replace("glassgrad.", "torch."),
            plain.requires_grad, plain.grad_fn is None, kept is a, kept.requires_grad, kept.is_leaf,
            float(shared[0, 0]), repr(t).replace("glassgrad.", "torch."))


def test_variable_is_a_new_leaf_on_the_data_as_torchs():
    assert _variable_facts(gg, A.Variable) == _variable_facts(torch, torch.autograd.Variable)


def _sgd_by_hand(lib, V, steps=5):
    """PyTorch's old "Learning PyTorch with Examples" loop: Variables, w.data -= lr * w.grad.data,
    w.grad.data.zero_()."""
    rng = np.random.default_rng(3)
    x = V(lib.tensor(rng.standard_normal((16, 4))), requires_grad=False)
    y = V(lib.tensor(rng.standard_normal((16, 2))), requires_grad=False)
    w1 = V(lib.tensor(rng.standard_normal((4, 8))), requires_grad=True)
    w2 = V(lib.tensor(rng.standard_normal((8, 2))), requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        w1.data -= 1e-3 * w1.grad.data
        w2.data -= 1e-3 * w2.grad.data
        w1.grad.data.zero_()
        w2.grad.data.zero_()
    return losses, w1.detach().numpy(), w1.requires_grad and w1.is_leaf


def test_sgd_written_by_hand_through_data_matches_torchs():
    ours, theirs = _sgd_by_hand(gg, A.Variable), _sgd_by_hand(torch, torch.autograd.Variable)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)
    assert ours[2] and theirs[2]


def test_variable_volatile_warns_as_torchs():
    import warnings

    def warned(lib, V):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            V(lib.tensor(np.ones(2)), volatile=True)
        return [(w.category, str(w.message)) for w in caught]
    assert warned(gg, A.Variable) == warned(torch, torch.autograd.Variable)


def _sqrt_at_zero(lib, x, w):
    return (x.sqrt() * 0).sum()


def _nan_weight_gradient(lib, x, w):
    return (x.log() * w).sum()   # x < 0: log is NaN, so w's gradient (MulBackward0's 1th output) is


def _nan_through_a_chain(lib, x, w):
    return ((x * w).exp().log() - (x * 0 - 1).sqrt() * 0).mean()


@pytest.mark.parametrize("make", [_sqrt_at_zero, _nan_weight_gradient, _nan_through_a_chain])
@pytest.mark.parametrize("call", ["backward", "grad"])
def test_anomaly_mode_names_the_backward_function_that_returned_nan_as_torch(make, call):
    import warnings
    messages = []
    for lib in (torch, gg):
        x = lib.tensor([0.0, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([1.5, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(), pytest.raises(RuntimeError) as e:
                loss = make(lib, x, w)
                loss.backward() if call == "backward" else lib.autograd.grad(loss, [x, w])
        messages.append(str(e.value).splitlines()[0])
    assert messages[1] == messages[0]
    # the hooks are gone: the same graph backpropagates outside anomaly mode, NaN and all
    x = gg.tensor([0.0, -1.0, 2.0], dtype=gg.float64, requires_grad=True)
    w = gg.tensor([1.5, -2.0, 0.5], dtype=gg.float64, requires_grad=True)
    make(gg, x, w).backward()
    assert any(np.isnan(t.grad.numpy()).any() for t in (x, w) if t.grad is not None)


def _function_returning(lib, view):
    class Returns(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.shape = x.shape
            return view(x)

        @staticmethod
        def backward(ctx, g):
            if g.numel() == 4:
                return g.reshape(ctx.shape) * 3
            full = g.new_zeros(ctx.shape)
            full[0] = g * 3
            return full
    return Returns


@pytest.mark.parametrize("view", [lambda x: x.view(-1), lambda x: x, lambda x: x.t(), lambda x: x[0]],
                         ids=["view", "as_is", "t", "select"])
@pytest.mark.parametrize("of_view", [False, True])
def test_a_custom_function_returning_a_view_of_its_input_is_a_view_as_torch(view, of_view):
    seen = []
    for lib in (torch, gg):
        x = lib.ones(2, 2, requires_grad=True)
        base = x * 1
        y = base[:] if of_view else base  # the output's _base is the input's root
        out = _function_returning(lib, view).apply(y)
        with pytest.raises(RuntimeError) as e:
            out.mul_(2)
        # an input that requires no grad: a view all the same, written freely
        free = _function_returning(lib, view).apply(lib.ones(2, 2))
        free.add_(1)
        (out * 2).sum().backward()
        other = _function_returning(lib, view).apply(y)
        with lib.no_grad():  # outside grad mode the write is allowed
            other.mul_(1)
        seen.append((out._base is base, out._is_view(), out is y, str(e.value).split("\n")[0], free._is_view(),
                     x.grad.tolist()))
    assert seen[1] == seen[0] and seen[0][:3] == (True, True, False)


def _containers(r):
    """The nesting of a jacobian/hessian result: its list/tuple kinds, and each tensor's values."""
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [_containers(a) for a in r]
    return np.asarray(r.detach().numpy() if hasattr(r, "detach") else r).round(12).tolist()


_SHAPES = {"1-1": (lambda a: a ** 2, 1, False), "2-1": (lambda a, b: a * b, 2, True),
           "1-2": (lambda a: (a, a * 2), 1, False), "2-2": (lambda a, b: (a * b, a + b), 2, True),
           "t1-1": (lambda a: a * 2, 1, True), "1-t1": (lambda a: (a * 2,), 1, False)}


@pytest.mark.parametrize("shape", list(_SHAPES))
@pytest.mark.parametrize("strategy", ["forward-mode", "reverse-mode"])
def test_jacobian_and_hessian_nest_their_results_as_torch(shape, strategy):
    func, n, as_tuple = _SHAPES[shape]
    seen = []
    for lib in (torch, gg):
        xs = [lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([-0.5, 3.0], dtype=lib.float64)][:n]
        inputs = tuple(xs) if as_tuple else xs[0]
        jac = lib.autograd.functional.jacobian(func, inputs, vectorize=True, strategy=strategy)
        scalar = (lambda *a: (func(*a)[0] if isinstance(func(*a), tuple) else func(*a)).pow(3).sum())
        hess = lib.autograd.functional.hessian(scalar, inputs, vectorize=True, outer_jacobian_strategy=strategy)
        seen.append((_containers(jac), _containers(hess)))
    assert seen[1] == seen[0]
