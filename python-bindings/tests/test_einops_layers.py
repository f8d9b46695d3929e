"""einops' layers as glassgrad modules (glassgrad/einops_layers.py, docs/porting.md "einops"):
Rearrange, Reduce and EinMix inside glassgrad's containers, against NumPy; then against
einops.layers.torch on PyTorch when torch is installed. Needs einops."""
import pickle

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn

pytest.importorskip("einops")
from glassgrad.einops_layers import EinMix, Rearrange, Reduce

PATCHES = "b c (h p1) (w p2) -> b (h w) (p1 p2 c)"


def _patches(a, p):
    """NumPy's PATCHES rearrange of a (b, c, H, W) array with p x p patches."""
    b, c, hh, ww = a.shape
    return a.reshape(b, c, hh // p, p, ww // p, p).transpose(0, 2, 4, 3, 5, 1).reshape(b, -1, p * p * c)


def test_rearrange_is_a_layer_of_a_sequential_with_gradients():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3, 4, 6)).astype(np.float32)
    model = nn.Sequential(Rearrange(PATCHES, p1=2, p2=2), nn.LayerNorm(12), nn.Linear(12, 5))
    assert isinstance(model[0], nn.Module) and list(model[0].parameters()) == []
    x = gg.tensor(a, requires_grad=True)
    y = model[0](x)
    np.testing.assert_array_equal(y.detach().numpy(), _patches(a, 2))
    assert tuple(model(x).shape) == (2, 6, 5)
    (y * gg.tensor(_patches(a, 2))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), a, rtol=1e-6)  # d/dx sum(P(x) * P(a)) = a
    assert sorted(model.state_dict()) == ["1.bias", "1.weight", "2.bias", "2.weight"]


def test_the_layers_print_as_einops_prints_them():
    model = nn.Sequential(Rearrange(PATCHES, p1=2, p2=2), Reduce("b n d -> b d", "mean"))
    assert repr(model[0]) == "Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=2)"
    assert repr(model[1]) == "Reduce('b n d -> b d', 'mean')"
    assert "(0): Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=2)" in repr(model)


@pytest.mark.parametrize("reduction, ref", [("mean", np.mean), ("max", np.max), ("sum", np.sum), ("min", np.min)])
def test_reduce_pools_as_numpy(reduction, ref):
    a = np.random.default_rng(1).normal(size=(2, 3, 4, 6)).astype(np.float32)
    pool = Reduce("b c (h h2) (w w2) -> b c h w", reduction, h2=2, w2=3)
    want = ref(a.reshape(2, 3, 2, 2, 2, 3), axis=(3, 5))
    np.testing.assert_allclose(pool(gg.tensor(a)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(Reduce("b c h w -> b c", reduction)(gg.tensor(a)).numpy(), ref(a, axis=(2, 3)),
                               rtol=1e-5)


def test_einmix_holds_its_weight_and_bias_and_mixes_as_einsum():
    gg.manual_seed(0)
    mix = EinMix("t b cin -> t b cout", weight_shape="cin cout", bias_shape="cout", cin=4, cout=3)
    assert [(n, tuple(p.shape)) for n, p in mix.named_parameters()] == [("weight", (4, 3)), ("bias", (1, 1, 3))]
    # the bias is shaped to broadcast over the output (einops' mixin)
    # uniform within He's bounds for 4 mixed inputs, sqrt(3 / 4) and 1 / sqrt(4) (einops' mixin)
    assert float(mix.weight.detach().abs().max()) <= np.sqrt(3 / 4)
    assert float(mix.bias.detach().abs().max()) <= 1 / np.sqrt(4)
    a = np.random.default_rng(2).normal(size=(5, 2, 4)).astype(np.float32)
    x = gg.tensor(a, requires_grad=True)
    out = mix(x)
    w, b = mix.weight.detach().numpy(), mix.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), np.einsum("tbi,io->tbo", a, w) + b, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(mix.weight.grad.numpy(), np.broadcast_to(a.sum(axis=(0, 1))[:, None], (4, 3)),
                               rtol=1e-5)
    np.testing.assert_allclose(mix.bias.grad.numpy(), np.full((1, 1, 3), 10.0))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(w.sum(axis=1), (5, 2, 4)), rtol=1e-5)


def test_einmix_rearranges_before_and_after():
    # one linear map a head: the packed axes are split before the einsum and packed after it
    mix = EinMix("b (head cin) -> b (head cout)", weight_shape="head cin cout", head=2, cin=3, cout=4)
    assert mix.pre_rearrange is not None and mix.post_rearrange is not None and mix.bias is None
    a = np.random.default_rng(3).normal(size=(5, 6)).astype(np.float32)
    w = mix.weight.detach().numpy()
    want = np.einsum("bhi,hio->bho", a.reshape(5, 2, 3), w).reshape(5, 8)
    np.testing.assert_allclose(mix(gg.tensor(a)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    assert sorted(n for n, _ in mix.named_parameters()) == ["weight"]


def test_a_pickled_layer_keeps_its_pattern():
    layer = pickle.loads(pickle.dumps(Rearrange(PATCHES, p1=2, p2=2)))
    a = np.arange(48, dtype=np.float32).reshape(1, 3, 4, 4)
    np.testing.assert_array_equal(layer(gg.tensor(a)).numpy(), _patches(a, 2))


def test_a_bad_pattern_raises_einops_error_naming_the_layer():
    import einops
    with pytest.raises(einops.EinopsError, match="Rearrange"):
        Rearrange("b c -> b d")


def test_layers_match_einops_torch_layers():
    torch = pytest.importorskip("torch")
    from einops.layers import torch as tl
    rng = np.random.default_rng(4)
    a = rng.normal(size=(2, 3, 4, 6)).astype(np.float32)
    for ours, theirs in [(Rearrange(PATCHES, p1=2, p2=3), tl.Rearrange(PATCHES, p1=2, p2=3)),
                         (Reduce("b c (h 2) (w 2) -> b c h w", "max"), tl.Reduce("b c (h 2) (w 2) -> b c h w", "max"))]:
        assert repr(ours) == repr(theirs)
        np.testing.assert_array_equal(ours(gg.tensor(a)).numpy(), theirs(torch.tensor(a)).numpy())
    pattern = dict(weight_shape="c d", bias_shape="d", c=3, d=5)
    ours, theirs = EinMix("b c h w -> b h w d", **pattern), tl.EinMix("b c h w -> b h w d", **pattern)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.tensor(rng.normal(size=tuple(p.shape)).astype(np.float32)))
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = gg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours(x).square().sum().backward()
    theirs(tx).square().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
