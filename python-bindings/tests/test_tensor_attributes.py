"""A tensor's attributes as PyTorch's: Size (a tuple subclass), dim/ndimension, numel/nelement,
element_size, is_cuda, type(), is_floating_point, tolist, dtype and device objects."""
import pickle

import numpy as np
import pytest

import glassgrad as gg


def test_size_is_a_tuple_that_prints_and_slices_as_torch_size():
    x = gg.zeros(2, 3, 4)
    s = x.size()
    assert isinstance(s, gg.Size) and isinstance(s, tuple) and isinstance(x.shape, gg.Size)
    assert s == (2, 3, 4) and x.shape == s and list(s) == [2, 3, 4]
    assert repr(s) == "glassgrad.Size([2, 3, 4])" and repr(gg.Size()) == "glassgrad.Size([])"
    assert isinstance(s[1:], gg.Size) and s[1:] == (3, 4) and s[-1] == 4 and isinstance(s[0], int)
    assert isinstance(s + (5,), gg.Size) and s + (5,) == (2, 3, 4, 5) and (1,) + s == (1, 2, 3, 4)
    assert s.numel() == 24 and gg.Size([]).numel() == 1
    n, c, h = x.size()
    assert (n, c, h) == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is gg.Size
    with pytest.raises(TypeError):
        gg.Size([2.5])


@pytest.mark.parametrize("dtype,name,itemsize,floating", [
    ("float32", "FloatTensor", 4, True), ("float64", "DoubleTensor", 8, True), ("int64", "LongTensor", 8, False),
    ("uint8", "ByteTensor", 1, False), ("bool", "BoolTensor", 1, False)])
def test_type_element_size_and_floating(dtype, name, itemsize, floating):
    x = gg.zeros(2, 3, dtype=dtype, device="cpu")
    assert x.type() == f"glassgrad.{name}"
    assert x.element_size() == itemsize and x.dtype.itemsize == itemsize
    assert x.is_floating_point() is floating and x.dtype.is_floating_point is floating
    assert x.dim() == x.ndimension() == x.ndim == 2 and x.numel() == x.nelement() == 6
    assert x.is_cuda is False and x.get_device() == -1


def test_type_with_a_dtype_converts():
    x = gg.tensor([1.5, -2.5], device="cpu")
    assert x.type(gg.float64).dtype == "float64"
    assert x.type("glassgrad.LongTensor").dtype == gg.int64 and x.type("torch.LongTensor").tolist() == [1, -2]
    assert x.type(gg.float32) is x


def test_dtype_objects_compare_with_names_and_print_as_glassgrad():
    x = gg.zeros(2, device="cpu")
    assert x.dtype == gg.float32 == "float32" and x.dtype is gg.float32
    assert repr(gg.float32) == "glassgrad.float32" and str(gg.int64) == "glassgrad.int64"
    assert f"{x.dtype}" == "glassgrad.float32" and "%s" % gg.bool == "glassgrad.bool"
    assert f"{gg.int8:>16}|" == "  glassgrad.int8|"
    assert gg.float32 in ("float64", "float32") and {"float32": 1}[gg.float32] == 1 and {gg.int64: 2}["int64"] == 2
    assert np.dtype(gg.float16) == np.float16 and np.zeros(1, dtype=gg.int16).dtype == np.int16
    assert gg.finfo(gg.float64).dtype == "float64" and type(gg.finfo(gg.float64).dtype) is str
    assert gg.float is gg.float32 and gg.double is gg.float64 and gg.long is gg.int64 and gg.int is gg.int32
    assert gg.bool == "bool" and gg.half is gg.float16
    assert gg.int64.is_signed and not gg.uint8.is_signed and not gg.bool.is_floating_point
    assert pickle.loads(pickle.dumps(gg.float64)) is gg.float64
    assert gg.zeros(2, dtype=gg.long, device="cpu").dtype == "int64"
    assert gg.zeros(2, dtype=np.float64, device="cpu").dtype == "float64"


