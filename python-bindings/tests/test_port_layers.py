"""Layers and functions a PyTorch script uses, as PyTorch documents them: ModuleList, ModuleDict,
AdaptiveAvgPool2d, pooling's ceil_mode, GELU / SiLU / ELU / Softplus, F.pad, torch.cat, F.one_hot,
F.dropout, F.interpolate (nearest, bilinear), Upsample, Softmax's implicit dim. Checked against
NumPy restatements and float64 finite differences (always) and against torch (when installed)."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad import nn

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 5, 7))


# ---- containers ---------------------------------------------------------------------------------
def test_module_list_registers_its_modules_by_position():
    class Net(gg.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([gg.Linear(4, 4) for _ in range(2)])
            self.blocks.append(gg.Linear(4, 2))

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    net = Net()
    assert list(net.state_dict()) == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias",
                                      "blocks.2.weight", "blocks.2.bias"]
    assert len(net.blocks) == 3 and net.blocks[-1] is list(net.blocks)[2]
    assert isinstance(net.blocks[:2], nn.ModuleList) and len(net.blocks[:2]) == 2
    assert len(list(net.parameters())) == 6
    assert net(gg.tensor(np.ones((1, 4), np.float32))).shape == (1, 2)
    net.blocks.insert(0, gg.Linear(4, 4))
    assert [k for k in net.state_dict()][:2] == ["blocks.0.weight", "blocks.0.bias"] and len(net.blocks) == 4
    del net.blocks[0]
    assert len(net.blocks) == 3
    with pytest.raises(NotImplementedError, match="iterate over it"):
        net.blocks(gg.tensor(np.ones((1, 4), np.float32)))


def test_module_dict_registers_its_modules_by_key():
    heads = nn.ModuleDict({"cls": gg.Linear(4, 3), "box": gg.Linear(4, 4)})
    heads["aux"] = gg.Linear(4, 1)
    assert list(heads.keys()) == ["cls", "box", "aux"] and "box" in heads and len(heads) == 3
    assert list(heads.state_dict())[:2] == ["cls.weight", "cls.bias"]
    assert heads.pop("aux").out_features == 1 and list(heads) == ["cls", "box"]


def test_module_apply_and_named_children():
    net = gg.Sequential(gg.Linear(2, 2), gg.ReLU(), gg.Linear(2, 1))
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Sequential"]
    assert [n for n, _ in net.named_children()] == ["0", "1", "2"]
    net.apply(lambda m: gg.nn.init.zeros_(m.weight) if isinstance(m, gg.Linear) else None)
    assert not net[0].weight.detach().numpy().any()


# ---- pooling ------------------------------------------------------------------------------------
def _adaptive_numpy(x, oh, ow):
    h, w = x.shape[-2:]
    out = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = x[..., r0:r1, c0:c1].mean(axis=(-2, -1))
    return out


@pytest.mark.parametrize("size", [1, (2, 3), (3, 2), (5, 7), 4, (None, 3)])
def test_adaptive_avg_pool2d_averages_pytorch_s_bins(size):
    got = F.adaptive_avg_pool2d(gg.tensor(X), size).numpy()
    oh, ow = (size, size) if isinstance(size, int) else size
    want = _adaptive_numpy(X, oh or 5, ow or 7)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    layer = nn.AdaptiveAvgPool2d(size)
    np.testing.assert_allclose(layer(gg.tensor(X)).numpy(), want, rtol=1e-12)
    gg.debug.gradcheck(lambda t: (F.adaptive_avg_pool2d(t, size) ** 2).sum(), [X])


def test_pooling_ceil_mode_keeps_the_last_partial_window():
    x = np.arange(25.0).reshape(1, 1, 5, 5)
    y = F.max_pool2d(gg.tensor(x), 2, ceil_mode=True)
    np.testing.assert_array_equal(y.numpy()[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    a = F.avg_pool2d(gg.tensor(x), 2, ceil_mode=True)
    np.testing.assert_allclose(a.numpy()[0, 0, 2], [20.5, 22.5, 24.0])  # overhang not counted
    assert nn.MaxPool2d(3, 2, ceil_mode=True)(gg.tensor(x)).shape == (1, 1, 2, 2)
    assert nn.AvgPool2d(2, divisor_override=1)(gg.tensor(x)).numpy()[0, 0, 0, 0] == 0 + 1 + 5 + 6
    dilated = F.max_pool2d(gg.tensor(x), 2, dilation=2)     # windows see rows and columns {0, 2} and {2, 4}
    np.testing.assert_array_equal(dilated.numpy()[0, 0], [[12, 14], [22, 24]])


# ---- activations --------------------------------------------------------------------------------
_ERF = np.vectorize(math.erf)


@pytest.mark.parametrize("name,fn,ref", [
    ("gelu", lambda t: F.gelu(t), lambda x: x * 0.5 * (1 + _ERF(x / math.sqrt(2)))),
    ("gelu-tanh", lambda t: F.gelu(t, approximate="tanh"),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    ("silu", F.silu, lambda x: x / (1 + np.exp(-x))),
    ("elu", lambda t: F.elu(t, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("softplus", lambda t: F.softplus(t, beta=2.0, threshold=4.0),
     lambda x: np.where(2 * x > 4, x, np.log1p(np.exp(2 * x)) / 2)),
])
def test_activation_follows_its_formula_and_gradient(name, fn, ref):
    x = X * 3
    np.testing.assert_allclose(fn(gg.tensor(x)).numpy(), ref(x), rtol=1e-12, atol=1e-14)
    gg.debug.gradcheck(lambda t: (fn(t) * gg.tensor(X)).sum(), [x])


def test_activation_layers_and_softmax_s_implicit_dim():
    x = gg.tensor(X)
    for layer, fn in ((nn.GELU(), F.gelu), (nn.SiLU(), F.silu), (nn.ELU(), F.elu), (nn.Softplus(), F.softplus)):
        np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())
    assert "approximate='tanh'" in repr(nn.GELU("tanh"))
    e = np.exp(X - X.max(axis=1, keepdims=True))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        implicit = nn.Softmax()(x)  # dim 1 of 4-d, with PyTorch's warning
    np.testing.assert_allclose(implicit.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(F.log_softmax(x, dim=-1).numpy(),
                               X - X.max(-1, keepdims=True) - np.log(np.exp(X - X.max(-1, keepdims=True)).sum(-1, keepdims=True)),
                               rtol=1e-12)


# ---- pad, cat, one_hot, dropout -----------------------------------------------------------------
@pytest.mark.parametrize("mode,np_mode", [("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
@pytest.mark.parametrize("pads", [(1, 2), (2, 1, 0, 3), (0, 0, 1, 1)])
def test_pad_matches_numpy_s_modes(mode, np_mode, pads):
    # PyTorch's non-constant modes pad one trailing dim of a 2-d or 3-d input only: a 3-d slice
    x = X if len(pads) == 4 or mode == "constant" else X[0]
    width = [(0, 0)] * (x.ndim - len(pads) // 2) + [(pads[2 * k], pads[2 * k + 1]) for k in range(len(pads) // 2)][::-1]
    got = F.pad(gg.tensor(x), pads, mode=mode).numpy()
    np.testing.assert_array_equal(got, np.pad(x, width, mode=np_mode))
    gg.debug.gradcheck(lambda t: (F.pad(t, pads, mode=mode) ** 2).sum(), [x])


def test_pad_with_a_value_and_negative_amounts_crops():
    got = F.pad(gg.tensor(X), (-1, 2, 1, -2), value=7.0).numpy()
    want = np.pad(X[:, :, :3, 1:], [(0, 0), (0, 0), (1, 0), (0, 2)], constant_values=7.0)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(gg.InvalidArgumentError, match=r"Padding size should be less than the corresponding input "
                                                      r"dimension, but got: padding \(7, 0\) at dimension 3"):
        F.pad(gg.tensor(X), (7, 0, 0, 0), mode="reflect")


def test_cat_joins_along_a_dim_and_splits_the_gradient():
    a, b = X, X[:, :1] * 2
    np.testing.assert_array_equal(gg.cat([gg.tensor(a), gg.tensor(b)], 1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(gg.cat([gg.tensor(a), gg.tensor(a)], -1).numpy(), np.concatenate([a, a], -1))
    gg.debug.gradcheck(lambda s, t: (gg.cat([s, t], 1) ** 2).sum(), [a, b])
    with pytest.raises(gg.ShapeError, match="may differ along dim 0 only"):
        gg.cat([gg.tensor(a), gg.tensor(b)], 0)


def test_one_hot_is_int64_and_infers_the_number_of_classes():
    y = np.array([[0, 3], [2, 1]])
    got = F.one_hot(gg.tensor(y))
    assert got.dtype == "int64" and got.shape == (2, 2, 4)
    np.testing.assert_array_equal(got.numpy(), np.eye(4, dtype=np.int64)[y])
    assert F.one_hot(gg.tensor(y), num_classes=6).shape == (2, 2, 6)
    with pytest.raises(gg.DTypeError, match="index tensors"):
        F.one_hot(gg.tensor(np.array([1.0])))


def test_dropout_scales_what_it_keeps_and_is_the_identity_when_not_training():
    gg.manual_seed(0)
    x = gg.tensor(np.ones((200, 100)))
    y = F.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02 and np.allclose(y[kept], 1 / 0.7)
    assert F.dropout(x, 0.3, training=False) is x
    assert not F.dropout(x, 1.0).numpy().any()
    layer = nn.Dropout(0.5)
    layer.eval()
    assert layer(x) is x
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)


# ---- interpolate --------------------------------------------------------------------------------
def _bilinear_numpy(x, oh, ow, align_corners):
    """PyTorch's bilinear rule, written point by point."""
    h, w = x.shape[-2:]

    def src(i, n, out):
        if align_corners:
            return i * ((n - 1) / (out - 1) if out > 1 else 0.0)
        return max((i + 0.5) * n / out - 0.5, 0.0)

    y = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        r = src(i, h, oh)
        r0 = min(int(r), h - 1)
        r1, lr = min(r0 + 1, h - 1), r - r0
        for j in range(ow):
            c = src(j, w, ow)
            c0 = min(int(c), w - 1)
            c1, lc = min(c0 + 1, w - 1), c - c0
            y[..., i, j] = ((1 - lr) * ((1 - lc) * x[..., r0, c0] + lc * x[..., r0, c1])
                            + lr * ((1 - lc) * x[..., r1, c0] + lc * x[..., r1, c1]))
    return y


