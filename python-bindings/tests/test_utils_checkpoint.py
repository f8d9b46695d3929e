"""glassgrad.utils.checkpoint against torch.utils.checkpoint: gradients of the input and of every
parameter equal PyTorch's (both variants, checkpoint_sequential's segments), PyTorch's warnings and
errors, the reentrant variant's visible rules; and within glassgrad, a block with dropout gives the
same gradients with and without checkpoint(), and with the planner recomputing it under a budget
(these run without PyTorch too)."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from glassgrad.utils.checkpoint import checkpoint, checkpoint_sequential


@pytest.fixture
def tcp(torch):
    """torch.utils.checkpoint (the conftest's torch fixture skips where PyTorch is missing)."""
    from torch.utils import checkpoint
    return checkpoint


def _pair(torch, layers):
    """The same float64 network in both libraries (glassgrad's weights copied into torch's)."""
    ours = gg.nn.Sequential(*[layer(gg) for layer in layers]).double()
    theirs = torch.nn.Sequential(*[layer(torch) for layer in layers]).double()
    theirs.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in ours.state_dict().items()})
    return ours, theirs


LAYERS = [lambda m: m.nn.Linear(7, 5), lambda m: m.nn.Tanh(), lambda m: m.nn.Linear(5, 6), lambda m: m.nn.SiLU(),
          lambda m: m.nn.Linear(6, 3)]


def _grads(lib, model, x, run):
    xt = lib.tensor(x, requires_grad=True)
    out = run(model, xt)
    (out * lib.tensor(np.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape)))).sum().backward()
    return [out.detach().numpy(), xt.grad.detach().numpy()] + [p.grad.detach().numpy() for p in model.parameters()]


def _assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_match_torch(use_reentrant, torch, tcp):
    ours, theirs = _pair(torch, LAYERS)
    x = np.random.default_rng(0).standard_normal((4, 7))

    def run_with(cp):
        def run(model, xt):
            h = cp(lambda a: model[2](model[1](model[0](a))), xt, use_reentrant=use_reentrant)
            return model[4](model[3](h))
        return run
    _assert_same(_grads(gg, ours, x, run_with(checkpoint)), _grads(torch, theirs, x, run_with(tcp.checkpoint)))


@pytest.mark.parametrize("segments", [1, 2, 3, 5])
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential_matches_torch(segments, use_reentrant, torch, tcp):
    ours, theirs = _pair(torch, LAYERS)
    x = np.random.default_rng(1).standard_normal((3, 7))
    got = _grads(gg, ours, x, lambda m, xt: checkpoint_sequential(m, segments, xt, use_reentrant=use_reentrant))
    want = _grads(torch, theirs, x, lambda m, xt: tcp.checkpoint_sequential(m, segments, xt,
                                                                             use_reentrant=use_reentrant))
    _assert_same(got, want)


def test_keyword_arguments_reach_the_function_without_reentrance(torch, tcp):
    x = np.random.default_rng(2).standard_normal(5)

    def f(lib, cp):
        xt = lib.tensor(x, requires_grad=True)
        out = cp(lambda a, scale=1.0: (a * scale).sin(), xt, scale=3.0, use_reentrant=False)
        out.sum().backward()
        return out.detach().numpy(), xt.grad.detach().numpy()
    _assert_same(f(gg, checkpoint), f(torch, tcp.checkpoint))


