"""Sizes whose element or byte count overflows 64 bits are refused with a ShapeError where the
shape is made (creation, expand, reshape, any op's output), never wrapped to a small number that
crashes a kernel or sums to 0.0."""
import numpy as np
import pytest

import glassgrad as gg

BIG = 2 ** 31


@pytest.mark.parametrize("make", [
    lambda: gg.zeros(BIG, BIG),
    lambda: gg.ones(BIG, BIG, 4, dtype="uint8"),
    lambda: gg.full((BIG, BIG), 1.0),
], ids=["zeros", "ones-uint8", "full"])
def test_creating_a_tensor_past_the_size_limit_raises_shape_error(make):
    with pytest.raises(gg.ShapeError, match=r"too large: 2\^6[2-4] elements"):
        make()


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax"])
def test_expand_to_an_overflowing_shape_raises_where_it_is_recorded(reduce):
    x = gg.ones(1, 1)
    with pytest.raises(gg.ShapeError, match=r"Expand: .*\[2147483648, 2147483648\]"):
        getattr(x.expand(BIG, BIG), reduce)()
    # Three sizes whose product is 2^64: the element count itself would wrap to 0.
    with pytest.raises(gg.ShapeError, match="2\\^64 elements"):
        gg.ones(1, 1, 1).expand(2 ** 21, 2 ** 21, 2 ** 22)


def test_elementwise_op_whose_broadcast_output_overflows_raises():
    a = gg.ones(1, 1).expand(2 ** 30, 1)
    b = gg.ones(1, 1).expand(1, 2 ** 30)
    with pytest.raises(gg.ShapeError, match=r"Add: output 'out': a tensor of shape \[1073741824, 1073741824\]"):
        a + b


def test_reshape_to_an_overflowing_request_raises():
    x = gg.ones(2, 3)
    with pytest.raises(gg.ShapeError, match=r"Reshape: the requested shape \[1099511627776, 1099511627776, -1\]: "
                                            r"a tensor of shape \[1099511627776, 1099511627776\] float32 is too large"):
        x.reshape(2 ** 40, 2 ** 40, -1)
    with pytest.raises(gg.ShapeError):
        x.reshape(2 ** 40, 2 ** 40, 0)


def test_sizes_beyond_64_bits_raise_a_glassgrad_error_not_an_overflow():
    with pytest.raises(gg.GlassgradError, match="does not fit in 64 bits"):
        gg.zeros(2 ** 70)
    with pytest.raises(gg.GlassgradError, match="does not fit in 64 bits"):
        gg.ones(1).expand(2 ** 64)


def test_attribute_past_the_limit_raises_before_the_shape_rule_adds_it():
    # Reaches the engine directly: the Python layer would refuse this padding first.
    with pytest.raises(gg.ShapeError, match="attribute 'padding'"):
        gg.kernels.run("MaxPool2D", np.ones((1, 1, 4, 4), np.float32), kernel=[2, 2], stride=[1, 1],
                       padding=[2 ** 62, 2 ** 62])


def test_numel_counts_large_views_exactly():
    x = gg.ones(1, 1, dtype="uint8").expand(2 ** 30, 2 ** 30)  # 2^60 bytes of a view: within the limit
    assert x.numel() == 2 ** 60
    assert gg.flatten(x, 0).shape == (2 ** 60,)


def test_sizes_within_the_limit_and_empty_tensors_still_work():
    assert gg.ones(1).expand(5).sum().item() == 5.0
    assert gg.zeros(0, BIG).shape == (0, BIG)
    assert gg.zeros(3, 0).sum().item() == 0.0
    assert gg.tensor(np.ones((2, 3), np.float32)).reshape(3, -1).shape == (3, 2)


def test_integer_attributes_that_overflow_are_refused_naming_the_attribute():
    x = gg.tensor(np.ones((2, 3), np.float32))
    with pytest.raises(gg.GlassgradError, match="attribute 'dims' = .* does not fit in 64 bits"):
        gg._trace.record("Sum", [x._h], {"dims": [1, 2 ** 70], "keepdim": False})
    with pytest.raises(gg.GlassgradError, match="attribute 'dims' has unsupported type object"):
        gg._trace.record("Sum", [x._h], {"dims": object(), "keepdim": False})
    # A tuple of ints is a list of ints (the reduced dimension tells).
    (h,) = gg._trace.record("Sum", [x._h], {"dims": (1,), "keepdim": True})
    assert h.shape == (2, 1)
