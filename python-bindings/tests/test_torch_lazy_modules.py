"""nn.Lazy* layers against PyTorch: the class after the first forward, parameter shapes, state_dict
keys, outputs after loading PyTorch's state_dict (initial values are random in both and are not
compared), load_state_dict into an uninitialized layer, and device/dtype kept from before the
first forward."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import glassgrad as gg  # noqa: E402
import glassgrad.nn as nn  # noqa: E402

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {}, (2, 3, 9)),
    ("LazyConv1d", (4, 3), {}, (3, 9)),
    ("LazyConv2d", (4, 3), {"padding": 1}, (2, 3, 6, 6)),
    ("LazyConv2d", (4, 3), {"groups": 2}, (2, 6, 6, 6)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"stride": 2}, (2, 3, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"affine": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 8)),
    ("LazyInstanceNorm2d", (), {"affine": True, "track_running_stats": True}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (1, 3, 2, 2, 2)),
]


def _pair(name, args, kwargs):
    return getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


@pytest.mark.parametrize("name,args,kwargs,shape", CASES)
def test_first_forward_matches_torch(name, args, kwargs, shape):
    ours, theirs = _pair(name, args, kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours.train(), theirs.train()
    y = ours(gg.tensor(x))
    expected = theirs(torch.from_numpy(x))
    assert type(ours).__name__ == type(theirs).__name__ and type(ours) is getattr(nn, type(theirs).__name__)
    assert not hasattr(ours, "has_uninitialized_params") and not hasattr(theirs, "has_uninitialized_params")
    assert repr(ours) == repr(theirs)
    assert tuple(y.shape) == tuple(expected.shape)
    assert {k: tuple(np.shape(v)) for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    # Same values: PyTorch's state_dict loaded, both in eval mode, same output.
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(gg.tensor(x)).detach().numpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,args,kwargs,shape", CASES)
def test_load_state_dict_materializes(name, args, kwargs, shape):
    ours, theirs = _pair(name, args, kwargs)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    theirs(torch.from_numpy(x))
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    assert type(ours).__name__ == type(theirs).__name__
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(gg.tensor(x)).detach().numpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_parameters_keep_identity_and_train():
    m = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    held = list(m.parameters())
    assert all(isinstance(p, nn.UninitializedParameter) for p in held)
    m(gg.tensor(np.ones((2, 3), np.float32)))
    assert [p is q for p, q in zip(held, m.parameters())] == [True] * 4
    assert all(type(p) is nn.Parameter for p in held)
    assert [tuple(p.shape) for p in held] == [(4, 3), (4,), (1, 4), (1,)]
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert m[0].weight.name == "0.weight"
    opt = gg.optim.SGD(m.parameters(), lr=0.1)
    before = [p.detach().numpy().copy() for p in held]
    m(gg.tensor(np.ones((2, 3), np.float32))).sum().backward()
    opt.step()
    # Every parameter the loss reaches moves. (The first layer's gets no gradient when its random
    # initialization leaves all four ReLUs off for this input, about one draw in 16: its grad is
    # zero then, in PyTorch too; the last bias always gets the batch size, 2.)
    for b, p in zip(before, held):
        assert np.array_equal(b, p.detach().numpy()) == (not np.any(p.grad.numpy())), p.name
    assert not np.array_equal(before[3], held[3].detach().numpy())


def test_initialization_is_the_plain_class():
    gg.manual_seed(3)
    lazy = nn.LazyLinear(50)
    lazy(gg.tensor(np.ones((1, 20), np.float32)))
    bound = 1 / np.sqrt(20)  # Linear.reset_parameters: U(-1/sqrt(in), 1/sqrt(in))
    w = lazy.weight.detach().numpy()
    assert w.shape == (50, 20) and np.abs(w).max() <= bound and np.abs(w).max() > bound / 2
    bn = nn.LazyBatchNorm2d().eval()
    bn(gg.tensor(np.ones((2, 3, 2, 2), np.float32)))
    np.testing.assert_array_equal(bn.weight.detach().numpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(bn.running_var.numpy(), np.ones(3, np.float32))


def test_dtype_before_first_forward_is_kept():
    m = nn.LazyLinear(2).double()
    y = m(gg.tensor(np.ones((3, 4), np.float64)))
    assert str(m.weight.dtype).endswith("float64") and tuple(y.shape) == (3, 2)
    m = nn.LazyConv2d(2, 1, dtype=gg.float64)
    m(gg.tensor(np.ones((1, 3, 2, 2), np.float64)))
    assert str(m.weight.dtype).endswith("float64")


def test_gradients_after_materializing_float64():
    m = nn.LazyLinear(2).double()
    xs = np.random.default_rng(2).standard_normal((3, 4))
    x = gg.tensor(xs, requires_grad=True)
    (m(x) ** 2).sum().backward()
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    g = 2 * (xs @ w.T + b)  # NumPy reference of d(sum(y^2))/dy
    np.testing.assert_allclose(m.weight.grad.numpy(), g.T @ xs, rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), g @ w, rtol=1e-10)
    np.testing.assert_allclose(m.bias.grad.numpy(), g.sum(0), rtol=1e-10)


def test_errors():
    m = nn.LazyConv2d(2, 3)
    with pytest.raises(gg.ShapeError, match="LazyConv2d"):
        m.initialize_parameters(0)
    with pytest.raises(TypeError, match="LazyConv2d"):
        m([1, 2])
    assert m.has_uninitialized_params()


def test_optimizer_built_before_the_first_forward_trains():
    for make in (lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9), lambda ps: gg.optim.Adam(ps, lr=0.1)):
        m = nn.LazyLinear(2)
        opt = make(m.parameters())  # PyTorch accepts uninitialized parameters here too
        x = gg.tensor(np.ones((3, 4), np.float32))
        for _ in range(2):
            opt.zero_grad()
            m(x).sum().backward()
            opt.step()
        assert tuple(m.weight.shape) == (2, 4) and np.isfinite(m.weight.detach().numpy()).all()


def test_device_set_before_the_first_forward_is_kept():
    m = nn.LazyConv1d(2, 1).to("cpu")
    m(gg.tensor(np.ones((1, 3, 4), np.float32)))
    assert m.weight.device == "cpu" and m.bias.device == "cpu"


def test_loading_an_uninitialized_state_into_a_plain_layer_fails_clearly():
    with pytest.raises(RuntimeError, match="uninitialized"):
        torch.nn.Linear(4, 2).load_state_dict(torch.nn.LazyLinear(2).state_dict())
    with pytest.raises(gg.ShapeError, match="(?s)'weight' is an uninitialized parameter.*run one forward pass"):
        nn.Linear(4, 2).load_state_dict(nn.LazyLinear(2).state_dict())


def test_module_paths_are_torchs():
    from glassgrad.nn.modules.lazy import LazyModuleMixin
    from glassgrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
    assert isinstance(nn.LazyLinear(2), LazyModuleMixin) and isinstance(torch.nn.LazyLinear(2),
                                                                        torch.nn.modules.lazy.LazyModuleMixin)
    assert Parameter is nn.Parameter and Buffer is nn.Buffer and UninitializedBuffer is nn.UninitializedBuffer
    m = nn.LazyLinear(2)
    assert isinstance(m.weight, UninitializedParameter) and is_lazy(m.weight)
    assert torch.nn.parameter.is_lazy(torch.nn.LazyLinear(2).weight)
    m(gg.tensor(np.ones((1, 3), np.float32)))
    assert not is_lazy(m.weight)


def test_uninitialized_shape_is_an_error_as_in_torch():
    with pytest.raises(RuntimeError, match="shape of an uninitialized"):
        torch.nn.LazyLinear(2).weight.shape
    for t in (nn.LazyLinear(2).weight, nn.LazyBatchNorm1d().running_mean):
        with pytest.raises(RuntimeError, match="(?s)shape of an uninitialized.*fix: call the model once"):
            t.shape


def test_deepcopy_before_the_first_forward_stays_lazy():
    import copy
    ours, theirs = (copy.deepcopy(m) for m in _pair("LazyLinear", (3,), {}))
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()
    ours(gg.tensor(np.ones((2, 4), np.float32)))
    theirs(torch.ones(2, 4))
    assert {k: tuple(np.shape(v)) for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    # PyTorch cannot deepcopy an UninitializedBuffer (a ValueError); glassgrad copies it lazy.
    bn = copy.deepcopy(nn.LazyBatchNorm2d())
    assert bn.has_uninitialized_params()
    bn(gg.tensor(np.ones((2, 4, 3, 3), np.float32)))
    assert tuple(bn.running_mean.shape) == (4,) and type(bn) is nn.BatchNorm2d


# Calls on an uninitialized weight (before the first forward) whose PyTorch exception type the
# test takes from torch: ValueError for the init functions (PyTorch's __torch_function__ or dim()
# first), cat and stack; kaiming_normal_ reads the shape first there (RuntimeError); copy_ fails on
# the sizes (RuntimeError).
_UNINITIALIZED_CALLS = {
    "init.uniform_": lambda L, w: L.nn.init.uniform_(w),
    "init.normal_": lambda L, w: L.nn.init.normal_(w),
    "init.trunc_normal_": lambda L, w: L.nn.init.trunc_normal_(w),
    "init.constant_": lambda L, w: L.nn.init.constant_(w, 0.5),
    "init.ones_": lambda L, w: L.nn.init.ones_(w),
    "init.zeros_": lambda L, w: L.nn.init.zeros_(w),
    "init.eye_": lambda L, w: L.nn.init.eye_(w),
    "init.dirac_": lambda L, w: L.nn.init.dirac_(w),
    "init.orthogonal_": lambda L, w: L.nn.init.orthogonal_(w),
    "init.sparse_": lambda L, w: L.nn.init.sparse_(w, 0.5),
    "init.xavier_uniform_": lambda L, w: L.nn.init.xavier_uniform_(w),
    "init.xavier_normal_": lambda L, w: L.nn.init.xavier_normal_(w),
    "init.kaiming_uniform_": lambda L, w: L.nn.init.kaiming_uniform_(w),
    "init.kaiming_normal_": lambda L, w: L.nn.init.kaiming_normal_(w),
    "init._calculate_fan_in_and_fan_out": lambda L, w: L.nn.init._calculate_fan_in_and_fan_out(w),
    "cat": lambda L, w: L.cat([w, w]),
    "stack": lambda L, w: L.stack([w]),
    "hstack": lambda L, w: L.hstack([w, L.ones(3, 2)]),
    "mm": lambda L, w: L.mm(L.ones(2, 3), w),
    "copy_ into it": lambda L, w: w.copy_(L.ones(3, 3)),
    "copy_ from it": lambda L, w: L.ones(3, 3).copy_(w),
}


@pytest.mark.parametrize("call", sorted(_UNINITIALIZED_CALLS))
def test_an_uninitialized_weight_raises_torchs_exception_type(call):
    with pytest.raises(Exception) as theirs:
        _UNINITIALIZED_CALLS[call](torch, torch.nn.LazyLinear(3).weight)
    with pytest.raises(theirs.type):
        _UNINITIALIZED_CALLS[call](gg, nn.LazyLinear(3).weight)
