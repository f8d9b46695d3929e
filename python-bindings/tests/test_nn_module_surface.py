"""nn.Module's remaining PyTorch attributes (call_super_init, dump_patches, T_destination; xpu,
ipu and mtia, which raise DeviceError here: no such backend) and nn.Container, PyTorch's
deprecated container (its FutureWarning, the modules it registers, its repr)."""
import pytest

import glassgrad as gg


def test_class_attributes():
    assert gg.nn.Module.call_super_init is False and gg.nn.Module.dump_patches is False
    assert gg.nn.Module.T_destination.__name__ == "T_destination"
    assert gg.nn.Linear(1, 1).call_super_init is False


@pytest.mark.parametrize("method", ["xpu", "ipu", "mtia"])
def test_other_accelerators_raise_naming_the_device(method):
    m = gg.nn.Linear(2, 2)
    with pytest.raises(gg.DeviceError, match=f"device '{method}:1'.*no {method} backend"):
        getattr(m, method)(1)
    with pytest.raises(gg.DeviceError, match=f"'{method}:0'"):
        getattr(m, method)()
    assert m.weight.device.type == "cpu"


def test_container_registers_its_modules_and_warns():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = gg.nn.Container(a=gg.nn.Linear(2, 3), b=gg.nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"]
    assert sorted(c.state_dict()) == ["a.bias", "a.weight"]
    assert repr(c) == ("Container(\n  (a): Linear(in_features=2, out_features=3, bias=True)\n  (b): ReLU()\n)")
    assert gg.nn.modules.container.Container is gg.nn.Container


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("call_super_init", "dump_patches"):
        assert getattr(gg.nn.Module, name) == getattr(torch.nn.Module, name)
    with pytest.warns(FutureWarning) as theirs:
        t = torch.nn.Container(a=torch.nn.Linear(2, 3), b=torch.nn.ReLU())
    with pytest.warns(FutureWarning) as ours:
        g = gg.nn.Container(a=gg.nn.Linear(2, 3), b=gg.nn.ReLU())
    assert str(ours[0].message) == str(theirs[0].message) and repr(g) == repr(t)
    assert not {n for n in dir(torch.nn.Module) if not n.startswith("_")} - set(dir(gg.nn.Module))


def test_add_module_checks_the_name_as_pytorch():
    net = gg.nn.Sequential(gg.nn.Linear(2, 2))
    net.register_buffer("b", gg.zeros(1))
    with pytest.raises(KeyError, match="module name can.*t contain"):
        net.add_module("a.b", gg.nn.ReLU())
    with pytest.raises(KeyError, match="module name can.*t be empty string"):
        net.register_module("", gg.nn.ReLU())
    with pytest.raises(KeyError, match="attribute 'b' already exists"):
        net.add_module("b", gg.nn.ReLU())
    with pytest.raises(TypeError, match="module name should be a string. Got int"):
        net.add_module(3, gg.nn.ReLU())
    net.add_module("0", gg.nn.Tanh())  # replacing a submodule keeps its place
    assert [type(m).__name__ for m in net.children()] == ["Tanh"] and "b" in dict(net.named_buffers())
    with pytest.raises(KeyError, match="attribute 'keys' already exists"):
        gg.nn.ModuleDict({"keys": gg.nn.ReLU()})


def test_get_buffer_and_parameter_errors():
    net = gg.nn.Sequential(gg.nn.Linear(2, 2))
    net.register_buffer("b", gg.zeros(1))
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        net.get_buffer("0.weight")
    with pytest.raises(AttributeError, match="`b` is not an nn.Parameter"):
        net.get_parameter("b")


def test_factory_kwargs():
    assert gg.nn.factory_kwargs(None) == {}
    got = gg.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": gg.float64}})
    assert got == {"device": "cpu", "dtype": gg.float64}
    given = {"factory_kwargs": {"dtype": gg.float32}}
    gg.nn.factory_kwargs(given)["device"] = "cpu"
    assert given == {"factory_kwargs": {"dtype": gg.float32}}  # the input is left as it was
    with pytest.raises(TypeError, match="unexpected kwargs"):
        gg.nn.factory_kwargs({"bias": True})
    with pytest.raises(TypeError, match="dtype specified twice, in \\*\\*kwargs and in factory_kwargs"):
        gg.nn.factory_kwargs({"dtype": gg.float32, "factory_kwargs": {"dtype": gg.float64}})
    w = gg.empty(2, 3, **gg.nn.factory_kwargs({"dtype": gg.float64}))
    assert w.dtype == gg.float64


def test_function_base_jvp_and_vmap_raise_as_pytorch():
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        gg.autograd.Function.jvp(None)
    with pytest.raises(NotImplementedError, match="override the vmap staticmethod or set generate_vmap_rule"):
        gg.autograd.Function.vmap(None, None)


def test_factory_kwargs_against_pytorch():
    torch = pytest.importorskip("torch")
    for kwargs in (None, {"device": "cpu"}, {"memory_format": "m", "factory_kwargs": {"device": "cpu"}}):
        assert gg.nn.factory_kwargs(kwargs) == torch.nn.factory_kwargs(kwargs)


def test_uninitialized_tensor_mixin():
    from glassgrad.nn.parameter import UninitializedTensorMixin, is_lazy
    p, b = gg.nn.UninitializedParameter(), gg.nn.UninitializedBuffer()
    assert isinstance(p, UninitializedTensorMixin) and isinstance(b, UninitializedTensorMixin) and is_lazy(p)
    assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter or buffer"):
        gg.nn.LazyLinear(3).share_memory()
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        _ = p.shape
    p.materialize((2, 3))
    assert type(p) is gg.nn.Parameter and tuple(p.shape) == (2, 3) and not is_lazy(p)
    assert not isinstance(p, UninitializedTensorMixin)


def test_uninitialized_share_memory_against_pytorch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.LazyLinear(3).share_memory()
    with pytest.raises(RuntimeError) as ours:
        gg.nn.LazyLinear(3).share_memory()
    assert str(ours.value) == str(theirs.value)
    assert set(torch.nn.parameter.__all__) <= set(gg.nn.parameter.__all__)