def _outcome(call):
    """(warning texts, error type name and first line, or None) of call()."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            error = None
        except Exception as e:  # compared with PyTorch's
            error = (type(e).__name__, str(e).splitlines()[0])
    return [str(w.message).splitlines()[0] for w in caught if issubclass(w.category, UserWarning)], error


CALLS = {
    "no use_reentrant": lambda lib, cp, x: cp.checkpoint(lib.sin, x),
    "reentrant, no input needs grad": lambda lib, cp, x: cp.checkpoint(lib.sin, x.detach(), use_reentrant=True),
    "reentrant keyword": lambda lib, cp, x: cp.checkpoint(lambda a, k=1: a * k, x, k=2, use_reentrant=True),
    "reentrant context_fn": lambda lib, cp, x: cp.checkpoint(lib.sin, x, use_reentrant=True,
                                                               context_fn=cp.noop_context_fn),
    "reentrant debug": lambda lib, cp, x: cp.checkpoint(lib.sin, x, use_reentrant=True, debug=True),
    "determinism_check": lambda lib, cp, x: cp.checkpoint(lib.sin, x, use_reentrant=False, determinism_check="x"),
    "function None": lambda lib, cp, x: cp.checkpoint(None, x, use_reentrant=False),
    "sequential, no use_reentrant": lambda lib, cp, x: cp.checkpoint_sequential([lib.sin, lib.cos], 2, x),
    "sequential keyword": lambda lib, cp, x: cp.checkpoint_sequential([lib.sin], 1, x, use_reentrant=False, foo=1),
    "sequential more segments than functions": lambda lib, cp, x: cp.checkpoint_sequential(
        [lib.sin], 2, x, use_reentrant=False),
    "sequential zero segments": lambda lib, cp, x: cp.checkpoint_sequential([lib.sin], 0, x, use_reentrant=False),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_warnings_and_errors_are_pytorchs(name, torch, tcp):
    import glassgrad.utils.checkpoint as gcp
    ours = _outcome(lambda: CALLS[name](gg, gcp, gg.randn(3, requires_grad=True)))
    theirs = _outcome(lambda: CALLS[name](torch, tcp, torch.randn(3, requires_grad=True)))
    assert ours == theirs


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_what_needs_a_gradient_is_pytorchs(use_reentrant, torch, tcp):
    """Reentrant: parameters alone do not make the output differentiable, and tensors inside a
    dict come back detached; without reentrance both stay in the graph."""
    def probe(lib, cp):
        layer = lib.nn.Linear(3, 2)
        x = lib.randn(4, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            params_only = cp.checkpoint(layer, x, use_reentrant=use_reentrant).requires_grad
        xg = lib.randn(4, 3, requires_grad=True)
        out = cp.checkpoint(lambda a: ({"y": layer(a)}, layer(a), [a * 2]), xg, use_reentrant=use_reentrant)
        return params_only, out[0]["y"].requires_grad, out[1].requires_grad, out[2][0].requires_grad
    import glassgrad.utils.checkpoint as gcp
    assert probe(gg, gcp) == probe(torch, tcp)


class _DropoutBlock(gg.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.a, self.b, self.drop = gg.nn.Linear(width, width), gg.nn.Linear(width, width), gg.nn.Dropout(0.3)

    def forward(self, x):
        return self.b(self.drop(self.a(x).tanh()) * 1.5).tanh()


def _dropout_model():
    gg.manual_seed(0)
    model = gg.nn.Sequential(*[_DropoutBlock(128) for _ in range(4)])
    x = gg.tensor(np.random.default_rng(3).standard_normal((256, 128)).astype(np.float32), requires_grad=True)
    return model, x


def _step(model, x, use_checkpoint):
    h = x
    for block in model:
        h = checkpoint(block, h, use_reentrant=False) if use_checkpoint else block(h)
    (h * h).sum().backward()
    return x.grad


def _dropout_grads(use_checkpoint, seed=5, budget_fraction=None):
    model, x = _dropout_model()
    if budget_fraction:
        plain = gg.memory_report(_step, model, x, use_checkpoint)
        x.grad = None
        model.zero_grad()
        _C.set_memory_budget(int(budget_fraction * (plain.arena + plain.outputs)))
    try:
        if budget_fraction:
            plan = gg.memory_report(_step, model, x, use_checkpoint).plan
            x.grad = None
            model.zero_grad()
            recomputed = [line for line in plan.str(buffers=False).splitlines() if "(recompute)" in line]
            assert any(" Dropout " in line for line in recomputed), "the budget should make the planner recompute"
        gg.manual_seed(seed)
        _step(model, x, use_checkpoint)
        return [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]
    finally:
        _C.set_memory_budget(0)


def test_dropout_inside_gives_the_gradients_of_the_plain_run():
    plain, checkpointed = _dropout_grads(False), _dropout_grads(True)
    for a, b in zip(plain, checkpointed):
        np.testing.assert_array_equal(a, b)
    other_masks = _dropout_grads(True, seed=6)  # the test can fail: another seed, other masks
    assert not all(np.array_equal(a, b) for a, b in zip(plain, other_masks))


def test_dropout_recomputed_by_the_planner_sees_the_same_mask():
    """Under a memory budget the planner recomputes activations (a Dropout among them) before
    their backward readers; the gradients are the plain run's bit for bit."""
    plain = _dropout_grads(True)
    recomputed = _dropout_grads(True, budget_fraction=0.8)
    for a, b in zip(plain, recomputed):
        np.testing.assert_array_equal(a, b)


