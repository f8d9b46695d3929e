"""reset_parameters() and reset_running_stats() against torch.nn: every layer that has them in
PyTorch has them here (the re-initialization idiom `for m in model.modules(): if hasattr(m,
"reset_parameters"): m.reset_parameters()` skipped convolutions, Bilinear, LayerNorm and
InstanceNorm before). Each draws again in place (the same Parameter objects) from PyTorch's
distribution: the bound of PyTorch's draw holds, and the spread is PyTorch's; constant
initializations and running statistics equal PyTorch's exactly. A lazy layer skips it until its
first forward, as PyTorch's. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

# (class, arguments, input for a forward that changes running statistics, or None)
LAYERS = [
    ("Conv1d", (6, 40, 5), None), ("Conv2d", (8, 32, 3), None), ("Conv2d", (8, 32, 3, 1, 0, 1, 4), None),
    ("Conv3d", (4, 16, 3), None), ("ConvTranspose1d", (40, 6, 5), None), ("ConvTranspose2d", (32, 8, 3), None),
    ("ConvTranspose3d", (16, 4, 3), None), ("Bilinear", (30, 20, 40), None), ("Linear", (200, 100), None),
    ("LayerNorm", ((4, 5),), None), ("InstanceNorm1d", (3,), (2, 3, 7)),
    ("InstanceNorm2d", (3, 1e-5, 0.1, True, True), (2, 3, 4, 5)), ("InstanceNorm3d", (3, 1e-5, 0.1, True, True), (2, 3, 2, 3, 4)),
    ("BatchNorm1d", (3,), (4, 3)),
]
NAMES = [f"{n}{a}" for n, a, _ in LAYERS]


def _scramble(lib, layer, shape):
    """Every parameter set to 7 and, with a forward in training mode, running statistics moved."""
    with lib.no_grad():
        for p in layer.parameters():
            p.fill_(7.0)
    if shape is not None:
        layer.train()
        layer(lib.tensor(np.random.default_rng(0).standard_normal(shape) * 3 + 2, dtype=lib.float32))


@pytest.mark.parametrize("name,args,shape", LAYERS, ids=NAMES)
def test_reset_parameters_draws_again_in_place_from_torchs_distribution(name, args, shape):
    made = {}
    for lib in (torch, gg):
        layer = getattr(lib.nn, name)(*args)
        _scramble(lib, layer, shape)
        before = [id(p) for p in layer.parameters()]
        layer.reset_parameters()
        assert [id(p) for p in layer.parameters()] == before
        made[lib] = ({k: np.array(p.detach().numpy()) for k, p in layer.named_parameters()},
                     {k: np.array(b.numpy()) for k, b in layer.named_buffers()})
    (tp, tb), (gp, gb) = made[torch], made[gg]
    assert list(gp) == list(tp) and list(gb) == list(tb)
    for k in tb:
        np.testing.assert_array_equal(gb[k], tb[k], err_msg=k)
    for k in tp:
        t, g = tp[k].ravel(), gp[k].ravel()
        if np.ptp(t) == 0:   # a constant initialization: exactly PyTorch's
            np.testing.assert_array_equal(g, t, err_msg=k)
            continue
        assert not np.any(g == 7.0), k
        module = getattr(torch.nn, name)(*args)
        fan_in = module.weight.shape[1] * (1 if module.weight.ndim == 2 else int(np.prod(module.weight.shape[2:])))
        bound = 1.0 / np.sqrt(module.weight.shape[1] if name == "Bilinear" else fan_in)
        assert np.abs(g).max() <= bound * (1 + 1e-6), k
        if t.size >= 100:   # a uniform draw on [-bound, bound]: its spread, bound / sqrt(3)
            assert abs(g.std() / (bound / np.sqrt(3)) - 1) < 0.2, k


@pytest.mark.parametrize("name", ["InstanceNorm1d", "BatchNorm2d"])
def test_reset_running_stats_as_torch(name):
    shape = (2, 3, 6) if name.endswith("1d") else (2, 3, 4, 4)
    stats = []
    for lib in (torch, gg):
        layer = getattr(lib.nn, name)(3, track_running_stats=True, affine=True)
        _scramble(lib, layer, shape)
        layer.reset_running_stats()
        stats.append([np.array(b.numpy()) for b in layer.buffers()] +
                     [np.array(p.detach().numpy()) for p in layer.parameters()])   # parameters untouched
    for g, t in zip(stats[1], stats[0]):
        np.testing.assert_array_equal(g, t)


@pytest.mark.parametrize("name,args,shape", [("LazyConv2d", (4, 3), (2, 5, 6, 6)), ("LazyLinear", (4,), (2, 5)),
                                             ("LazyConvTranspose1d", (4, 3), (2, 5, 6)),
                                             ("LazyInstanceNorm1d", (), (2, 5, 6))])
def test_lazy_layers_skip_reset_parameters_until_their_first_forward_as_torch(name, args, shape):
    for lib in (torch, gg):
        layer = getattr(lib.nn, name)(*args)
        layer.reset_parameters()   # nothing to draw yet: no error
        layer(lib.zeros(shape))
        with lib.no_grad():
            for p in layer.parameters():
                p.fill_(7.0)
        layer.reset_parameters()
        if not name.startswith("LazyInstance"):
            assert not np.any(layer.weight.detach().numpy() == 7.0)
        else:
            np.testing.assert_array_equal(layer.weight.detach().numpy(), np.ones(5, np.float32))
