"""torch.func.rearrange (einops patterns): the documented examples' shapes, values against NumPy
reshapes and transposes, the inferred and given axis lengths, '...', unit axes, a list of tensors,
gradients (float64 finite differences) and the errors; the last test compares with PyTorch."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.func import rearrange

X = np.arange(2 * 6 * 4 * 3, dtype=np.float64).reshape(2, 6, 4, 3)


@pytest.mark.parametrize("pattern, kwargs, expected", [
    ("b h w c -> b h w c", {}, lambda x: x),
    ("b h w c -> (b h) w c", {}, lambda x: x.reshape(12, 4, 3)),
    ("b h w c -> h (b w) c", {}, lambda x: x.transpose(1, 0, 2, 3).reshape(6, 8, 3)),
    ("b h w c -> b c h w", {}, lambda x: x.transpose(0, 3, 1, 2)),
    ("b h w c -> b (c h w)", {}, lambda x: x.transpose(0, 3, 1, 2).reshape(2, 72)),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2},
     lambda x: x.reshape(2, 2, 3, 2, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(8, 3, 2, 3)),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2},
     lambda x: x.reshape(2, 3, 2, 2, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 3, 2, 12)),
    ("... c -> c ...", {}, lambda x: np.moveaxis(x, 3, 0)),
    ("b ... c -> b (...) c", {}, lambda x: x.reshape(2, 24, 3)),
    ("b h w c -> b () h w c 1", {}, lambda x: x.reshape(2, 1, 6, 4, 3, 1)),
])
def test_patterns_against_numpy(pattern, kwargs, expected):
    out = rearrange(gg.tensor(X), pattern, **kwargs)
    want = expected(X)
    assert tuple(out.shape) == want.shape
    np.testing.assert_array_equal(out.numpy(), want)


def test_list_of_tensors_is_stacked_first():
    parts = [np.full((2, 3), float(i)) for i in range(4)]
    out = rearrange([gg.tensor(p) for p in parts], "n a b -> a (n b)")
    np.testing.assert_array_equal(out.numpy(), np.stack(parts).transpose(1, 0, 2).reshape(2, 12))


def test_gradients():
    x = gg.tensor(np.random.default_rng(0).standard_normal((2, 4, 3)), requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: rearrange(t, "b (h w) c -> c b w h", h=2) ** 2, [x])


@pytest.mark.parametrize("pattern, kwargs, match", [
    ("b h w c -> b h w", {}, r"names \['c'\] on one side only"),
    ("b h w -> b h w", {}, "3 input groups for a tensor of 4 dimensions"),
    ("b (h w) w2 c -> b h w w2 c", {"h": 4}, "size 6 that the group"),
    ("b (h w) w2 c -> b h w w2 c", {}, "more than one unknown size"),
    ("b h w c", {}, "no single '->'"),
    ("b (h w c -> b h w c", {}, "unclosed"),
    ("b h w c -> b h w c ...", {}, "'...' on one side only"),
    ("b b w c -> b w c", {}, "a name used twice"),
])
def test_errors(pattern, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rearrange(gg.tensor(X), pattern, **kwargs)


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for pattern, kwargs in [("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}), ("... c -> c ...", {}),
                            ("b ... c -> b (...) c", {}), ("b h w c -> b () h w c 1", {}),
                            ("b (h1 h2) w c -> b h2 h1 w c", {"h2": 3})]:
        theirs = torch.func.rearrange(torch.tensor(X), pattern, **kwargs).numpy()
        ours = rearrange(gg.tensor(X), pattern, **kwargs).numpy()
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)
