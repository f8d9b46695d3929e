"""nn.init where PyTorch documents more than the formula: kaiming_*_ of a zero-element tensor
warns and returns it, trunc_normal_ warns when mean is more than 2 std outside [a, b] and still
fills [a, b] (near the bound closest to mean), half-precision tensors are filled, and PyTorch's
private helper names scripts import exist. Torch-free values, then the same against torch.nn.init."""
import math
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn import init


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_])
def test_kaiming_of_a_zero_element_tensor_warns_and_returns_it(fill):
    t = gg.empty(0, 3)
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        assert fill(t) is t
    with pytest.warns(UserWarning, match="no-op"):
        fill(gg.empty(4, 0, 3), mode="fan_out")   # no fan check either


def test_trunc_normal_warns_when_mean_is_far_outside_the_bounds_and_stays_inside():
    gg.manual_seed(0)
    t = gg.empty(20000)
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(t, mean=10.0, std=1.0, a=-2.0, b=2.0)   # 1e-23 of N(10, 1) lies in [-2, 2]
    x = t.numpy()
    assert x.min() >= -2.0 and x.max() <= 2.0
    # N(10, 1) truncated to [-2, 2] is nearly exponential at the upper bound with rate 8: mean 2 - 1/8
    assert abs(x.mean() - (2.0 - 1.0 / 8)) < 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(gg.empty(10), mean=3.9, std=1.0, a=-2.0, b=2.0)   # within 2 std: silent


def test_trunc_normal_far_in_the_tail_has_the_truncated_moments():
    gg.manual_seed(1)
    t = init.trunc_normal_(gg.empty(40000, dtype=gg.float64), mean=0.0, std=1.0, a=3.5, b=4.0)
    x = t.numpy()
    phi = [math.exp(-v * v / 2) / math.sqrt(2 * math.pi) for v in (3.5, 4.0)]
    mass = (math.erf(4.0 / math.sqrt(2)) - math.erf(3.5 / math.sqrt(2))) / 2
    want_mean = (phi[0] - phi[1]) / mass
    assert x.min() >= 3.5 and x.max() <= 4.0
    assert abs(x.mean() - want_mean) < 5 * 0.15 / math.sqrt(x.size)   # sd of this truncation < 0.15


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_tensors_are_filled(dtype):
    t = gg.empty(3, 4, dtype=getattr(gg, dtype))
    init.xavier_uniform_(t)
    bound = math.sqrt(6.0 / 7)
    assert t.dtype == getattr(gg, dtype) and np.abs(t.float().numpy()).max() <= bound * 1.01
    np.testing.assert_array_equal(init.eye_(t).float().numpy(), np.eye(3, 4))


def test_pytorchs_private_helper_names():
    w = gg.empty(6, 4, 3)
    assert init._calculate_correct_fan(w, "fan_in") == 12 and init._calculate_correct_fan(w, "fan_out") == 18
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init._calculate_correct_fan(w, "fan_avg")
    assert init._no_grad_fill_(gg.empty(2), 3.0).tolist() == [3.0, 3.0]
    assert init._no_grad_zero_(gg.ones(2)).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("case", ["zero_element", "far_mean", "near_mean", "half"])
def test_warnings_and_dtypes_match_torch(case):
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, gg):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if case == "zero_element":
                out = lib.nn.init.kaiming_normal_(lib.empty(0, 5)).shape
            elif case == "far_mean":
                out = bool(lib.nn.init.trunc_normal_(lib.empty(100), mean=-9.0, a=-2.0, b=2.0).max() <= 2.0)
            elif case == "near_mean":
                out = lib.nn.init.trunc_normal_(lib.empty(100), mean=1.0, a=-2.0, b=2.0).shape
            else:
                out = str(lib.nn.init.kaiming_uniform_(lib.empty(4, 4, dtype=lib.bfloat16)).dtype).split(".")[-1]
        seen.append((tuple(out) if not isinstance(out, (bool, str)) else out,
                     [str(w.message) for w in caught if w.category is UserWarning]))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("fill", [lambda t: init.xavier_normal_(t, gain=1.414), init.xavier_uniform_, init.normal_,
                                  lambda t: init.constant_(t, 0.5), init.ones_, init.orthogonal_])
def test_a_fill_of_data_a_view_or_a_detached_alias_writes_into_the_tensor_it_came_from(fill):
    # scripts initialize `nn.init.xavier_normal_(self.W.data)`: the parameter holds the values
    gg.manual_seed(0)
    w = gg.nn.Parameter(gg.zeros(6, 4))
    fill(w.data)
    assert np.abs(w.detach().numpy()).sum() > 0 and w.is_leaf and w.requires_grad and w.grad_fn is None
    assert w._version == 0   # .data's writes are not the parameter's versions (PyTorch's)
    base = gg.zeros(6, 4)
    fill(base[2:4])   # a view: its rows of the base change, the others stay zero
    got = base.numpy()
    assert np.abs(got[2:4]).sum() > 0 and not got[:2].any() and not got[4:].any()
    alias = gg.zeros(6, 4)
    fill(alias.detach())
    assert np.abs(alias.numpy()).sum() > 0


def test_a_fill_is_an_in_place_write_of_the_tensor():
    w = gg.nn.Parameter(gg.zeros(3, 2))
    assert init.normal_(w) is w and w._version == 1   # PyTorch's init writes under no_grad, in place
    ints = gg.zeros(2, 2, dtype=gg.int64)
    init.constant_(ints, 2.7)
    np.testing.assert_array_equal(ints.numpy(), np.full((2, 2), 2))


_REFUSED_RANGES = {
    "trunc_normal_ a > b": lambda L, t: L.nn.init.trunc_normal_(t, a=2.0, b=-2.0),
    "normal_ std < 0": lambda L, t: L.nn.init.normal_(t, std=-1.0),
    "uniform_ a > b": lambda L, t: L.nn.init.uniform_(t, a=2.0, b=-2.0),
    "trunc_normal_ std 0": lambda L, t: L.nn.init.trunc_normal_(t, std=0.0),
}


@pytest.mark.parametrize("case", sorted(_REFUSED_RANGES))
def test_a_reversed_range_or_negative_std_raises_torchs_exception_type(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        _REFUSED_RANGES[case](torch, torch.empty(5))
    with pytest.raises(theirs.type):
        _REFUSED_RANGES[case](gg, gg.empty(5))


def test_trunc_normal_of_a_negative_std_samples_its_magnitude():
    """PyTorch's trunc_normal_ accepts std < 0: its sampler reads std squared."""
    gg.manual_seed(0)
    t = init.trunc_normal_(gg.empty(20000), mean=0.0, std=-1.0, a=-1.0, b=1.0)
    a = t.numpy()
    assert a.min() >= -1.0 and a.max() <= 1.0
    # the standard normal truncated to [-1, 1] has variance 1 - 2 phi(1) / (2 Phi(1) - 1) = 0.2911
    assert abs(a.var() - 0.2911) < 0.01
