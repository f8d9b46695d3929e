"""Optimizer steps update parameters that are not dense in row-major order (a transposed view made
a leaf, `torch.ones(4, 3).t().requires_grad_()`) as PyTorch's in-place steps do: the values move by
the optimizer's rule, the parameter keeps its strides and its storage (the tensor it views sees the
update), its version moves once a step, and a step that fails leaves it as it was. The expected
values follow PyTorch's documented update rules (torch.optim.SGD, torch.optim.Adam); the
comparison with PyTorch itself is skipped where it is not installed."""
import numpy as np
import pytest

import glassgrad as gg

W = np.arange(12, dtype=np.float32).reshape(3, 4)  # the gradient of (p * W).sum()


def _strided():
    return gg.ones(4, 3).t().requires_grad_()


def _steps(opt, p, n=2, loss=lambda p: (p * gg.tensor(W)).sum()):
    for _ in range(n):
        opt.zero_grad()
        loss(p).backward()
        opt.step()


def test_a_transposed_leaf_is_strided_to_begin_with():
    p = _strided()
    assert p.stride() == (1, 3) and not p.is_contiguous() and p.is_leaf


@pytest.mark.parametrize("make,expected", [
    # p -= lr * g, twice
    (lambda ps: gg.optim.SGD(ps, lr=0.1), 1 - 0.2 * W),
    # buf = g, then 0.9 * g + g: p -= 0.1 * g, then 0.19 * g
    (lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9), 1 - 0.29 * W),
    # a constant gradient: each step moves by lr * g / (|g| + eps) (bias corrections cancel)
    (lambda ps: gg.optim.Adam(ps, lr=0.1), 1 - 0.2 * W / (np.abs(W) + 1e-8)),
    (lambda ps: gg.optim.AdamW(ps, lr=0.1, weight_decay=0.0), 1 - 0.2 * W / (np.abs(W) + 1e-8)),
], ids=["sgd", "sgd-momentum", "adam", "adamw"])
def test_a_strided_parameter_is_updated_and_keeps_its_strides(make, expected):
    p = _strided()
    opt = make([p])
    _steps(opt, p)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-6, atol=1e-6)
    assert p.stride() == (1, 3)
    assert p.is_leaf and p.requires_grad
    np.testing.assert_array_equal(p.grad.numpy(), W)  # the gradient is the one backward() made


def test_the_viewed_tensor_sees_the_update_and_the_version_moves_once_a_step():
    base = gg.ones(4, 3)
    p = base.t().requires_grad_()
    opt = gg.optim.SGD([p], lr=0.1)
    (p * gg.tensor(W)).sum().backward()
    v = p._version
    opt.step()
    assert p._version == v + 1
    np.testing.assert_allclose(base.numpy(), (1 - 0.1 * W).T, rtol=1e-6, atol=1e-6)  # 1 - 0.1 * 10 rounds to about -1.5e-8 with an FMA (CUDA)


def test_a_parameter_listed_twice_is_updated_twice():
    p = _strided()
    with pytest.warns(UserWarning, match="duplicate"):  # as PyTorch: warned about and kept
        opt = gg.optim.SGD([p, p], lr=0.1)
    (p * gg.tensor(W)).sum().backward()
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), 1 - 0.2 * W, rtol=1e-6, atol=1e-6)
    assert p.stride() == (1, 3)


_ALL = {
    "SGD": dict(lr=0.1), "SGD-nesterov": dict(lr=0.1, momentum=0.9, nesterov=True),
    "SGD-maximize": dict(lr=0.1, momentum=0.9, weight_decay=0.1, maximize=True),
    "Adam": dict(lr=0.1), "Adam-amsgrad": dict(lr=0.1, amsgrad=True), "AdamW": dict(lr=0.1),
    "RMSprop": dict(lr=0.01, momentum=0.5, centered=True), "Adagrad": dict(lr=0.1), "Adadelta": dict(lr=1.0),
    "Adamax": dict(lr=0.1), "NAdam": dict(lr=0.1), "RAdam": dict(lr=0.1), "Rprop": dict(lr=0.1),
    "ASGD": dict(lr=0.1), "Adafactor": dict(lr=0.1), "Muon": dict(lr=0.1),
}

_WAVY = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5


def _wavy_loss(lib, p, q):
    return (p * lib.tensor(_WAVY)).sin().sum() + (p ** 2).sum() * 0.3 + (q * q).sum()


def _train(lib, name, p, steps=3):
    """Three steps of optimizer `name` over p and a dense q in one group: (p's values, q's)."""
    q = lib.ones(2, 5).requires_grad_()
    opt = getattr(lib.optim, name.split("-")[0])([p, q], **_ALL[name])
    for _ in range(steps):
        opt.zero_grad()
        _wavy_loss(lib, p, q).backward()
        opt.step()
    return p.detach().numpy().copy(), q.detach().numpy().copy()


