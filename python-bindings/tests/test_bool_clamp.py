"""clamp and clip of a bool tensor whose result is bool, as PyTorch's CPU kernels take them: two
tensor bounds or number bounds have no bool kernel (NotImplementedError naming "clamp_cpu",
"clamp_scalar_cpu", "clamp_min_scalar_cpu" or "clamp_max_scalar_cpu"), while one tensor bound
alone is maximum/minimum (logical or/and) and integer bounds promote to int64. The expected
values and messages are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg

X = [True, False, True]
B = [False, False, True]


def _x():
    return gg.tensor(X)


def _b():
    return gg.tensor(B)


REFUSED = [
    ("clamp_cpu", lambda: gg.clamp(_x(), _b(), _b())),
    ("clamp_cpu", lambda: _x().clip(_b(), _b())),
    ("clamp_cpu", lambda: _x().clamp_(_b(), _b())),
    ("clamp_cpu", lambda: gg.clamp(gg.ones(0, dtype=gg.bool), gg.ones(0, dtype=gg.bool), gg.ones(0, dtype=gg.bool))),
    ("clamp_cpu", lambda: gg.clamp(_x(), _b(), _b(), out=gg.empty(3, dtype=gg.bool))),
    ("clamp_scalar_cpu", lambda: gg.clamp(_x(), False, True)),
    ("clamp_max_scalar_cpu", lambda: gg.clamp(_x(), max=False)),
    ("clamp_max_scalar_cpu", lambda: gg.clamp_max(_x(), False)),
    ("clamp_max_scalar_cpu", lambda: _x().clamp_(max=False)),
    ("clamp_max_scalar_cpu", lambda: gg.clip(_x(), max=False, out=gg.empty(3, dtype=gg.bool))),
    ("clamp_min_scalar_cpu", lambda: gg.clamp(_x(), min=True)),
    ("clamp_min_scalar_cpu", lambda: gg.clamp_min(_x(), True)),
]


@pytest.mark.parametrize("kernel,call", REFUSED)
def test_a_bool_result_without_a_bool_kernel_is_refused_as_torch_s(kernel, call):
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
        call()


@pytest.mark.parametrize("call,want", [
    (lambda: gg.clamp(_x(), min=_b()), [True, False, True]),
    (lambda: gg.clamp(_x(), max=_b()), [False, False, True]),
    (lambda: _x().clamp(max=gg.tensor(True)), [True, False, True]),
    (lambda: gg.clamp_max(_x(), _b()), [False, False, True]),
    (lambda: gg.clamp_min(_x(), _b()), [True, False, True]),
    (lambda: gg.clamp(_x(), 0, 1), np.array([1, 0, 1], np.int64)),
    (lambda: gg.clamp(_x(), max=0), np.array([0, 0, 0], np.int64)),
    (lambda: gg.clamp(_x(), min=0.5), np.array([1.0, 0.5, 1.0], np.float32)),
])
def test_one_tensor_bound_or_a_promoting_bound_is_computed(call, want):
    got = call().numpy()
    want = np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
