"""Which in-place changes backward() refuses, as PyTorch's saved-tensor version checks: PyTorch
saves an operand for backward only where the other operand's gradient needs it (mm, matmul,
Linear, mul, div, pow save the weight only when the input requires grad), while convolution,
batch_norm and layer_norm save their weight always. So `loss = model(x); opt.step();
loss.backward()` runs when the first layer's input needs no gradient and raises PyTorch's "one of
the variables needed for gradient computation has been modified by an inplace operation" when it
does. A forward value that a gradient rule reads (a square's input) and that glassgrad had not
computed before the step is computed from the parameter's value before it, as PyTorch computed it
(docs/inplace-and-views.md, "Backward after an optimizer step"). Each case runs in torch 2.14 and
glassgrad: both raise, or both run with the same gradients. Skipped without torch."""
import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(11)
_X2 = _RNG.standard_normal((4, 3))
_X3 = _RNG.standard_normal((2, 4, 3))
_XC = _RNG.standard_normal((2, 2, 5, 5))
_XC1 = _RNG.standard_normal((2, 2, 7))
_W = _RNG.standard_normal((3, 3))
_POS = _RNG.uniform(0.5, 1.5, (4, 3))


def _t(L, a, grad=False):
    return L.tensor(a, dtype=L.float64, requires_grad=grad)


def _same_init(L, module):
    """The module in float64 with the same parameters in both libraries."""
    module = module.double()
    rng = np.random.default_rng(5)
    with L.no_grad():
        for p in module.parameters():
            p.copy_(L.tensor(rng.uniform(-0.8, 0.8, tuple(p.shape))))
    return module


# name: f(L, x_grad) -> (loss, the parameters that a mutation changes, the inputs that require grad)
def _mm(L, g):
    x, w = _t(L, _X2, g), _t(L, _W, True)
    return (x @ w).sum(), [w], [x]


def _matmul3(L, g):
    x, w = _t(L, _X3, g), _t(L, _W, True)
    return L.matmul(x, w).square().sum(), [w], [x]


def _linear(L, g):
    x, w, b = _t(L, _X2, g), _t(L, _W, True), _t(L, _W[0], True)
    return L.nn.functional.linear(x, w, b).square().sum(), [w, b], [x]


def _linear_module_3d(L, g):
    m = _same_init(L, L.nn.Linear(3, 2))
    x = _t(L, _X3, g)
    return m(x).square().sum(), list(m.parameters()), [x]


def _mlp(L, g):
    m = _same_init(L, L.nn.Sequential(L.nn.Linear(3, 5), L.nn.Tanh(), L.nn.Linear(5, 1)))
    x = _t(L, _X2, g)
    return m(x).square().sum(), list(m.parameters()), [x]


def _first_layer_only(L, g):
    m = _same_init(L, L.nn.Sequential(L.nn.Linear(3, 5), L.nn.Tanh(), L.nn.Linear(5, 1)))
    x = _t(L, _X2, g)
    return m(x).square().sum(), list(m[0].parameters()), [x]


def _conv2d(L, g):
    m = _same_init(L, L.nn.Conv2d(2, 3, 3))
    x = _t(L, _XC, g)
    return m(x).square().sum(), [m.weight], [x]


def _conv1d(L, g):
    m = _same_init(L, L.nn.Conv1d(2, 3, 3))
    x = _t(L, _XC1, g)
    return m(x).square().sum(), [m.weight], [x]


def _conv_bias_only(L, g):
    m = _same_init(L, L.nn.Conv2d(2, 3, 3))
    x = _t(L, _XC, g)
    return m(x).square().sum(), [m.bias], [x]


def _mul(L, g):
    x, w = _t(L, _X2, g), _t(L, _W[0], True)
    return (x * w).square().sum(), [w], [x]


def _div_by_weight(L, g):
    x, w = _t(L, _X2, g), _t(L, _POS[0], True)
    return (x / w).sum(), [w], [x]


def _div_weight(L, g):
    x, w = _t(L, _POS, g), _t(L, _W[0], True)
    return (w / x).sum(), [w], [x]


def _pow_exponent(L, g):
    x, w = _t(L, _POS, g), _t(L, _W[0], True)
    return (x ** w).sum(), [w], [x]


def _pow_base(L, g):
    x, w = _t(L, _X2, g), _t(L, _POS[0], True)
    return (w ** x).sum(), [w], [x]


def _embedding(L, g):
    m = _same_init(L, L.nn.Embedding(5, 3))
    i = L.tensor([[1, 4, 1], [0, 2, 3]])
    return m(i).square().sum(), [m.weight], []


