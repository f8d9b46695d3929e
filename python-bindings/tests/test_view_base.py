"""Tensor._base and Tensor._is_view() (PyTorch's documented semantics, expected values written
out): a view's _base is the root tensor its views started from, the same object; None for a
tensor that is not a view (copies, detach(), .data, views of inference tensors)."""
import copy
import gc
import pickle
import weakref

import pytest

import glassgrad as torch

# each: a view of y made by the op (PyTorch: y[1:]._base is y, ..., a view of a view too)
VIEWS = {
    "slice": lambda y: y[1:],
    "int index": lambda y: y[1],
    "column": lambda y: y[:, 1],
    "None index": lambda y: y[None],
    "whole slice": lambda y: y[:],
    "ellipsis": lambda y: y[...],
    "whole slices": lambda y: y[:, :],
    "view": lambda y: y.view(24),
    "view same shape": lambda y: y.view(4, 6),
    "view_as": lambda y: y.view_as(y),
    "reshape (a view)": lambda y: y.reshape(24),
    "t": lambda y: y.t(),
    "T": lambda y: y.T,
    "mT": lambda y: y.mT,
    "transpose": lambda y: y.transpose(0, 1),
    "permute": lambda y: y.permute(1, 0),
    "movedim": lambda y: y.movedim(0, 1),
    "select": lambda y: y.select(0, 1),
    "unsqueeze": lambda y: y.unsqueeze(0),
    "expand": lambda y: y.unsqueeze(0).expand(3, 4, 6),
    "expand same shape": lambda y: y.expand(4, 6),
    "narrow": lambda y: y.narrow(0, 1, 2),
    "diagonal": lambda y: y.diagonal(),
    "unbind": lambda y: y.unbind(0)[2],
    "split": lambda y: y.split(2)[1],
    "chunk": lambda y: y.chunk(2)[1],
    "tensor_split": lambda y: y.tensor_split(2)[1],
    "hsplit": lambda y: y.hsplit(2)[0],
    "flatten": lambda y: y.flatten(),
    "unflatten": lambda y: y.unflatten(1, (2, 3)),
    "view of a view": lambda y: y[1:].t(),
    "view of a view of a view": lambda y: y[1:].t()[0],
    "as_strided (block strides)": lambda y: y.as_strided((2, 3), (6, 1), 6),
}

# each: a tensor that is not a view (PyTorch: _base is None, _is_view() False)
NOT_VIEWS = {
    "advanced index": lambda y: y[[0, 1]],
    "bool mask": lambda y: y[y > 0],
    "reshape (a copy)": lambda y: y.t().reshape(24),
    "contiguous of t": lambda y: y.t().contiguous(),
    "clone": lambda y: y.clone(),
    "clone of a view": lambda y: y[1:].clone(),
    "detach": lambda y: y.detach(),
    "detach of a view": lambda y: y[1:].detach(),
    "data": lambda y: y.data,
    "data of a view": lambda y: y[1:].data,
    "arithmetic on a view": lambda y: y[1:] * 2,
    "view(dtype)": lambda y: y.view(y.int().dtype),
    "zeros_like of a view": lambda y: y[1:].new_zeros(3, 6),
}


@pytest.mark.parametrize("make", list(VIEWS.values()), ids=list(VIEWS))
def test_view_base_is_the_root(make):
    y = torch.randn(4, 6)
    v = make(y)
    assert v._is_view() is True
    assert v._base is y
    assert y._base is None and y._is_view() is False


@pytest.mark.parametrize("make", list(NOT_VIEWS.values()), ids=list(NOT_VIEWS))
def test_not_a_view_has_no_base(make):
    y = torch.randn(4, 6)
    out = make(y)
    assert out._base is None
    assert out._is_view() is False


def test_a_view_of_a_detached_tensor_has_it_as_base():
    y = torch.randn(4, 6)
    d = y.detach()
    assert d[1:]._base is d
    assert y.data[1:]._base is not y


def test_base_survives_in_place_ops():
    y = torch.randn(4, 6)
    v = y[1:]
    assert v.add_(1) is v and v._base is y
    v.mul_(2)
    y.add_(1)  # a write to the base keeps the view's base
    assert v._base is y
    tv = y[:2]
    tv.t_()
    assert tv._base is y
    z = torch.randn(3, 4)
    z.t_()  # an in-place view op on a tensor that is no view: still none
    assert z._base is None


def test_base_with_autograd():
    p = torch.randn(3, 4, requires_grad=True)
    assert p[0]._base is p
    q = p * 2
    assert q[0]._base is q
    assert q._base is None
    w = torch.nn.Parameter(torch.randn(3))
    assert w._base is None and w[1:]._base is w
    r = torch.randn(3)
    assert r[1:].requires_grad_()._base is r


def test_views_made_under_no_grad_and_inference_mode():
    y = torch.randn(4, 6, requires_grad=True)
    with torch.no_grad():
        v = y[1:]
        u = y.unbind(0)[0]
    assert v._base is y and u._base is y
    with torch.inference_mode():
        w = y[1:]  # a view of a normal tensor: a normal view
        a = torch.randn(3, 3)
        va = a[1:]  # a view of an inference tensor: no view (PyTorch tracks none)
    assert w._base is y
    assert va._base is None and va._is_view() is False


def test_view_keeps_its_base_alive():
    def make():
        return torch.arange(6.0)[2:]
    v = make()
    gc.collect()
    assert v._base is not None and v._base is v._base
    assert v._base.shape == (6,)
    x = torch.randn(5)
    ref = weakref.ref(x)
    v = x[1:]
    del x
    gc.collect()
    assert ref() is not None and v._base is ref()


def test_copies_carry_no_base():
    y = torch.randn(4, 6)
    v = y[1:]
    assert copy.deepcopy(v)._base is None
    assert pickle.loads(pickle.dumps(v))._base is None


def test_base_is_read_only():
    y = torch.randn(3)
    with pytest.raises(AttributeError):
        y._base = y
    with pytest.raises(AttributeError):
        del y._base


@pytest.mark.parametrize("key,node", [(slice(None), "SliceBackward0"), (slice(0, None), "SliceBackward0"),
                                      ((slice(None),), "AliasBackward0"), (Ellipsis, "AliasBackward0"),
                                      ((slice(None), slice(None)), "AliasBackward0")])
def test_whole_key_gives_a_new_view(key, node):
    # PyTorch: x[:] and x[...] are new views of x (never x itself), with these nodes
    y = torch.randn(4, 6, requires_grad=True) * 1
    v = y[key]
    assert v is not y and v._base is y and v.grad_fn.name() == node
    leaf = torch.randn(3, requires_grad=True)
    w = leaf[key if key != (slice(None), slice(None)) else Ellipsis]
    assert not w.is_leaf and w._base is leaf
    w.sum().backward()
    assert leaf.grad.tolist() == [1.0, 1.0, 1.0]


def test_whole_key_view_writes_reach_the_base():
    a = torch.zeros(3)
    b = a[:]
    b += 1
    assert a.tolist() == [1.0, 1.0, 1.0] and b._base is a
    a[...] += 1
    assert a.tolist() == [2.0, 2.0, 2.0]
    z = torch.tensor(2.0)
    assert z[...] is not z and z[...]._base is z and z[()]._base is z