@pytest.mark.parametrize("size,align", [((10, 14), False), ((4, 11), False), ((9, 9), True), ((3, 3), True)])
def test_bilinear_interpolation_follows_pytorch_s_rule(size, align):
    got = F.interpolate(gg.tensor(X), size=size, mode="bilinear", align_corners=align).numpy()
    np.testing.assert_allclose(got, _bilinear_numpy(X, *size, align), rtol=1e-12, atol=1e-14)
    gg.debug.gradcheck(lambda t: (F.interpolate(t, size=size, mode="bilinear", align_corners=align) ** 2).sum(), [X])


def test_nearest_interpolation_repeats_or_picks_floor_of_the_scaled_index():
    up = F.interpolate(gg.tensor(X), scale_factor=2).numpy()
    np.testing.assert_array_equal(up, X.repeat(2, axis=2).repeat(2, axis=3))
    down = F.interpolate(gg.tensor(X), size=(3, 4)).numpy()
    rows = [int(math.floor(i * 5 / 3)) for i in range(3)]
    cols = [int(math.floor(j * 7 / 4)) for j in range(4)]
    np.testing.assert_array_equal(down, X[:, :, rows][:, :, :, cols])
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2)(gg.tensor(X)).numpy(), up)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(gg.tensor(X))


INTERP = [dict(scale_factor=2), dict(size=(8, 9)), dict(scale_factor=1.7), dict(scale_factor=1.7, recompute_scale_factor=True),
          dict(size=(9, 13), mode="nearest-exact"), dict(scale_factor=2, mode="bilinear"),
          dict(scale_factor=2, mode="bilinear", align_corners=True), dict(scale_factor=0.5, mode="bilinear"),
          dict(scale_factor=(2, 1.5), mode="bilinear")]
