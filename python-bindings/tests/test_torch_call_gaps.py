"""Calls PyTorch's documentation makes that glassgrad used to refuse, against PyTorch: a layer
called with its forward's keyword (nn.Linear(4, 2)(input=x)), torch.empty_strided,
Tensor.apply_ and Tensor.map_. Skipped without torch."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def _copy_state(ours, theirs):
    """theirs' parameters and buffers written into ours (the same layer in both libraries)."""
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: gg.tensor(v) for k, v in state.items()})


# (layer name, constructor arguments, input shape); every one called as layer(input=x)
LAYERS = [
    ("Linear", (4, 2), (3, 4)), ("Conv2d", (2, 3, 3), (1, 2, 5, 5)), ("BatchNorm1d", (3,), (4, 3)),
    ("LayerNorm", (5,), (2, 5)), ("ReLU", (), (2, 3)), ("GELU", (), (2, 3)), ("Softmax", (1,), (2, 3)),
    ("MaxPool2d", (2,), (1, 1, 4, 4)), ("Flatten", (), (2, 3, 4)), ("Identity", (), (2, 3)),
    ("Dropout", (0.5,), (2, 3)), ("ZeroPad2d", (1,), (1, 1, 2, 2)), ("PixelShuffle", (2,), (1, 4, 2, 2)),
    ("AvgPool1d", (2,), (1, 2, 6)), ("GroupNorm", (2, 4), (2, 4, 3)), ("PReLU", (), (2, 3)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS, ids=[r[0] for r in LAYERS])
def test_layer_takes_its_input_by_torchs_keyword(name, args, shape):
    ours, theirs = getattr(gg.nn, name)(*args), getattr(torch.nn, name)(*args)
    _copy_state(ours, theirs)
    ours.eval()
    theirs.eval()
    x = RNG.standard_normal(shape)
    got = ours(input=gg.tensor(x, dtype=gg.float32))
    want = theirs(input=torch.tensor(x, dtype=torch.float32))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_the_reported_linear_call():
    layer = gg.nn.Linear(4, 2)
    x = gg.tensor(RNG.standard_normal((3, 4)), dtype=gg.float32)
    np.testing.assert_allclose(layer(input=x).detach().numpy(), layer(x).detach().numpy(), rtol=1e-6, atol=1e-7)


def test_sequential_takes_input_by_keyword():
    ours = gg.nn.Sequential(gg.nn.Linear(3, 2), gg.nn.Tanh())
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
    _copy_state(ours, theirs)
    x = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(ours(input=gg.tensor(x, dtype=gg.float32)).detach().numpy(),
                               theirs(input=torch.tensor(x, dtype=torch.float32)).detach().numpy(), rtol=1e-5, atol=1e-6)


# ---- torch.empty_strided ----

STRIDED = [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 1, 3), (3, 3, 1)),
           ((0, 3), (3, 1)), ((5,), (1,)), ((3, 4, 2), (1, 6, 3))]


