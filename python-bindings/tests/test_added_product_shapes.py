"""The shape errors of addmm, addmv, addr, baddbmm and addbmm, PyTorch's: the input expands one
way to the product's shape (RuntimeError, also with beta=0), baddbmm and addbmm read the
batches' sizes first (IndexError for a batch of too few dims), addmv wants a vector (or 0-d)
input, a matrix and a vector (RuntimeError). The messages are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg

r = gg.ones

RUNTIME = [
    ("must be greater or equal to the number of dimensions", lambda: gg.addmm(r(2, 2, 2), r(2, 3), r(3, 2))),
    ("must be greater or equal to the number of dimensions", lambda: gg.addmm(r(2, 2, 2), r(2, 3), r(3, 2), beta=0)),
    (r"The expanded size of the tensor \(2\) must match the existing size \(3\) at non-singleton dimension 1",
     lambda: gg.addmm(r(3), r(2, 3), r(3, 2))),
    ("must be greater or equal to the number of dimensions", lambda: gg.addr(r(2, 2, 2), r(2), r(2))),
    ("must be greater or equal to the number of dimensions", lambda: gg.addbmm(r(2, 2, 2), r(1, 2, 3), r(1, 3, 2))),
    ("must be greater or equal to the number of dimensions", lambda: gg.baddbmm(r(1, 1, 2, 2), r(1, 2, 3), r(1, 3, 2))),
    (r"Target sizes: \[2, 3, 2\].  Tensor sizes: \[1, 2, 2\]", lambda: gg.baddbmm(r(1, 2, 2), r(2, 3), r(1, 3, 2))),
    (r"Target sizes: \[3, 2\].  Tensor sizes: \[2, 2\]", lambda: gg.addbmm(r(2, 2), r(2, 3), r(1, 3, 2))),
    ("vector \\+ matrix @ vector expected, got 2, 2, 1", lambda: gg.addmv(r(2, 2), r(2, 3), r(3))),
    ("vector \\+ matrix @ vector expected, got 1, 0, 1", lambda: gg.addmv(r(2), r(()), r(3))),
    ("vector \\+ matrix @ vector expected, got 1, 2, 0", lambda: gg.addmv(r(2), r(2, 3), r(()))),
    (r"size mismatch, got input \(3\), mat \(2x3\), vec \(3\)", lambda: gg.addmv(r(3), r(2, 3), r(3))),
]


@pytest.mark.parametrize("message,call", RUNTIME)
def test_an_input_that_does_not_fit_is_torch_s_runtime_error(message, call):
    with pytest.raises(RuntimeError, match=message):
        call()


INDEX = [
    (r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
     lambda: gg.addbmm(r(2, 2), r(1, 2, 3), r(3, 2))),
    (r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
     lambda: gg.baddbmm(r(1, 2, 2), r(1, 2, 3), r(3, 2))),
    (r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)",
     lambda: gg.baddbmm(r(2, 2, 2), r(2), r(2, 3, 2))),
    ("Dimension specified as 0 but tensor has no dimensions", lambda: gg.baddbmm(r(2, 2, 2), r(()), r(2, 3, 2))),
    ("Dimension specified as 1 but tensor has no dimensions", lambda: gg.addbmm(r(2, 2), r(()), r(2, 3, 2))),
]


@pytest.mark.parametrize("message,call", INDEX)
def test_a_batch_without_the_dims_read_is_torch_s_index_error(message, call):
    with pytest.raises(IndexError, match=message):
        call()


@pytest.mark.parametrize("call,shape,value", [
    (lambda: gg.addmm(r(2), r(2, 3), r(3, 2)), (2, 2), 4.0),
    (lambda: gg.addmm(r(()), r(2, 3), r(3, 2)), (2, 2), 4.0),
    (lambda: gg.addmv(r(()), r(2, 3), r(3)), (2,), 4.0),
    (lambda: gg.addmv(r(1), r(2, 3), r(3)), (2,), 4.0),
    (lambda: gg.addr(r(2, 1), r(2), r(3)), (2, 3), 2.0),
    (lambda: gg.baddbmm(r(2), r(3, 2, 3), r(3, 3, 2)), (3, 2, 2), 4.0),
    (lambda: gg.addbmm(r(1, 2), r(3, 2, 3), r(3, 3, 2)), (2, 2), 10.0),
])
def test_an_input_that_expands_is_added(call, shape, value):
    np.testing.assert_array_equal(call().numpy(), np.full(shape, value, np.float32))
