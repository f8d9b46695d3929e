"""The hot properties of a tensor's handle (`x._h`: shape, dtype, device, realized, requires_grad,
is_view) are getset descriptors of _C.Lazy (python-bindings/src/bind_handle_reads.cpp;
docs/performance.md, "The plain loop's host work"), read without pybind11's dispatcher. Each gives
the value and the Python type it gave before: a tuple of ints, a str, a bool."""
import types

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C

READS = ("shape", "dtype", "device", "realized", "requires_grad", "is_view")


@pytest.mark.parametrize("name", READS)
def test_reads_are_descriptors_of_the_class(name):
    assert isinstance(vars(_C.Lazy)[name], types.GetSetDescriptorType)


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 4), (1, 2, 3, 4, 5)])
def test_shape_is_a_tuple_of_ints(shape):
    got = gg.zeros(shape)._h.shape
    assert type(got) is tuple and got == shape and all(type(d) is int for d in got)
    pending = (gg.ones(shape) * 2.0)._h  # a pending value's shape, from its recorded info
    assert not pending.realized and pending.shape == shape


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "int8", "int16", "int32",
                                   "float16", "bfloat16"])
def test_dtype_is_the_runtime_name(dtype):
    t = gg.zeros(2, dtype=getattr(gg, dtype))
    got = t._h.dtype
    assert type(got) is str and got == dtype
    assert t._h.dtype is got  # one str per dtype, kept
    assert gg.zeros(3, dtype=getattr(gg, dtype))._h.dtype is got


def test_device_realized_requires_grad_and_is_view(on_the_cpu):
    x = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    h = x._h
    assert type(h.device) is str and h.device == "cpu"
    assert h.realized is True and h.requires_grad is True and h.is_view is False
    y = x * 2.0
    assert y._h.realized is False and y._h.requires_grad is True
    gg.realize(y)
    assert y._h.realized is True
    with gg.no_grad():
        z = x * 2.0
    assert z._h.requires_grad is False
    v = x.detach().t()
    assert v._h.is_view is True and v._h.shape == (3, 2)


def test_reads_follow_a_moved_handle():
    # h.reset re-points the handle (an optimizer's update, BatchNorm's statistics): reads see the new value
    a = gg.zeros(2, 3)
    b = gg.ones(4, dtype=gg.float64)
    a._h.reset(b._h)
    assert a._h.shape == (4,) and a._h.dtype == "float64"


def test_reads_are_read_only_and_checked():
    h = gg.zeros(2)._h
    for name in READS:
        with pytest.raises(AttributeError):
            setattr(h, name, None)
        with pytest.raises(TypeError):
            vars(_C.Lazy)[name].__get__(object())
