"""Module.register_backward_hook and register_module_backward_hook, PyTorch's deprecated
("non-full") module backward hooks: the hook sees the gradients of the inputs of the node that
made the module's output (Linear: addmm's bias, input, weight.t()) and of its output, may return a
new grad_input that replaces what flows on, and PyTorch's FutureWarnings and mixing errors.
Expected values are worked out with NumPy; the last tests compare with PyTorch where installed."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn import legacy_backward_hooks as legacy
from glassgrad.nn.modules.module import register_module_backward_hook, register_module_full_backward_hook

W = np.array([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]])
B = np.array([0.1, -0.3])
X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])


@pytest.fixture
def global_flag():
    """The global kind flag is sticky (as PyTorch's): a test that sets it starts with it unset (an
    earlier file of the same process may have registered a global full backward hook) and leaves
    it as it found it."""
    before, legacy.GLOBAL_FLAG.is_full = legacy.GLOBAL_FLAG.is_full, None
    yield
    legacy.GLOBAL_FLAG.is_full = before


def _linear():
    m = gg.nn.Linear(3, 2).double()
    m.load_state_dict({"weight": W, "bias": B})
    return m


def _record(seen, ret=None):
    def hook(module, grad_input, grad_output):
        seen.append((module, [None if g is None else g.numpy() for g in grad_input], [g.numpy() for g in grad_output]))
        return ret(grad_input) if ret else None
    return hook


def test_linear_hook_sees_addmm_gradients():
    m, seen = _linear(), []
    m.register_backward_hook(_record(seen))
    x = gg.tensor(X, requires_grad=True)
    with pytest.warns(FutureWarning, match="forward contains multiple autograd Nodes"):
        y = m(x)
    (y * y).sum().backward()
    g = 2 * (X @ W.T + B)  # d(sum y^2)/dy
    assert len(seen) == 1 and seen[0][0] is m
    bias_grad, input_grad, weight_t_grad = seen[0][1]
    np.testing.assert_allclose(bias_grad, g.sum(0), rtol=1e-12)
    np.testing.assert_allclose(input_grad, g @ W, rtol=1e-12)
    np.testing.assert_allclose(weight_t_grad, X.T @ g, rtol=1e-12)  # the gradient of weight.t()
    np.testing.assert_allclose(seen[0][2][0], g, rtol=1e-12)
    np.testing.assert_allclose(m.weight.grad.numpy(), g.T @ X, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), g @ W, rtol=1e-12)


def test_input_without_grad_is_none_and_returned_grad_input_replaces():
    m, seen = _linear(), []
    m.register_backward_hook(_record(seen, lambda gi: tuple(None if t is None else 3 * t for t in gi)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        y = m(gg.tensor(X))
    y.sum().backward()
    assert seen[0][1][1] is None
    np.testing.assert_allclose(m.bias.grad.numpy(), 3 * np.full(2, 2.0), rtol=1e-12)
    np.testing.assert_allclose(m.weight.grad.numpy(), 3 * np.ones((2, 2)) @ X, rtol=1e-12)


def test_sequential_hook_is_its_last_nodes():
    seq = gg.nn.Sequential(_linear(), gg.nn.Tanh())
    seen = []
    seq.register_backward_hook(_record(seen))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        seq(gg.tensor(X, requires_grad=True)).sum().backward()
    z = X @ W.T + B
    (grad_in,), (grad_out,) = seen[0][1], seen[0][2]
    np.testing.assert_allclose(grad_out, np.ones((2, 2)))
    np.testing.assert_allclose(grad_in, 1 - np.tanh(z) ** 2, rtol=1e-12)  # TanhBackward's input: the Linear's output


def test_wrong_count_and_removal():
    m = _linear()
    handle = m.register_backward_hook(lambda mod, gi, go: gi[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        y = m(gg.tensor(X, requires_grad=True))
        with pytest.raises(RuntimeError, match=r"incorrect number of values \(got 1, but expected 3\)"):
            y.sum().backward()
        handle.remove()
        m(gg.tensor(X)).sum().backward()  # no hook: plain gradients
    np.testing.assert_allclose(m.bias.grad.numpy(), [2.0, 2.0])


def test_output_without_grad_fn_runs_no_hook():
    m, seen = gg.nn.Identity(), []
    m.register_backward_hook(_record(seen))
    x = gg.tensor(X, requires_grad=True)
    y = m(x)
    assert y is x
    (2 * y).sum().backward()
    assert seen == []


def test_full_and_non_full_hooks_do_not_mix_on_one_module():
    m = gg.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on a "
                                           "single Module"):
        m.register_backward_hook(lambda *a: None)
    m2 = gg.nn.Linear(2, 2)
    h = m2.register_backward_hook(lambda *a: None)
    assert m2._is_full_backward_hook is False and gg.nn.Linear(2, 2)._is_full_backward_hook is None
    h.remove()
    with pytest.raises(RuntimeError, match="single Module"):  # the flag stays, as PyTorch's
        m2.register_full_backward_hook(lambda *a: None)


def test_global_non_full_hook_runs_for_every_module(global_flag):
    seen = []
    handle = register_module_backward_hook(_record(seen))
    try:
        with pytest.raises(RuntimeError, match="as a global Module hook"):
            register_module_full_backward_hook(lambda *a: None)
        model = gg.nn.Sequential(_linear(), gg.nn.ReLU())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            model(gg.tensor(X, requires_grad=True)).sum().backward()
    finally:
        handle.remove()
    # ReLU's node, then the Sequential's (the same node), then Linear's addmm, in backward order
    assert [type(m).__name__ for m, _, _ in seen] == ["ReLU", "Sequential", "Linear"]


def test_warnings_name_what_the_hook_misses():
    class Pair(gg.nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    class Dict(gg.nn.Module):
        def forward(self, a):
            return {"out": a * 2}

    x = gg.tensor(X, requires_grad=True)
    for module, args, match in [(Pair(), (x, x), "outputs are generated by different autograd Nodes"),
                                (Dict(), (x,), "does not return a single Tensor or a tuple of Tensors"),
                                (gg.nn.Linear(3, 2).double(), (x,), "forward contains multiple autograd Nodes")]:
        module.register_backward_hook(lambda *a: None)
        with pytest.warns(FutureWarning, match=match):
            module(*args)
    y = x * 1  # an input made by a node: ReLU's node reads exactly it, so no warning
    relu = gg.nn.ReLU()
    relu.register_backward_hook(lambda *a: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relu(y)


def _torch_run(lib, make, shape, x_grad, ret):
    m = make(lib)
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    seen = []

    def hook(mod, gi, go):
        seen.append(([None if g is None else g.detach().numpy().copy() for g in gi],
                     [g.detach().numpy().copy() for g in go]))
        return ret(gi) if ret else None

    m.register_backward_hook(hook)
    x = lib.tensor(rng.standard_normal(shape), requires_grad=x_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = m(x)
    (y * y).sum().backward()
    grads = [p.grad.numpy() for p in m.parameters()] + [None if x.grad is None else x.grad.numpy()]
    return seen, grads, [str(w.message) for w in caught if w.category is FutureWarning]


def _same(a, b):
    assert (a is None) == (b is None)
    if a is not None:
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


CASES = {"linear": (lambda lib: lib.nn.Linear(3, 2).double(), (4, 3), True, None),
         "linear_no_input_grad": (lambda lib: lib.nn.Linear(3, 2).double(), (4, 3), False, None),
         "relu": (lambda lib: lib.nn.ReLU(), (4, 3), True, None),
         "sequential": (lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh()).double(), (4, 3), True,
                        None),
         "conv2d": (lambda lib: lib.nn.Conv2d(1, 2, 3).double(), (1, 1, 5, 5), True, None),
         "returns_doubled": (lambda lib: lib.nn.Linear(3, 2).double(), (4, 3), True,
                             lambda gi: tuple(None if g is None else 2 * g for g in gi))}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case):
    torch = pytest.importorskip("torch")
    theirs, ours = (_torch_run(lib, *CASES[case]) for lib in (torch, gg))
    assert len(ours[0]) == len(theirs[0]) == 1
    (gi_t, go_t), (gi_o, go_o) = theirs[0][0], ours[0][0]
    assert len(gi_o) == len(gi_t) and len(go_o) == len(go_t)
    for a, b in zip(gi_t + go_t + theirs[1], gi_o + go_o + ours[1]):
        _same(a, b)
    assert ours[2] == theirs[2]


def test_hooked_layers_in_a_chain():
    first, relu, seen = _linear(), gg.nn.ReLU(), []
    first.register_backward_hook(_record(seen))
    relu.register_backward_hook(_record(seen))
    x = gg.tensor(X, requires_grad=True)
    with pytest.warns(FutureWarning) as caught:
        y = relu(first(x))
    assert len(caught) == 1  # the Linear's; ReLU's node reads exactly its input's node
    y.sum().backward()
    z = X @ W.T + B
    assert [type(m).__name__ for m, _, _ in seen] == ["ReLU", "Linear"]
    np.testing.assert_allclose(seen[0][1][0], (z > 0).astype(float))
    np.testing.assert_allclose(seen[1][2][0], (z > 0).astype(float))
    np.testing.assert_allclose(x.grad.numpy(), (z > 0) @ W, rtol=1e-12)


def test_an_inplace_relu_after_a_hooked_layer_has_a_node_of_its_own():
    # ReLU(inplace=True) writes the Linear's hooked output in place: the tensor is then the
    # output of the ReLU's node, whose hook sees that node's gradients and runs first, as PyTorch's
    # (guided backprop clamps the gradient there and returns it)
    first, relu, seen = _linear(), gg.nn.ReLU(inplace=True), []
    first.register_backward_hook(_record(seen))
    relu.register_backward_hook(_record(seen, lambda gi: (gi[0].clamp(min=0.0) * 3,)))
    x = gg.tensor(X, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        y = relu(first(x))
    y.sum().backward()
    z = X @ W.T + B
    mask = (z > 0).astype(float)
    assert [type(m).__name__ for m, _, _ in seen] == ["ReLU", "Linear"]
    assert len(seen[0][1]) == 1 and seen[0][1][0].shape == (2, 2)
    np.testing.assert_allclose(seen[0][1][0], mask)
    np.testing.assert_allclose(seen[1][2][0], 3 * mask)  # what the ReLU's hook returned flows on
    np.testing.assert_allclose(x.grad.numpy(), (3 * mask) @ W, rtol=1e-12)