@pytest.mark.parametrize("name", sorted(_ALL))
def test_every_optimizer_updates_a_strided_parameter_as_a_dense_one(name):
    p = _strided()
    strided = _train(gg, name, p)
    dense = _train(gg, name, gg.ones(3, 4).requires_grad_())
    assert not np.array_equal(strided[0], np.ones((3, 4), np.float32))
    np.testing.assert_allclose(strided[0], dense[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(strided[1], dense[1], rtol=1e-6, atol=1e-7)
    assert p.stride() == (1, 3)


def test_lbfgs_minimizes_over_a_strided_parameter():
    p = _strided()
    target = gg.tensor(W / 7)
    opt = gg.optim.LBFGS([p], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = ((p - target) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(p.detach().numpy(), W / 7, atol=1e-4)
    assert p.stride() == (1, 3)


@pytest.mark.parametrize("interrupt", [RuntimeError, KeyboardInterrupt], ids=["error", "keyboard-interrupt"])
def test_a_step_failing_part_way_leaves_a_strided_parameter_as_it_was(interrupt):
    def pair():
        p, q = _strided(), gg.ones(5).requires_grad_()
        opt = gg.optim.Adam([q, p], lr=0.1)
        _wavy = (lambda: ((p * gg.tensor(W)).sin().sum() + (q * q).sum()).backward())
        _wavy()
        opt.step()  # state exists
        opt.zero_grad()
        _wavy()
        return p, q, opt

    p, q, opt = pair()
    ref_p, ref_q, ref_opt = pair()
    ref_opt.step()
    before = p.detach().numpy().copy()
    calls = []

    def hook(node, inputs, outputs):
        calls.append(node.op)
        if len(calls) == 2:  # q's update ran, p's has not
            raise interrupt("stop")

    with gg.debug.register_hook("optimizer", hook, when="optimizer"):
        with pytest.raises(interrupt):
            opt.step()
    np.testing.assert_array_equal(p.detach().numpy(), before)
    assert p.stride() == (1, 3) and p.is_leaf
    opt.step()  # the retried step equals an undisturbed one
    np.testing.assert_allclose(p.detach().numpy(), ref_p.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(q.detach().numpy(), ref_q.detach().numpy(), rtol=1e-6)
    assert p.stride() == (1, 3)


@pytest.mark.parametrize("name", sorted(_ALL))
def test_strided_parameters_match_pytorch(name):
    torch = pytest.importorskip("torch")
    mine = gg.ones(4, 3).t().requires_grad_()
    theirs = torch.ones(4, 3).t().requires_grad_()
    got, want = _train(gg, name, mine), _train(torch, name, theirs)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert mine.stride() == theirs.stride()


def _state_strides(opt, p):
    """{entry: strides} of p's state tensors of p's shape."""
    return {k: v.stride() for k, v in opt.state[p].items() if hasattr(v, "shape") and v.shape == p.shape}


@pytest.mark.parametrize("name", sorted(set(_ALL) - {"Adafactor", "Muon"}))  # their state is factored
def test_the_state_of_a_strided_parameter_has_its_strides(name):
    # PyTorch makes state with zeros_like(p, memory_format=torch.preserve_format)
    p = _strided()
    opt = getattr(gg.optim, name.split("-")[0])([p], **_ALL[name])
    _steps(opt, p, loss=lambda p: (p * gg.tensor(_WAVY)).sin().sum())
    strides = _state_strides(opt, p)
    assert strides or name == "SGD"  # plain SGD keeps no buffer
    assert all(s == (1, 3) for s in strides.values()), strides


def test_a_channels_last_parameter_s_momentum_is_channels_last():
    p = gg.ones(2, 3, 4, 5).to(memory_format=gg.channels_last).requires_grad_()
    opt = gg.optim.SGD([p], lr=0.1, momentum=0.9)
    _steps(opt, p, n=3, loss=lambda p: (p * p).sum())
    buf = opt.state[p]["momentum_buffer"]
    assert buf.stride() == p.stride() == (60, 1, 15, 3)
    # the buffer holds 2p + 0.9 * (previous buffers): compared with a dense run
    q = gg.ones(2, 3, 4, 5).requires_grad_()
    dense = gg.optim.SGD([q], lr=0.1, momentum=0.9)
    _steps(dense, q, n=3, loss=lambda p: (p * p).sum())
    np.testing.assert_allclose(buf.numpy(), dense.state[q]["momentum_buffer"].numpy(), rtol=1e-6)
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6)


def test_a_loaded_state_keeps_its_layout_as_pytorch_s():
    # PyTorch's load_state_dict keeps a loaded tensor's strides: a row-major state stays row-major
    p = _strided()
    opt = gg.optim.Adam([p], lr=0.1)
    _steps(opt, p)
    saved = {"state": {0: {k: (v.contiguous() if v.dim() else v) for k, v in opt.state[p].items()}},
             "param_groups": opt.state_dict()["param_groups"]}
    fresh = gg.optim.Adam([p], lr=0.1)
    fresh.load_state_dict(saved)
    _steps(fresh, p)
    assert all(s == (4, 1) for s in _state_strides(fresh, p).values())
    _steps(opt, p, n=1)
    assert all(s == (1, 3) for s in _state_strides(opt, p).values())


def test_state_strides_match_pytorch():
    torch = pytest.importorskip("torch")
    for name in sorted(set(_ALL) - {"Muon"}):
        got = [gg.ones(4, 3).t().requires_grad_()]
        want = [torch.ones(4, 3).t().requires_grad_()]
        opts = []
        for lib, (p,) in ((gg, got), (torch, want)):
            opt = getattr(lib.optim, name.split("-")[0])([p], **_ALL[name])
            _steps(opt, p, loss=lambda p, lib=lib: (p * lib.tensor(_WAVY)).sin().sum())
            opts.append(opt)
        assert _state_strides(opts[0], got[0]) == _state_strides(opts[1], want[0]), name


def test_the_views_among_the_parameters_are_found_in_one_call():
    # optimizer.step() finds the parameters that may be strided with one runtime call
    # (_C.lazy_views: the positions of the handles that are views), not a property read each.
    base = gg.ones(4, 3)
    handles = [base._h, base.t()._h, gg.zeros(2)._h, base[1:]._h]
    assert list(gg._C.lazy_views(handles)) == [1, 3]
    assert list(gg._C.lazy_views([base._h])) == []
