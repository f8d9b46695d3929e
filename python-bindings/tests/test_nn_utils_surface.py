"""torch.nn.utils names added for PyTorch's surface: skip_init, stateless.functional_call (with
its FutureWarning), the clip_grad and memory_format modules, parametrize's
transfer_parametrizations_and_params, nn.modules.utils.consume_prefix_in_state_dict_if_present,
and Module.load_state_dict(state_dict=...). Expected values follow PyTorch's documented behaviour;
the tests at the end compare with PyTorch where it is installed."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn.utils import parametrize


class _Symmetric(gg.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def test_skip_init_builds_the_module_on_the_device_asked():
    m = gg.nn.utils.skip_init(gg.nn.Linear, 5, 1)
    assert isinstance(m, gg.nn.Linear) and tuple(m.weight.shape) == (1, 5) and m.weight.requires_grad
    m2 = gg.nn.utils.skip_init(gg.nn.Linear, in_features=6, out_features=2, bias=False, device="cpu")
    assert tuple(m2.weight.shape) == (2, 6) and m2.bias is None and m2.weight.device.type == "cpu"


def test_skip_init_refuses_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="Expected a Module"):
        gg.nn.utils.skip_init(int, 3)

    class NoDevice(gg.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.w = gg.nn.Parameter(gg.zeros(n))

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        gg.nn.utils.skip_init(NoDevice, 3)


def test_stateless_functional_call_warns_and_uses_the_given_tensors():
    m = gg.nn.Linear(2, 1)
    w = gg.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        y = gg.nn.utils.stateless.functional_call(m, {"weight": w, "bias": gg.tensor([0.5])},
                                                  (gg.tensor([[3.0, 4.0]]),))
    assert y.tolist() == [[11.5]]
    y.sum().backward()
    assert w.grad.tolist() == [[3.0, 4.0]]
    assert m.weight is not w and m.weight.grad is None  # the module's own are back, untouched


def test_stateless_functional_call_single_argument_and_kwargs():
    m = gg.nn.Linear(2, 2, bias=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        y = gg.nn.utils.stateless.functional_call(m, {"weight": gg.eye(2)}, gg.tensor([1.0, -2.0]))
        z = gg.nn.utils.stateless.functional_call(m, {"weight": 2 * gg.eye(2)}, (), {"input": gg.tensor([1.0, 1.0])})
    assert y.tolist() == [1.0, -2.0] and z.tolist() == [2.0, 2.0]


def test_clip_grad_module_names():
    from glassgrad.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
    assert clip_grad_norm_ is gg.nn.utils.clip_grad_norm_ and clip_grad_value_ is gg.nn.utils.clip_grad_value_
    p = gg.nn.Parameter(gg.zeros(2))
    p.grad = gg.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = clip_grad_norm([p], 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)


def test_convert_weight_memory_format_keeps_the_module_and_its_values():
    model = gg.nn.Sequential(gg.nn.Conv2d(2, 3, 3), gg.nn.ReLU())
    x = gg.randn(1, 2, 5, 5)
    before = model(x).detach().numpy()
    assert gg.nn.utils.convert_conv2d_weight_memory_format(model, gg.channels_last) is model
    np.testing.assert_array_equal(model(x).detach().numpy(), before)
    c3 = gg.nn.Conv3d(1, 1, 2)
    assert gg.nn.utils.convert_conv3d_weight_memory_format(c3, gg.channels_last_3d) is c3
    with pytest.raises(TypeError, match="memory_format"):
        gg.nn.utils.convert_conv2d_weight_memory_format(model, "channels_last")


def test_transfer_parametrizations_shares_the_originals():
    a = gg.nn.Linear(3, 3)
    parametrize.register_parametrization(a, "weight", _Symmetric())
    b = gg.nn.Linear(3, 3)
    assert parametrize.transfer_parametrizations_and_params(a, b) is b
    assert parametrize.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())
    w = b.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    # a module without the name gets a Parameter of it first
    c = gg.nn.Module()
    parametrize.transfer_parametrizations_and_params(a, c, "weight")
    np.testing.assert_array_equal(c.weight.detach().numpy(), a.weight.detach().numpy())
    with pytest.raises(KeyError):
        parametrize.transfer_parametrizations_and_params(a, gg.nn.Linear(3, 3), "bias")
    # nothing parametrized: to_module unchanged
    d = gg.nn.Linear(3, 3)
    assert parametrize.transfer_parametrizations_and_params(gg.nn.Linear(3, 3), d) is d
    assert not parametrize.is_parametrized(d)


def test_consume_prefix_in_state_dict_if_present():
    from glassgrad.nn.modules.utils import consume_prefix_in_state_dict_if_present
    sd = OrderedDict([("module.a", 1), ("b", 2), ("module.c", 3)])
    sd._metadata = OrderedDict([("", {"v": 0}), ("module", {"v": 1}), ("module.a", {"v": 2}), ("x", {})])
    assert consume_prefix_in_state_dict_if_present(sd, "module.") is None
    assert list(sd.items()) == [("b", 2), ("a", 1), ("c", 3)]
    # 'module' becomes '' (replacing the DataParallel wrapper's entry), as PyTorch's
    assert list(sd._metadata.items()) == [("", {"v": 1}), ("x", {}), ("a", {"v": 2})]


def test_load_state_dict_takes_pytorchs_argument_name():
    src, dst = gg.nn.Linear(2, 2), gg.nn.Linear(2, 2)
    result = dst.load_state_dict(state_dict=src.state_dict(), strict=True)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    sd_t = OrderedDict([("module.a", 1), ("module", 2), ("b", 3)])
    sd_t._metadata = OrderedDict([("", {}), ("module", {"k": 1}), ("module.a", {})])
    sd_g = OrderedDict(sd_t)
    sd_g._metadata = OrderedDict(sd_t._metadata)
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd_t, "module.")
    gg.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd_g, "module.")
    assert list(sd_g.items()) == list(sd_t.items())
    assert list(sd_g._metadata.items()) == list(sd_t._metadata.items())
    assert set(torch.nn.utils.__all__) <= set(gg.nn.utils.__all__)
    assert set(torch.nn.utils.clip_grad.__all__) <= set(gg.nn.utils.clip_grad.__all__)

    weight, x = np.array([[1.5, -2.0, 0.25]]), np.array([[0.5, 1.0, -3.0], [2.0, 0.0, 1.0]])
    outs = []
    for lib in (torch, gg):
        m = lib.nn.Linear(3, 1)
        w = lib.tensor(weight, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            y = lib.nn.utils.stateless.functional_call(m, {"weight": w, "bias": lib.zeros(1, dtype=lib.float64)},
                                                       (lib.tensor(x),))
        (y ** 2).sum().backward()
        outs.append((y.detach().numpy(), w.grad.numpy()))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-12)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12)