PADS = [((1, 2), "constant"), ((1, 2, 2, 1), "reflect"), ((0, 3, 1, 0), "replicate"), ((1, 2, 2, 1), "circular"),
        ((-1, 2, 1, -2), "constant")]


@pytest.mark.parametrize("case", [("interpolate", (), kw) for kw in INTERP]
                         + [("pad", (p,), {"mode": m}) for p, m in PADS]
                         + [("adaptive_avg_pool2d", (o,), {}) for o in (1, (2, 3), (None, 3), 4)]
                         + [(n, (), {}) for n in ("gelu", "silu", "elu", "softplus")]
                         + [("gelu", (), {"approximate": "tanh"}), ("softplus", (2.0, 3.0), {}),
                            ("max_pool2d", (3, 2, 1), {"ceil_mode": True}),
                            ("avg_pool2d", (3, 2, 1, True, False), {}), ("avg_pool2d", (2, 2, 0, True, True, 3), {})],
                         ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_function_and_gradient_match_torch(torch, case):
    name, args, kwargs = case
    gx, tx = gg.tensor(X * 3, requires_grad=True), torch.tensor(X * 3, requires_grad=True)
    gy = getattr(F, name)(gx, *args, **kwargs)
    ty = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    assert tuple(gy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    cot = np.random.default_rng(1).standard_normal(tuple(ty.shape))
    (gy * gg.tensor(cot)).sum().backward()
    (ty * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_containers_name_parameters_like_torch(torch):
    t = torch.nn.ModuleDict({"a": torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)])})
    g = nn.ModuleDict({"a": nn.ModuleList([gg.Linear(2, 2), nn.BatchNorm1d(2)])})
    assert list(g.state_dict()) == list(t.state_dict())


