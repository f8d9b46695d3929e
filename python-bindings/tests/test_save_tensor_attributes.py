"""glassgrad.save / glassgrad.load keep the attributes a script sets on a tensor or a Parameter
(`p.no_decay = True`), as torch.save and torch.load do: torch.save writes such a tensor as
torch._tensor._rebuild_from_type_v2(_rebuild_tensor_v2, torch.Tensor, args, state) and such a
Parameter as torch._utils._rebuild_parameter_with_state(data, requires_grad, hooks, state), state
the tensor's __dict__ (Tensor.__reduce_ex__ / Parameter.__reduce_ex__), and its weights-only loader
takes both. A tensor without attributes is written as before."""
import io
import pickletools
import zipfile

import numpy as np
import pytest

import glassgrad as gg


def _round_trip(obj, **load_args):
    buf = io.BytesIO()
    gg.save(obj, buf)
    buf.seek(0)
    return gg.load(buf, **load_args), buf.getvalue()


def _globals(raw: bytes) -> set:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        pkl = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    return {str(arg) for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"}


def test_a_tensors_attributes_come_back():
    t = gg.tensor([1.0, 2.0], requires_grad=True)
    t.foo, t.bar = 3, [1, "x"]
    got, raw = _round_trip({"t": t, "same": [t]})
    assert got["t"].__dict__ == {"foo": 3, "bar": [1, "x"]}
    assert got["t"].requires_grad and got["same"][0] is got["t"]
    np.testing.assert_array_equal(got["t"].detach().numpy(), [1.0, 2.0])
    assert "torch._tensor _rebuild_from_type_v2" in _globals(raw) and "torch Tensor" in _globals(raw)


def test_an_integer_tensors_attributes_come_back():
    i = gg.tensor([1, 2])
    i.tag = "int"
    got, _ = _round_trip(i)
    assert got.dtype == gg.int64 and got.tag == "int" and got.tolist() == [1, 2]


def test_a_parameters_attributes_come_back_on_a_parameter():
    p = gg.nn.Parameter(gg.ones(2))
    p.no_decay = True
    got, raw = _round_trip({"p": p})
    assert type(got["p"]) is gg.nn.Parameter and got["p"].requires_grad
    assert got["p"].__dict__ == {"no_decay": True}
    assert "torch._utils _rebuild_parameter_with_state" in _globals(raw)


def test_a_whole_modules_parameter_keeps_its_attributes():
    m = gg.nn.Linear(2, 2)
    m.weight.no_decay = True
    got, _ = _round_trip(m, weights_only=False)
    assert got.weight.no_decay is True and not hasattr(got.bias, "no_decay")


def test_tensors_without_attributes_are_written_as_before():
    _, raw = _round_trip({"t": gg.ones(2), "p": gg.nn.Parameter(gg.ones(2))})
    names = _globals(raw)
    assert "torch._tensor _rebuild_from_type_v2" not in names
    assert "torch._utils _rebuild_parameter_with_state" not in names


def test_an_attribute_weights_only_refuses_is_refused():
    t = gg.ones(1)
    t.when = np.datetime64("2020-01-01")  # a NumPy scalar of no allowed global
    buf = io.BytesIO()
    gg.save(t, buf)
    buf.seek(0)
    with pytest.raises(Exception, match="Weights only load failed"):
        gg.load(buf)


def _marked(m):
    """A tensor and a Parameter of library m (torch or glassgrad), each with an attribute set."""
    t = m.ones(2, requires_grad=True)
    t.foo = 3
    p = m.nn.Parameter(m.ones(2))
    p.no_decay = True
    return {"t": t, "p": p}


@pytest.mark.parametrize("writer,reader", [("glassgrad", "torch"), ("torch", "glassgrad")])
def test_each_reads_the_others_attributes(writer, reader):
    torch = pytest.importorskip("torch")
    libs = {"torch": torch, "glassgrad": gg}
    buf = io.BytesIO()
    libs[writer].save(_marked(libs[writer]), buf)
    buf.seek(0)
    got = libs[reader].load(buf)
    assert got["t"].__dict__ == {"foo": 3} and got["t"].requires_grad
    assert type(got["p"]) is libs[reader].nn.Parameter and got["p"].__dict__ == {"no_decay": True}