@pytest.mark.parametrize("size,stride", STRIDED, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_empty_strided_has_torchs_shape_strides_and_dtype(size, stride, dtype):
    ours = gg.empty_strided(size, stride, dtype=getattr(gg, dtype))
    theirs = torch.empty_strided(size, stride, dtype=getattr(torch, dtype))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert str(ours.dtype).split(".")[-1] == dtype
    values = RNG.integers(-9, 9, size)  # written in, read back in the logical order
    ours.copy_(gg.tensor(values, dtype=getattr(gg, dtype)))
    np.testing.assert_array_equal(ours.numpy(), values)


def test_empty_strided_defaults_and_leaf():
    t = gg.empty_strided((2, 3), (1, 2), requires_grad=True)
    assert t.dtype == gg.float32 and t.is_leaf and t.requires_grad and tuple(t.shape) == (2, 3)
    with pytest.raises(gg.InvalidArgumentError, match="one stride per dim"):
        gg.empty_strided((2, 3), (1,))


# ---- Tensor.apply_ and Tensor.map_ ----

def _both(data, dtype):
    return gg.tensor(data, dtype=getattr(gg, dtype)), torch.tensor(data, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("dtype,fn", [("float32", lambda v: v * 2 - 1), ("float64", lambda v: v ** 2 + 0.5),
                                      ("int64", lambda v: v * 1.7), ("int32", lambda v: -v // 2),
                                      ("bool", lambda v: not v)])
def test_apply_is_torchs(dtype, fn):
    data = RNG.integers(-5, 6, (3, 4)) if dtype != "bool" else RNG.integers(0, 2, (3, 4)).astype(bool)
    ours, theirs = _both(data, dtype)
    out = ours.apply_(fn)
    theirs.apply_(fn)
    assert out is ours
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert str(ours.dtype).split(".")[-1] == dtype


def test_apply_writes_through_a_view():
    base = gg.zeros(3, 4)
    base.t()[1].apply_(lambda v: v + 7)  # column 1
    want = torch.zeros(3, 4)
    want.t()[1].apply_(lambda v: v + 7)
    np.testing.assert_array_equal(base.numpy(), want.numpy())


@pytest.mark.parametrize("other_shape", [(3, 4), (4,), (1, 4), (3, 1)])
def test_map_is_torchs(other_shape):
    data, other = RNG.standard_normal((3, 4)), RNG.standard_normal(other_shape)
    ours, theirs = _both(data, "float64")
    ours.map_(gg.tensor(other), lambda a, b: a * b + 1)
    theirs.map_(torch.tensor(other), lambda a, b: a * b + 1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def test_apply_and_map_refuse_as_torch():
    w = gg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w.apply_(lambda v: v)
    with pytest.raises(RuntimeError, match="requires grad"):
        (w * 2).map_(gg.ones(3), lambda a, b: a)
    with pytest.raises(TypeError, match="real number"):
        gg.ones(3).apply_(lambda v: "a")
    with pytest.raises(gg.ShapeError, match="does not broadcast"):
        gg.ones(3).map_(gg.ones(2), lambda a, b: a)
    w.detach().apply_(lambda v: v + 1)  # the fix the message gives works (and writes w's values)
    assert w.detach().numpy().tolist() == [2.0, 2.0, 2.0]


# ---- Module methods by torch's keywords ----

def test_register_buffer_and_modules_take_torchs_keywords():
    def build(nn, lib):
        shared = nn.Linear(2, 2)
        m = nn.Sequential(shared, nn.ReLU(), shared)
        m.register_buffer(name="scale", tensor=lib.tensor([2.0]), persistent=False)
        return m
    ours, theirs = build(gg.nn, gg), build(torch.nn, torch)
    assert ours.scale.tolist() == theirs.scale.tolist() == [2.0]
    assert "scale" not in ours.state_dict() and "scale" not in theirs.state_dict()
    for flag in (True, False):
        assert [type(m).__name__ for m in ours.modules(remove_duplicate=flag)] == \
            [type(m).__name__ for m in theirs.modules(remove_duplicate=flag)]


# ---- small Tensor methods PyTorch has: map2_, adjoint, unsafe_chunk/split, new_empty_strided, addr_,
# ldexp_, hardshrink, prelu ----

METHOD_CALLS = [
    ("map2_", lambda t, lib: t.clone().map2_(t * 0 + 2, t[0].clone(), lambda a, b, c: a * b - c)),
    ("adjoint", lambda t, lib: t.adjoint()), ("torch.adjoint", lambda t, lib: lib.adjoint(t.reshape(2, 2, 3))),
    ("unsafe_chunk", lambda t, lib: lib.stack(t.unsafe_chunk(3, 1)[:2])),
    ("unsafe_split", lambda t, lib: t.unsafe_split(2, 0)[1]), ("split keyword", lambda t, lib: t.split(split_size=2)[1]),
    ("view size=", lambda t, lib: t.view(size=(4, 3))), ("repeat repeats=", lambda t, lib: t.repeat(repeats=(2, 1, 1))),
    ("resize_ size=", lambda t, lib: t.clone().resize_(size=(2, 6))),
    ("reshape shape=", lambda t, lib: t.reshape(shape=(4, -1))), ("permute dims=", lambda t, lib: t.permute(dims=(1, 0))),
    ("addr_", lambda t, lib: t.clone().addr_(t[:, 0].clone(), t[0].clone(), beta=0.5, alpha=2)),
    ("ldexp_", lambda t, lib: t.clone().ldexp_(lib.tensor([1, 0, -1, 2]))),
    ("hardshrink", lambda t, lib: t.hardshrink(0.7)), ("prelu", lambda t, lib: t.prelu(lib.tensor([0.25], dtype=t.dtype))),
]


@pytest.mark.parametrize("name,call", METHOD_CALLS, ids=[c[0] for c in METHOD_CALLS])
def test_small_methods_are_torchs(name, call):
    data = RNG.standard_normal((3, 4))
    ours, theirs = call(gg.tensor(data), gg), call(torch.tensor(data), torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_new_empty_strided_takes_the_tensors_dtype():
    ours = gg.zeros(2, dtype=gg.float64).new_empty_strided((2, 3), (1, 2))
    theirs = torch.zeros(2, dtype=torch.float64).new_empty_strided((2, 3), (1, 2))
    assert ours.stride() == theirs.stride() and ours.dtype == gg.float64 and tuple(ours.shape) == (2, 3)


# ---- torch.<name> spellings of F functions and Tensor methods, called positionally as torch's ----

def _a(*shape):
    return RNG.standard_normal(shape)


TOP_LEVEL = [  # (name, arrays, other arguments after them)
    ("conv1d", lambda: [_a(2, 3, 7), _a(4, 3, 3)], (None, 2, 1)), ("conv3d", lambda: [_a(1, 2, 4, 4, 4), _a(3, 2, 2, 2, 2)], ()),
    ("conv_transpose1d", lambda: [_a(1, 2, 5), _a(2, 3, 3)], ()), ("conv_transpose2d", lambda: [_a(1, 2, 3, 3), _a(2, 3, 2, 2)], ()),
    ("celu", lambda: [_a(3, 4)], (0.5,)), ("selu", lambda: [_a(3, 4)], ()), ("threshold", lambda: [_a(3, 4)], (0.1, -2.0)),
    ("hardshrink", lambda: [_a(3, 4)], (0.6,)), ("prelu", lambda: [_a(2, 3, 4), np.array([0.1, 0.2, 0.3])], ()),
    ("pixel_shuffle", lambda: [_a(1, 8, 2, 3)], (2,)), ("pixel_unshuffle", lambda: [_a(1, 2, 4, 6)], (2,)),
    ("channel_shuffle", lambda: [_a(1, 6, 2, 2)], (3,)), ("cosine_similarity", lambda: [_a(3, 5), _a(3, 5)], (1,)),
    ("pairwise_distance", lambda: [_a(3, 5), _a(3, 5)], (3.0,)), ("group_norm", lambda: [_a(2, 6, 5)], (3,)),
    ("rms_norm", lambda: [_a(2, 5)], ((5,),)), ("avg_pool1d", lambda: [_a(2, 3, 8)], (3, 2)),
    ("max_pool1d", lambda: [_a(2, 3, 8)], (2,)), ("max_pool3d", lambda: [_a(1, 2, 4, 4, 4)], (2,)),
    ("adaptive_avg_pool1d", lambda: [_a(2, 3, 9)], (4,)), ("bilinear", lambda: [_a(3, 2), _a(3, 4), _a(5, 2, 4)], ()),
    ("unsafe_chunk", lambda: [_a(6, 2)], (3,)), ("is_same_size", lambda: [_a(2, 3), _a(2, 3)], ()),
    ("split_with_sizes", lambda: [_a(6, 2)], ([2, 4],)), ("detach", lambda: [_a(2, 3)], ()),
]


@pytest.mark.parametrize("name,arrays,rest", TOP_LEVEL, ids=[r[0] for r in TOP_LEVEL])
def test_torch_level_spelling_is_torchs(name, arrays, rest):
    data = arrays()
    ours = getattr(gg, name)(*[gg.tensor(a) for a in data], *rest)
    theirs = getattr(torch, name)(*[torch.tensor(a) for a in data], *rest)
    for o, t in zip(*(r if isinstance(r, (tuple, list)) else [r] for r in (ours, theirs))):
        if isinstance(t, bool):
            assert o is t
        else:
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


# ---- generator= on the random factories draws from that generator, as PyTorch's ----

DRAWS = {
    "rand": lambda lib, g: lib.rand(3, generator=g), "randn": lambda lib, g: lib.randn(3, generator=g),
    "randint": lambda lib, g: lib.randint(0, 100, (3,), generator=g), "randperm": lambda lib, g: lib.randperm(5, generator=g),
    "normal": lambda lib, g: lib.normal(0.0, 1.0, size=(3,), generator=g),
    "normal tensor": lambda lib, g: lib.normal(lib.zeros(3), 1.0, generator=g),
    "bernoulli": lambda lib, g: lib.bernoulli(lib.full((4,), 0.5), generator=g),
    "multinomial": lambda lib, g: lib.multinomial(lib.ones(5), 3, generator=g),
    "rand_like": lambda lib, g: lib.rand_like(lib.ones(3), generator=g),
    "randn_like": lambda lib, g: lib.randn_like(lib.ones(3), generator=g),
    "randint_like": lambda lib, g: lib.randint_like(lib.ones(3), 10, generator=g),
}


@pytest.mark.parametrize("name", list(DRAWS))
@pytest.mark.parametrize("lib", [gg, torch], ids=["glassgrad", "torch"])
def test_generator_keyword_draws_from_that_generator(name, lib):
    # the same seed gives the same numbers, and the global stream does not move (both libraries)
    def run():
        lib.manual_seed(5)
        drawn = DRAWS[name](lib, lib.Generator().manual_seed(7)).tolist()
        return drawn, lib.rand(2).tolist()
    assert run() == run()
    lib.manual_seed(5)
    untouched = lib.rand(2).tolist()
    assert run()[1] == untouched
