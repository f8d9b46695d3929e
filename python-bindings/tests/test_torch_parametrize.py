"""torch.nn.utils.parametrize (register_parametrization, remove_parametrizations, cached,
is_parametrized, type_before_parametrizations), parametrizations.weight_norm / spectral_norm and
the older weight_norm / remove_weight_norm hooks, against PyTorch: the same state_dict keys and
values, forwards, gradients, training steps, values after `module.weight = ...` and after removal;
weight_norm's gradient by float64 finite differences."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.debug.gradcheck import gradcheck
from glassgrad.nn.utils import parametrize

torch = pytest.importorskip("torch")

LAYERS = {"linear": (lambda lib: lib.nn.Linear(3, 4), (2, 3)),
          "conv": (lambda lib: lib.nn.Conv2d(2, 3, 3), (2, 2, 5, 5)),
          "convT": (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3), (2, 2, 4, 4))}


def _pair(kind, seed=0):
    """The same layer in both libraries (float64, PyTorch's random values copied over) and an input."""
    make, shape = LAYERS[kind]
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)  # spectral norm's starting vectors: repeatable
    gg.manual_seed(seed)
    theirs = make(torch).double()
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
    ours = make(gg).double()
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    return theirs, ours, rng.standard_normal(shape)


def _same(a, b, tol=1e-12):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def _check_forward_backward(theirs, ours, x, tol=1e-10):
    yt, yg = theirs(torch.tensor(x)), ours(gg.tensor(x))
    _same(yt, yg, tol)
    (yt ** 2).sum().backward()
    (yg ** 2).sum().backward()
    names = [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_parameters()] == names
    for (n, a), (_, b) in zip(theirs.named_parameters(), ours.named_parameters()):
        _same(a.grad, b.grad, tol)


def _same_state(theirs, ours, tol=1e-12):
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        _same(v, ours.state_dict()[k], tol)


@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_weight_norm_parametrization_matches_torch(kind, dim):
    theirs, ours, x = _pair(kind)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    gg.nn.utils.parametrizations.weight_norm(ours, dim=dim)
    assert type(ours).__name__ == type(theirs).__name__ == f"Parametrized{type(theirs).__name__[12:]}"
    assert parametrize.is_parametrized(ours) and parametrize.is_parametrized(ours, "weight")
    assert not parametrize.is_parametrized(ours, "bias")
    cls = gg.nn.Linear if kind == "linear" else gg.nn.Conv2d
    assert parametrize.type_before_parametrizations(ours) is cls
    _same_state(theirs, ours)
    _check_forward_backward(theirs, ours, x)
    new = np.random.default_rng(5).standard_normal(tuple(theirs.weight.shape))
    with torch.no_grad():
        theirs.weight = torch.tensor(new)
    ours.weight = gg.tensor(new)
    _same(theirs.weight, ours.weight)
    _same_state(theirs, ours)
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    gg.nn.utils.parametrize.remove_parametrizations(ours, "weight")
    assert type(ours) is cls
    assert "parametrizations" not in dict(ours.named_children())
    _same_state(theirs, ours)


def test_weight_norm_trains_as_torch_and_its_gradient_by_finite_differences():
    theirs, ours, x = _pair("linear", seed=3)
    torch.nn.utils.parametrizations.weight_norm(theirs)
    gg.nn.utils.parametrizations.weight_norm(ours)
    t_opt = torch.optim.Adam(theirs.parameters(), lr=0.05)
    g_opt = gg.optim.Adam(ours.parameters(), lr=0.05)
    for _ in range(4):
        for lib, model, opt in ((torch, theirs, t_opt), (gg, ours, g_opt)):
            opt.zero_grad()
            (model(lib.tensor(x)).tanh() ** 2).sum().backward()
            opt.step()
    _same_state(theirs, ours, 1e-10)
    norm = gg.nn.utils.parametrizations._WeightNorm(0)
    rng = np.random.default_rng(4)
    assert gradcheck(lambda g, v: norm(g, v), [rng.random((4, 1)) + 0.5, rng.standard_normal((4, 3))])
    norm_all = gg.nn.utils.parametrizations._WeightNorm(None)
    assert gradcheck(lambda g, v: norm_all(g, v), [np.array(1.3), rng.standard_normal((4, 3))])


