"""Recording converts an op's attribute dict once per distinct contents and shares the result
(python-bindings/src/bind_shared_attrs.cpp): a node gets exactly the attributes its dict holds
when it is recorded, whatever the dict held before, and a dict the table cannot compare is
converted (or refused) every time."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad._tensor import _op


def _x():
    return gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def test_a_dict_changed_in_place_records_its_new_contents():
    attrs = {"dims": [0], "keepdim": False}
    np.testing.assert_array_equal(_op("Sum", [_x()], attrs).numpy(), [3.0, 5.0, 7.0])
    attrs["dims"][0] = 1  # the same dict and list objects, new contents
    np.testing.assert_array_equal(_op("Sum", [_x()], attrs).numpy(), [3.0, 12.0])
    attrs["keepdim"] = True
    np.testing.assert_array_equal(_op("Sum", [_x()], attrs).numpy(), [[3.0], [12.0]])


def test_equal_contents_in_new_dicts_record_the_same_attributes():
    for dims in ([1], (1,), [1]):
        np.testing.assert_array_equal(_op("Sum", [_x()], {"dims": dims, "keepdim": False}).numpy(), [3.0, 12.0])


def test_negative_zero_is_not_zero():
    one = gg.tensor(np.array([1.0], np.float32))
    for value, negative in ((-0.0, True), (0.0, False), (-0.0, True)):
        y = _op("MulScalar", [one], {"value": value}).numpy()
        assert y[0] == 0.0 and bool(np.signbit(y[0])) is negative


def test_an_unsupported_value_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(ValueError, match="attribute 'dims' has unsupported type NoneType"):
            _op("Sum", [_x()], {"dims": None, "keepdim": False})