def test_dropout_in_a_compiled_step_draws_a_new_mask_every_replay():
    """A replay does not run the step's Python, so the mask must be drawn again for it: the
    compiled run equals the plain loop, whose masks come from the same generator in order."""
    from training_helpers import train_step

    class Net(gg.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.drop, self.fc2 = gg.Linear(6, 32), nn.Dropout(0.5), gg.Linear(32, 3)

        def forward(self, x):
            return self.fc2(self.drop(gg.relu(self.fc1(x))))

    rng = np.random.default_rng(0)
    batches = [(gg.tensor(rng.standard_normal((8, 6)).astype(np.float32)), gg.tensor(rng.integers(0, 3, 8)))
               for _ in range(6)]

    def run(compiled):
        gg.manual_seed(0)
        model = Net()
        opt = gg.SGD(model.parameters(), lr=0.1)
        step = gg.compile(train_step(model, opt)) if compiled else train_step(model, opt)
        return [step(x, y).item() for x, y in batches], step

    plain, _ = run(False)
    compiled, step = run(True)
    assert step.replays == 4
    np.testing.assert_allclose(compiled, plain, rtol=1e-6)
    assert len(set(np.round(plain, 6))) == len(plain)


# ---- flatten: PyTorch's defaults where the names are PyTorch's ---------------------------------
FLATTEN_ARGS = [(), (0,), (1,), (2,), (-2,), (1, 2), (0, -2), (2, 2), (-1,)]


@pytest.mark.parametrize("args", FLATTEN_ARGS, ids=str)
def test_tensor_flatten_has_pytorch_s_defaults_and_glassgrad_flatten_keeps_the_batch(args):
    """Tensor.flatten() and nn.Flatten are PyTorch's (start_dim 0 and 1); glassgrad.flatten keeps the
    seed's start_dim=1 (a documented difference); explicit dims mean the same in all of them."""
    t = gg.tensor(X)

    def want(start=0, end=-1):
        s, e = start % X.ndim, end % X.ndim
        return X.reshape(X.shape[:s] + (-1,) + X.shape[e + 1:])
    np.testing.assert_array_equal(t.flatten(*args).numpy(), want(*args))
    np.testing.assert_array_equal(gg.flatten(t, *args).numpy(), want(*(args or (1,))))
    assert tuple(t.flatten().shape) == (X.size,) and tuple(gg.flatten(t).shape) == (2, X.size // 2)
    assert tuple(nn.Flatten()(t).shape) == (2, X.size // 2)
    assert tuple(gg.tensor(3.0).flatten().shape) == (1,)


@pytest.mark.parametrize("args", FLATTEN_ARGS, ids=str)
def test_flatten_matches_torch(torch, args):
    assert tuple(gg.tensor(X).flatten(*args).shape) == tuple(torch.tensor(X).flatten(*args).shape)
    assert tuple(torch.flatten(torch.tensor(X), *(args or (0,))).shape) == tuple(gg.tensor(X).flatten(*args).shape)
    assert tuple(torch.tensor(3.0).flatten().shape) == tuple(gg.tensor(3.0).flatten().shape)


def test_linear_takes_one_unbatched_sample():
    # pytorch/examples' actor_critic feeds a state of shape [4] to nn.Linear: the result is [out].
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal(4), rng.standard_normal((3, 4)), rng.standard_normal(3)
    lin = gg.nn.Linear(4, 3).double()
    lin.weight.data.copy_(gg.tensor(w))
    lin.bias.data.copy_(gg.tensor(b))
    xt = gg.tensor(x, requires_grad=True)
    y = lin(xt)
    assert y.shape == (3,)
    np.testing.assert_allclose(y.detach().numpy(), w @ x + b, rtol=1e-12)
    np.testing.assert_allclose(gg.nn.functional.linear(gg.tensor(x), gg.tensor(w)).numpy(), w @ x, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), w.sum(0), rtol=1e-12)
    gg.debug.gradcheck(lambda v, m: gg.nn.functional.linear(v, m, gg.tensor(b)).sum(), [x, w])


def test_conv2d_and_2d_poolings_take_one_unbatched_image():
    # PyTorch's 2-d convolutions and poolings take [C, H, W] as a batch of one, unbatched back.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 9, 9))
    gg.manual_seed(0)
    layers = [nn.Conv2d(3, 4, 3, padding=1, stride=2).double(), nn.MaxPool2d(2), nn.AvgPool2d(3, 2, 1),
              nn.Conv2d(3, 3, 3, groups=3, bias=False).double()]
    for layer in layers:
        one = layer(gg.tensor(x))
        batch = layer(gg.tensor(x[None]))
        assert one.shape == batch.shape[1:], layer
        np.testing.assert_array_equal(one.detach().numpy(), batch.detach().numpy()[0])
    xt = gg.tensor(x, requires_grad=True)
    F.conv2d(xt, gg.tensor(rng.standard_normal((2, 3, 3, 3)))).sum().backward()
    assert xt.grad.shape == (3, 9, 9)


def test_interpolate_resamples_3d_input_along_its_length():
    # (N, C, L) input: 'nearest' repeats, 'linear' interpolates (align_corners as PyTorch defines it).
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 6))
    up = F.interpolate(gg.tensor(x), scale_factor=2).numpy()
    np.testing.assert_array_equal(up, np.repeat(x, 2, axis=-1))
    lin = F.interpolate(gg.tensor(x), size=11, mode="linear", align_corners=True).numpy()
    grid = np.linspace(0, 5, 11)
    want = np.stack([[np.interp(grid, np.arange(6), row) for row in batch] for batch in x])
    np.testing.assert_allclose(lin, want, rtol=1e-12, atol=1e-12)
    assert nn.Upsample(scale_factor=1.5, mode="linear")(gg.tensor(x)).shape == (2, 3, 9)
    gg.debug.gradcheck(lambda t: F.interpolate(t, scale_factor=1.7, mode="linear").sum(), [x])
    with pytest.raises(NotImplementedError, match="bilinear mode needs 4D"):   # PyTorch's class
        F.interpolate(gg.tensor(x), scale_factor=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match="linear mode needs 3D"):
        F.interpolate(gg.tensor(x[None]), scale_factor=2, mode="linear")