def _batch_norm(L, g):
    m = _same_init(L, L.nn.BatchNorm1d(3))
    x = _t(L, _X2, g)
    return (m(x) * _t(L, _X2)).sum(), [m.weight], [x]


def _layer_norm(L, g):
    m = _same_init(L, L.nn.LayerNorm(3))
    x = _t(L, _X2, g)
    return (m(x) * _t(L, _X2)).sum(), [m.weight], [x]


_CASES = {f.__name__[1:]: f for f in (_mm, _matmul3, _linear, _linear_module_3d, _mlp, _first_layer_only, _conv2d,
                                      _conv1d, _conv_bias_only, _mul, _div_by_weight, _div_weight, _pow_exponent,
                                      _pow_base, _embedding, _batch_norm, _layer_norm)}


def _no_grad_write(L, loss, params):
    with L.no_grad():
        for p in params:
            p.mul_(2)
    loss.backward()


def _step_between_backwards(L, loss, params):
    opt = L.optim.SGD(params, lr=0.1)
    loss.backward(retain_graph=True)
    opt.step()
    loss.backward()


def _step_before_backward(L, loss, params):
    opt = L.optim.SGD(params, lr=0.1)
    for p in params:
        p.grad = L.ones_like(p)
    opt.step()
    loss.backward()


_MUTATIONS = {"no_grad mul_": _no_grad_write, "step between backwards": _step_between_backwards,
              "step before backward": _step_before_backward}


def _run(L, case, mutation, x_grad):
    loss, params, inputs = case(L, x_grad)
    try:
        mutation(L, loss, params)
    except RuntimeError as e:
        return e
    return [t.grad.detach().numpy().copy() if t.grad is not None else None for t in params + inputs]


@pytest.mark.parametrize("x_grad", [False, True], ids=["input without grad", "input with grad"])
@pytest.mark.parametrize("mutation", sorted(_MUTATIONS))
@pytest.mark.parametrize("case", sorted(_CASES))
def test_backward_refuses_a_changed_saved_tensor_where_pytorch_does(case, mutation, x_grad):
    expected = _run(torch, _CASES[case], _MUTATIONS[mutation], x_grad)
    got = _run(gt, _CASES[case], _MUTATIONS[mutation], x_grad)
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"PyTorch raised {expected}; glassgrad ran"
        assert "modified by an inplace operation" in str(got)
        return
    assert not isinstance(got, Exception), f"PyTorch ran; glassgrad raised {got}"
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _gan(L, retain: bool, d_step_first: bool):
    """A generator's output scored by a discriminator; the discriminator's optimizer steps between
    the generator's forward and its backward (retain) or before the generator's loss is made."""
    G = _same_init(L, L.nn.Sequential(L.nn.Linear(2, 3), L.nn.Tanh()))
    D = _same_init(L, L.nn.Sequential(L.nn.Linear(3, 4), L.nn.LeakyReLU(0.2), L.nn.Linear(4, 1)))
    opt_d = L.optim.SGD(D.parameters(), lr=0.1)
    z = _t(L, _X2[:, :2])
    fake = G(z)
    if retain:  # the scores of D(fake) serve both losses
        scores = D(fake)
        scores.mean().backward(retain_graph=True)
        opt_d.step()
        (-scores).mean().backward()
    else:
        D(fake.detach()).mean().backward()
        opt_d.step()
        if d_step_first:
            pass
        (-D(fake)).mean().backward()
    return [p.grad.detach().numpy().copy() for p in G.parameters()]


@pytest.mark.parametrize("retain", [False, True], ids=["loss after the step", "retained scores"])
def test_the_gan_pattern_raises_only_where_pytorch_does(retain):
    try:
        expected = _gan(torch, retain, True)
    except RuntimeError as e:
        expected = e
    try:
        got = _gan(gt, retain, True)
    except RuntimeError as e:
        got = e
    assert isinstance(got, Exception) == isinstance(expected, Exception), (expected, got)
    if not isinstance(got, Exception):
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_optimizer_steps_between_two_backwards_of_a_layer_whose_input_needs_no_grad():
    """loss = model(x); loss.backward(retain_graph=True); opt.step(); loss.backward(): the weight is
    not saved (x needs no grad), so the second backward runs and accumulates into the updated
    parameters, as PyTorch's."""
    grads = []
    for L in (torch, gt):
        m = _same_init(L, L.nn.Linear(3, 2))
        opt = L.optim.SGD(m.parameters(), lr=0.5)
        loss = (m(_t(L, _X2)) * _t(L, _X2[:, :2])).sum()
        loss.backward(retain_graph=True)
        opt.step()
        loss.backward()
        grads.append([p.grad.detach().numpy().copy() for p in m.parameters()] +
                     [p.detach().numpy().copy() for p in m.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)