def test_the_helpers_are_pytorchs(torch, tcp):
    import glassgrad.utils.checkpoint as gcp
    for lib, cp in ((gg, gcp), (torch, tcp)):
        x = lib.ones(2, requires_grad=True)
        d = cp.detach_variable((x, 3))
        assert d[0] is not x and d[0].requires_grad and d[1] == 3 and d[0].grad_fn is None
        with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
            cp.detach_variable(x)
        with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops"):
            cp.create_selective_checkpoint_contexts(3)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            cp.check_backward_validity((lib.ones(2),))
        assert [p.name for p in cp.CheckpointPolicy] == [p.name for p in tcp.CheckpointPolicy]
        assert [p.value for p in cp.CheckpointPolicy] == [p.value for p in tcp.CheckpointPolicy]
        assert issubclass(cp.CheckpointError, RuntimeError)
        assert cp.get_device_states(lib.ones(2)) == ([], [])
        # selective checkpointing's contexts are accepted (here they change nothing)
        policy = cp.create_selective_checkpoint_contexts(lambda ctx, op, *a, **k: cp.CheckpointPolicy.PREFER_SAVE)
        y = cp.checkpoint(lambda a: (a * 3).sin(), x, use_reentrant=False, context_fn=lambda: policy)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.detach().numpy(), 3 * np.cos(3.0) * np.ones(2), rtol=1e-6)


def _reentrant_graph(lib, cp):
    """What PyTorch's reentrant checkpoint makes visible of its autograd Function: the outputs'
    grad_fn and its next_functions, and the refusals of autograd.grad and backward(inputs=...)
    through it (the parameters inside are no inputs of the graph)."""
    layer = lib.nn.Linear(3, 3).double()
    x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)

    def outcome(f):
        try:
            f()
            return "ok"
        except RuntimeError as e:
            return ("RuntimeError", str(e).split("\n")[0][:60])

    pair = cp.checkpoint(lambda a: (layer(a).tanh(), a * 2), x, use_reentrant=True)
    names = [type(t.grad_fn).__name__ for t in pair]
    below = [type(n[0]).__name__ for n in pair[0].grad_fn.next_functions]
    run = [lambda: cp.checkpoint(lambda a: layer(a).tanh(), x, use_reentrant=True)]
    return (names, below,
            outcome(lambda: lib.autograd.grad(run[0]().sum(), x)),
            outcome(lambda: lib.autograd.grad(run[0]().sum(), x, create_graph=True)),
            outcome(lambda: lib.autograd.grad(run[0]().sum(), layer.weight)),
            outcome(lambda: run[0]().sum().backward(inputs=[x])),
            outcome(lambda: lib.autograd.grad(cp.checkpoint(lambda a: layer(a).tanh(), x,
                                                            use_reentrant=False).sum(), [x, layer.weight])))


def test_the_reentrant_variant_is_pytorchs_autograd_function(torch, tcp):
    import glassgrad.utils.checkpoint as gcp
    ours, theirs = _reentrant_graph(gg, gcp), _reentrant_graph(torch, tcp)
    assert ours[0] == ["CheckpointFunctionBackward"] * 2
    assert ours == theirs


def test_the_reentrant_recomputation_draws_the_forwards_dropout_mask():
    """preserve_rng_state: the backward's rerun of a dropout sees the forward's mask, so the
    gradients are the plain run's bit for bit (with use_reentrant=True, as without)."""
    model, x = _dropout_model()
    gg.manual_seed(5)
    h = x
    for block in model:
        h = checkpoint(block, h, use_reentrant=True)
    (h * h).sum().backward()
    got = [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]
    for a, b in zip(_dropout_grads(False), got):
        np.testing.assert_array_equal(a, b)
