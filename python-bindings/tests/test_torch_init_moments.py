"""torch.nn.init's functions as distributions: glassgrad and PyTorch fill the same shapes (fixed
seeds, 120,000 values) and the moments (mean, standard deviation, range, fraction of zeros) agree
with each other and with the documented formulas; generator= (a glassgrad.Generator) makes a fill
repeatable without touching the global generator; the parameter names are PyTorch's; the
deprecated spellings without the underscore warn as PyTorch's."""
import inspect
import math

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

SHAPE = (400, 30, 10)  # fan_in = 300, fan_out = 4000 (conv-like: receptive field 10)
FAN_IN, FAN_OUT = 300, 4000


def _fill(lib, name, *args, shape=SHAPE, **kwargs):
    t = lib.empty(*shape, dtype=lib.float64)
    getattr(lib.nn.init, name)(t, *args, **kwargs)
    return t.detach().numpy() if lib is torch else t.numpy()


def _std(gain, fan):
    return gain / math.sqrt(fan)


CASES = [  # (function, args, kwargs, documented (mean, std, low, high))
    ("uniform_", (-0.5, 1.5), {}, (0.5, 2 / math.sqrt(12), -0.5, 1.5)),
    ("normal_", (0.3, 2.0), {}, (0.3, 2.0, None, None)),
    ("trunc_normal_", (), dict(mean=0.5, std=1.0, a=-1.0, b=1.5), (None, None, -1.0, 1.5)),
    ("xavier_uniform_", (), dict(gain=2.0), (0.0, 2.0 * math.sqrt(2.0 / (FAN_IN + FAN_OUT)), None, None)),
    ("xavier_normal_", (), dict(gain=0.5), (0.0, 0.5 * math.sqrt(2.0 / (FAN_IN + FAN_OUT)), None, None)),
    ("kaiming_uniform_", (), dict(a=math.sqrt(5)), (0.0, _std(math.sqrt(2 / 6), FAN_IN), None, None)),
    ("kaiming_uniform_", (), dict(mode="fan_out", nonlinearity="relu"), (0.0, _std(math.sqrt(2), FAN_OUT), None, None)),
    ("kaiming_normal_", (), dict(nonlinearity="tanh"), (0.0, _std(5 / 3, FAN_IN), None, None)),
    ("kaiming_normal_", (), dict(a=0.2, mode="fan_out"), (0.0, _std(math.sqrt(2 / 1.04), FAN_OUT), None, None)),
    ("kaiming_normal_", (), dict(nonlinearity="selu"), (0.0, _std(0.75, FAN_IN), None, None)),
]


@pytest.mark.parametrize("name,args,kwargs,documented", CASES)
def test_moments_match_torch_and_the_formula(name, args, kwargs, documented):
    torch.manual_seed(0)
    gg.manual_seed(0)
    theirs = _fill(torch, name, *args, **kwargs)
    ours = _fill(gg, name, *args, **kwargs)
    n = ours.size
    scale = theirs.std()
    assert abs(ours.mean() - theirs.mean()) < 6 * scale / math.sqrt(n)
    assert ours.std() == pytest.approx(theirs.std(), rel=0.02)
    mean, std, low, high = documented
    if mean is not None:
        assert abs(ours.mean() - mean) < 5 * scale / math.sqrt(n)
    if std is not None:
        assert ours.std() == pytest.approx(std, rel=0.02)
    if low is not None:
        assert ours.min() >= low and theirs.min() >= low
        assert ours.max() <= high and theirs.max() <= high
        assert ours.min() == pytest.approx(theirs.min(), abs=0.01 * (high - low))
        assert ours.max() == pytest.approx(theirs.max(), abs=0.01 * (high - low))
    if name == "trunc_normal_":  # the truncated normal's moments, from its density
        a, b = -1.5, 1.0  # standardized bounds
        phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        z = 0.5 * (math.erf(b / math.sqrt(2)) - math.erf(a / math.sqrt(2)))
        want_mean = 0.5 + (phi(a) - phi(b)) / z
        want_var = 1 + (a * phi(a) - b * phi(b)) / z - ((phi(a) - phi(b)) / z) ** 2
        assert ours.mean() == pytest.approx(want_mean, abs=0.01)
        assert ours.var() == pytest.approx(want_var, rel=0.02)