@pytest.mark.parametrize("dim", [0, None])
@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_old_weight_norm_hooks_match_torch(kind, dim):
    theirs, ours, x = _pair(kind)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        torch.nn.utils.weight_norm(theirs, dim=dim)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        gg.nn.utils.weight_norm(ours, dim=dim)
    _same_state(theirs, ours)
    _check_forward_backward(theirs, ours, x)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gg.nn.utils.weight_norm(ours, dim=dim)
    torch.nn.utils.remove_weight_norm(theirs)
    gg.nn.utils.remove_weight_norm(ours)
    _same_state(theirs, ours)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        gg.nn.utils.remove_weight_norm(ours)


def _power_iterations_match(theirs, ours, x):
    """Spectral norm from PyTorch's starting vectors: forwards and vectors after two training
    steps and one in eval, then gradients."""
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    for training in (True, True, False):
        theirs.train(training)
        ours.train(training)
        _same(theirs(torch.tensor(x)), ours(gg.tensor(x)), 1e-10)
        _same_state(theirs, ours, 1e-10)
    _check_forward_backward(theirs, ours, x, 1e-9)


@pytest.mark.parametrize("kind", ["linear", "conv", "convT"])
def test_spectral_norm_parametrization_matches_torch(kind):
    theirs, ours, x = _pair(kind)
    torch.nn.utils.parametrizations.spectral_norm(theirs, n_power_iterations=2)
    gg.nn.utils.parametrizations.spectral_norm(ours, n_power_iterations=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # the power iteration starts from random vectors: start both from PyTorch's
    _power_iterations_match(theirs, ours, x)
    # sigma = u . W v <= the largest singular value (u, v unit vectors), and the power iteration
    # brings it close: the normalized weight's largest singular value is 1 or a little above
    dim = 1 if kind == "convT" else 0
    w = np.moveaxis(ours.weight.detach().numpy(), dim, 0)
    top = np.linalg.norm(w.reshape(w.shape[0], -1), 2)
    assert 1.0 - 1e-12 <= top <= 1.05


class _Symmetric(gg.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(0, 1)


class _TSymmetric(torch.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(0, 1)


class _Scale(gg.nn.Module):
    def forward(self, x):
        return x * 2.0

    def right_inverse(self, x):
        return x / 2.0


class _Split(gg.nn.Module):  # two stored tensors: the upper and the strictly lower triangle
    def forward(self, upper, lower):
        return upper + lower

    def right_inverse(self, x):
        return x.triu(), x.tril(-1)


def test_register_parametrization_keeps_the_parameter_object_and_chains():
    theirs, ours = torch.nn.Linear(4, 4).double(), gg.nn.Linear(4, 4).double()
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    weight = ours.weight
    opt = gg.optim.SGD(ours.parameters(), lr=0.1)
    parametrize.register_parametrization(ours, "weight", _Symmetric())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", _TSymmetric())
    assert ours.parametrizations.weight.original is weight  # the optimizer above still trains it
    _same_state(theirs, ours)
    w = ours.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    ours(gg.tensor(np.ones((1, 4)))).sum().backward()
    opt.step()
    assert not np.array_equal(weight.detach().numpy(), ours.weight.detach().numpy())
    parametrize.register_parametrization(ours, "weight", _Scale())  # chained: Scale(Symmetric(original))
    np.testing.assert_allclose(ours.weight.detach().numpy(), 2 * _sym(weight.detach().numpy()), rtol=1e-15)
    with parametrize.cached():
        assert ours.weight is ours.weight
    assert ours.weight is not ours.weight
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        ours.weight = gg.zeros(4, 4, dtype=gg.float64)
    parametrize.remove_parametrizations(ours, "weight", leave_parametrized=False)
    assert ours.weight is weight and type(ours) is gg.nn.Linear


def _sym(a):
    return np.triu(a) + np.triu(a, 1).T


def test_sequence_originals_and_the_errors_torch_raises():
    layer = gg.nn.Linear(3, 3).double()
    before = layer.weight.detach().numpy().copy()
    parametrize.register_parametrization(layer, "weight", _Split())
    assert [n for n, _ in layer.named_parameters()] == ["bias", "parametrizations.weight.original0",
                                                        "parametrizations.weight.original1"]
    np.testing.assert_allclose(layer.weight.detach().numpy(), before, rtol=1e-15)
    layer.weight = gg.tensor(np.eye(3))
    np.testing.assert_array_equal(layer.parametrizations.weight.original1.detach().numpy(), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(layer, "weight")
    np.testing.assert_array_equal(layer.weight.detach().numpy(), np.eye(3))
    assert isinstance(layer.weight, gg.nn.Parameter)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(layer, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(layer, "kernel", _Scale())

    class Flatten(gg.nn.Module):
        def forward(self, x):
            return x.reshape(-1)
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(layer, "weight", Flatten())
    with pytest.raises(ValueError, match="n_power_iterations"):
        gg.nn.utils.parametrizations.spectral_norm(gg.nn.Linear(2, 2), n_power_iterations=0)


@pytest.mark.parametrize("kind", ["linear", "conv", "convT"])
def test_old_spectral_norm_hooks_match_torch(kind):
    theirs, ours, x = _pair(kind, seed=6)
    torch.nn.utils.spectral_norm(theirs, n_power_iterations=3)
    gg.nn.utils.spectral_norm(ours, n_power_iterations=3)
    assert list(ours.state_dict()) == list(theirs.state_dict())  # bias, weight_orig, weight_u, weight_v
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    _power_iterations_match(theirs, ours, x)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        gg.nn.utils.spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    gg.nn.utils.remove_spectral_norm(ours)
    _same_state(theirs, ours, 1e-10)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        gg.nn.utils.remove_spectral_norm(ours)


@pytest.mark.parametrize("shape,orthogonal_map", [((4, 4), None), ((4, 4), "cayley"), ((4, 4), "householder"),
                                                  ((3, 5), None), ((5, 3), None), ((5, 3), "matrix_exp"),
                                                  ((3, 5), "cayley")])
def test_orthogonal_matches_torch(shape, orthogonal_map):
    out_f, in_f = shape
    rng = np.random.default_rng(8)
    theirs, ours = torch.nn.Linear(in_f, out_f).double(), gg.nn.Linear(in_f, out_f).double()
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map)
    gg.nn.utils.parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    assert list(ours.state_dict()) == list(theirs.state_dict())  # bias, ...original, ...0.base
    if out_f == in_f:  # the orthogonalized weight is unique: the same as PyTorch's
        _same_state(theirs, ours, 1e-12)
    else:  # a tall matrix is completed with random columns: take PyTorch's completion
        ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = rng.standard_normal((2, in_f))
    t_opt, g_opt = torch.optim.SGD(theirs.parameters(), lr=0.1), gg.optim.SGD(ours.parameters(), lr=0.1)
    for _ in range(3):
        for lib, model, opt in ((torch, theirs, t_opt), (gg, ours, g_opt)):
            opt.zero_grad()
            (model(lib.tensor(x)) ** 2).sum().backward()
            opt.step()
    _same(theirs.weight, ours.weight, 1e-12)
    w = ours.weight.detach().numpy()
    gram = w @ w.T if out_f <= in_f else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-13)


def test_orthogonal_arguments_and_householder_gradient():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        gg.nn.utils.parametrizations.orthogonal(gg.nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        gg.nn.utils.parametrizations.orthogonal(gg.nn.Linear(3, 3), orthogonal_map="qr")
    from glassgrad.nn.utils.orthogonal import _householder_product
    rng = np.random.default_rng(2)
    a, tau = rng.standard_normal((5, 3)), rng.random(3) + 0.5
    want = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau)).numpy()
    np.testing.assert_allclose(_householder_product(gg.tensor(a), gg.tensor(tau)).numpy(), want, rtol=1e-13, atol=1e-14)
    v = np.tril(a, -1) + np.eye(5, 3)  # NumPy: the product of the reflectors, first 3 columns
    h = np.eye(5)
    for i in range(3):
        h = h @ (np.eye(5) - tau[i] * np.outer(v[:, i], v[:, i]))
    np.testing.assert_allclose(want, h[:, :3], rtol=1e-13, atol=1e-14)
    assert gradcheck(lambda a, tau: _householder_product(a, tau), [rng.standard_normal((4, 3)), rng.random(3) + 0.5])
