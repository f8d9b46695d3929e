"""nn.Module rules compared with PyTorch's documented behaviour: __setattr__ refuses a non-tensor
over a buffer and a non-module over a child (TypeError); assigning parameters, layers or buffers
before Module.__init__ raises an AttributeError; state_dict() carries PyTorch's _metadata
(versions; BatchNorm and InstanceNorm are version 2, so a current state_dict without
num_batches_tracked is refused while one without versions loads); positional state_dict
arguments still work with a FutureWarning; load_state_dict refuses a non-mapping with a
TypeError; a Parameter of integers is allowed with requires_grad=False; a frozen parameter
stays frozen through load_state_dict and dtype conversions. Expected values are PyTorch 2.14's,
written out; the last test compares with torch where it is installed."""
from collections import OrderedDict

import pytest

import glassgrad as gg

nn = gg.nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 3)
        self.b = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
        self.register_buffer("buf", gg.zeros(2))


def test_non_tensor_over_buffer_is_refused():
    m = Net()
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'buf'"):
        m.buf = 3
    m.buf = gg.ones(5)  # a tensor replaces it
    assert [n for n, _ in m.named_buffers(recurse=False)] == ["buf"] and m.buf.shape == (5,)
    m.buf = None
    assert m.buf is None and "buf" not in m.state_dict()


def test_non_module_over_child_is_refused():
    m = Net()
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'a'"):
        m.a = 3
    with pytest.raises(TypeError, match="as child module 'a'"):
        m.a = gg.zeros(1)
    m.a = None
    assert m.a is None and [n for n, _ in m.named_children()] == ["b"]  # None children are skipped
    del m.a
    m.a = 3  # once deleted, a plain attribute
    assert m.a == 3


@pytest.mark.parametrize("body, what", [
    ("self.w = nn.Parameter(gg.zeros(1))", "parameters"),
    ("self.w = nn.ReLU()", "module"),
    ("self.register_buffer('w', gg.zeros(1))", "buffer"),
])
def test_assignment_before_init_is_an_attribute_error(body, what):
    ns = {"nn": nn, "gg": gg}
    exec("class A(nn.Module):\n    def __init__(self):\n        " + body + "\n", ns)
    with pytest.raises(AttributeError, match=f"cannot assign {what} before Module.__init__\\(\\) call"):
        ns["A"]()


def test_state_dict_metadata_versions():
    m = Net()
    sd = m.state_dict()
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("a", {"version": 1}), ("b", {"version": 1}),
                                        ("b.0", {"version": 1}), ("b.1", {"version": 2})])
    assert list(m.state_dict(prefix="m.")._metadata) == ["m", "m.a", "m.b", "m.b.0", "m.b.1"]
    assert nn.Module._version == 1 and nn.BatchNorm2d._version == 2 and nn.InstanceNorm1d._version == 2
    assert nn.LayerNorm._version == 1


def test_batchnorm_num_batches_tracked_required_by_version_2():
    m = Net()
    sd = m.state_dict()
    del sd["b.1.num_batches_tracked"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "b.1.num_batches_tracked"'):
        m.load_state_dict(sd)
    r = m.load_state_dict(sd, strict=False)
    assert r.missing_keys == ["b.1.num_batches_tracked"] and r.unexpected_keys == []
    plain = {k: v for k, v in sd.items()}  # no _metadata: an old checkpoint, loads as PyTorch's
    assert repr(m.load_state_dict(plain)) == "<All keys matched successfully>"
    sd._metadata["b.1"] = {"version": 1}
    assert m.load_state_dict(sd).missing_keys == []


def test_positional_state_dict_arguments_warn():
    m = Net()
    dest = {}
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        out = m.state_dict(dest, "p.")
    assert out is dest and list(dest)[:2] == ["p.buf", "p.a.weight"]
    with pytest.warns(FutureWarning):
        kept = m.state_dict(None, "", True)
    assert isinstance(kept["a.weight"], nn.Parameter)


def test_load_state_dict_needs_a_mapping():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>"):
        Net().load_state_dict([1, 2])


def test_integer_parameter_without_grad():
    p = nn.Parameter(gg.tensor([1, 2]), requires_grad=False)
    assert p.dtype == gg.int64 and not p.requires_grad
    assert repr(p) == "Parameter containing:\ntensor([1, 2])"
    m = nn.Linear(2, 2)
    m.idx = p
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias", "idx"]
    m.load_state_dict(m.state_dict())
    m.double()
    assert m.idx.dtype == gg.int64 and m.weight.dtype == gg.float64
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(gg.tensor([1, 2]))


def test_frozen_parameter_stays_frozen():
    m = nn.Linear(2, 2)
    m.weight.requires_grad_(False)
    m.load_state_dict(m.state_dict())
    assert not m.weight.requires_grad and m.bias.requires_grad
    m.double()
    assert not m.weight.requires_grad and m.bias.requires_grad
    m.float()(gg.ones(2)).sum().backward()
    assert m.weight.grad is None and m.bias.grad.tolist() == [1.0, 1.0]


def test_compare_with_torch():
    torch = pytest.importorskip("torch")

    def build(tnn):
        m = tnn.Module()
        m.a = tnn.Linear(2, 3)
        m.n = tnn.Sequential(tnn.BatchNorm2d(3), tnn.InstanceNorm1d(3), tnn.LayerNorm(3))
        return m
    ours, theirs = build(nn), build(torch.nn)
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata
    for m, exc in ((ours, None), (theirs, None)):
        m.register_buffer("b", torch.zeros(1) if m is theirs else gg.zeros(1))
        with pytest.raises(TypeError):
            m.b = 3
        with pytest.raises(TypeError):
            m.a = 3
    sd = theirs.state_dict()
    del sd["n.0.num_batches_tracked"]
    with pytest.raises(RuntimeError):
        theirs.load_state_dict(sd)
    ours_sd = ours.state_dict()
    del ours_sd["n.0.num_batches_tracked"]
    with pytest.raises(RuntimeError):
        ours.load_state_dict(ours_sd)
    tw = torch.nn.Linear(2, 2)
    tw.weight.requires_grad_(False)
    tw.double()
    assert tw.weight.requires_grad is False