def test_orthogonal_sparse_and_structured_fills_match_torch():
    for shape in ((30, 50), (50, 30), (8, 4, 3, 3)):
        for lib in (torch, gg):
            w = _fill(lib, "orthogonal_", 1.7, shape=shape).reshape(shape[0], -1)
            small = w if w.shape[0] <= w.shape[1] else w.T
            np.testing.assert_allclose(small @ small.T, 1.7 ** 2 * np.eye(small.shape[0]), atol=1e-10)
    for lib in (torch, gg):
        w = _fill(lib, "sparse_", 0.3, std=0.02, shape=(200, 300))
        assert ((w == 0).sum(axis=0) == math.ceil(0.3 * 200)).all()
        assert w[w != 0].std() == pytest.approx(0.02, rel=0.03)
    for shape, groups in (((6, 3, 3), 2), ((4, 4, 3, 3), 1), ((6, 2, 3, 3, 3), 3)):
        np.testing.assert_array_equal(_fill(gg, "dirac_", groups, shape=shape), _fill(torch, "dirac_", groups, shape=shape))
    np.testing.assert_array_equal(_fill(gg, "eye_", shape=(3, 5)), _fill(torch, "eye_", shape=(3, 5)))
    np.testing.assert_array_equal(_fill(gg, "constant_", 0.25, shape=(2, 3)), _fill(torch, "constant_", 0.25, shape=(2, 3)))


@pytest.mark.parametrize("name,args", [("uniform_", ()), ("normal_", ()), ("trunc_normal_", ()), ("xavier_uniform_", ()),
                                       ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
                                       ("orthogonal_", ()), ("sparse_", (0.5,))])
def test_generator_makes_a_fill_repeatable_without_the_global_generator(name, args):
    shape = (20, 10)
    gg.manual_seed(5)
    a = _fill(gg, name, *args, shape=shape, generator=gg.Generator().manual_seed(3))
    after_a = gg.rand(3).numpy()
    gg.manual_seed(5)
    b = _fill(gg, name, *args, shape=shape, generator=gg.Generator().manual_seed(3))
    after_b = gg.rand(3).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(after_a, after_b)  # the global stream did not move
    c = _fill(gg, name, *args, shape=shape, generator=gg.Generator().manual_seed(4))
    assert not np.array_equal(a, c)


def test_signatures_are_torchs():
    names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    assert len(names) >= 14
    for name in names:
        theirs = inspect.signature(getattr(torch.nn.init, name)).parameters
        assert list(inspect.signature(getattr(gg.nn.init, name)).parameters) == list(theirs), name


@pytest.mark.parametrize("name,args", [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()), ("dirac", ()),
                                       ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
                                       ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_spellings_warn_and_fill(name, args):
    shape = (4, 4, 3) if name == "dirac" else (4, 6)
    for lib in (torch, gg):
        t = lib.zeros(*shape)
        with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`"):
            out = getattr(lib.nn.init, name)(t, *args)
        assert out is t
        assert float(abs(t).sum()) > 0


def test_gain_and_errors_follow_torch():
    for nl, param in (("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                      ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)):
        assert gg.nn.init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param))
    for call in (lambda lib: lib.nn.init.calculate_gain("swish"),
                 lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
                 lambda lib: lib.nn.init.xavier_uniform_(lib.empty(5)),
                 lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 4), mode="fan_avg"),
                 lambda lib: lib.nn.init.eye_(lib.empty(2, 3, 4)),
                 lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
                 lambda lib: lib.nn.init.sparse_(lib.empty(2, 3, 4), 0.1),
                 lambda lib: lib.nn.init.orthogonal_(lib.empty(5))):
        with pytest.raises(ValueError):
            call(torch)
        with pytest.raises(ValueError):
            call(gg)