def test_device_objects():
    d = gg.device("cuda", 1)
    assert d == "cuda:1" and d.type == "cuda" and d.index == 1 and repr(d) == "device(type='cuda', index=1)"
    assert gg.device("cpu").type == "cpu" and gg.device("cpu").index is None and repr(gg.device("cpu")) == \
        "device(type='cpu')"
    assert gg.device("cuda").index is None and gg.device(type="cuda:0").index == 0
    x = gg.zeros(2, device=gg.device("cpu"))
    assert x.device == "cpu" and x.device.type == "cpu" and isinstance(x.device, gg.device)
    with pytest.raises(gg.DeviceError):
        gg.device("tpu")
    with pytest.raises(gg.DeviceError, match="already names an index"):
        gg.device("cuda:0", 1)


def test_tolist_and_item():
    assert gg.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert gg.tensor(2.5).tolist() == 2.5


def test_parameter_takes_torch_s_arguments():
    p = gg.nn.Parameter(gg.ones(3, device="cpu"))
    assert p.requires_grad and p.device == "cpu" and p.dtype == "float32"
    q = gg.nn.Parameter(gg.ones(3, device="cpu"), requires_grad=False)
    assert not q.requires_grad
    assert gg.nn.Parameter([1.0, 2.0]).dtype == "float32"
    assert repr(p).startswith("Parameter containing:\ntensor(")


def test_set_grad_enabled_as_a_call_a_block_and_a_decorator():
    x = gg.ones(2, requires_grad=True, device="cpu")
    with gg.set_grad_enabled(False):
        assert not gg.is_grad_enabled() and not (x * 2).requires_grad
    assert gg.is_grad_enabled() and (x * 2).requires_grad
    gg.set_grad_enabled(False)
    try:
        assert not gg.is_grad_enabled()
    finally:
        gg.set_grad_enabled(True)

    @gg.set_grad_enabled(False)
    def evaluate():
        return gg.is_grad_enabled()
    assert evaluate() is False and gg.is_grad_enabled()


def test_grad_assignment_checks_type_and_shape_as_torch():
    # The polynomial tutorial's `a.grad, b.grad = 0., 0.` raises PyTorch's TypeError.
    a = gg.zeros(3, requires_grad=True)
    with pytest.raises(TypeError, match="(?s)assigned grad expected to be a Tensor or None but got grad of type "
                                        "float.*fix: x.grad = None"):
        a.grad = 0.0
    with pytest.raises(RuntimeError, match="(?s)gradient of size '\\[2\\]' to a tensor of size '\\[3\\]'.*fix"):
        a.grad = gg.zeros(2)
    assert a.grad is None
    a.grad = gg.ones(3)
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    a.data = gg.zeros(2)  # .data of another shape keeps .grad as it was, as PyTorch's
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    a.grad = None
    assert a.grad is None


def test_attributes_set_on_a_tensor_stay_as_on_pytorch_s():
    # fast.ai's course sets gradients by hand (`inp.g = out.g @ w.t()`), others tag parameters;
    # PyTorch keeps them in the tensor's __dict__, and copy, deepcopy and pickle carry them
    import copy
    x = gg.tensor([1.0, 2.0])
    x.g = gg.tensor([3.0, 4.0])
    x.note = "grad by hand"
    assert x.g.tolist() == [3.0, 4.0] and x.__dict__.keys() == {"g", "note"}
    for other in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert other is not x and other.tolist() == [1.0, 2.0] and other.note == "grad by hand"
        assert other.g.tolist() == [3.0, 4.0]
    assert copy.deepcopy(x).g is not x.g and copy.copy(x).g is x.g
    assert not hasattr(x.detach(), "g") and not hasattr(x * 1, "g") and gg.ones(1).__dict__ == {}
    p = gg.nn.Parameter(gg.ones(2))
    p.no_decay = True
    assert p.no_decay is True
    del x.note
    assert not hasattr(x, "note")
