"""PixelShuffle / PixelUnshuffle and the channel dropouts (Dropout1d/2d/3d) as PyTorch defines
them: the index maps against a NumPy restatement, round trips, gradients, errors; dropout's
whole-channel masks, scaling, eval identity and PyTorch's rank rules."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


def _shuffle_numpy(x, r):
    *b, c, h, w = x.shape
    out = np.empty((*b, c // (r * r), h * r, w * r))
    for cc in range(c // (r * r)):
        for i in range(r):
            for j in range(r):
                out[..., cc, i::r, j::r] = x[..., cc * r * r + i * r + j, :, :]
    return out


@pytest.mark.parametrize("shape,r", [((2, 12, 3, 5), 2), ((18, 2, 3), 3), ((2, 1, 4, 3, 2), 2), ((1, 5, 4, 4), 1)])
def test_pixel_shuffle_matches_the_index_map_and_unshuffle_inverts_it(shape, r):
    x = np.random.default_rng(0).standard_normal(shape)
    y = F.pixel_shuffle(gg.tensor(x), r)
    np.testing.assert_array_equal(y.numpy(), _shuffle_numpy(x, r))
    np.testing.assert_array_equal(F.pixel_unshuffle(y, r).numpy(), x)
    layer = gg.nn.PixelShuffle(r)
    assert repr(layer) == f"PixelShuffle(upscale_factor={r})"
    np.testing.assert_array_equal(layer(gg.tensor(x)).numpy(), y.numpy())


def test_pixel_shuffle_gradient_is_the_inverse_permutation():
    x = gg.tensor(np.random.default_rng(1).standard_normal((2, 8, 3, 3)), requires_grad=True)
    u = np.random.default_rng(2).standard_normal((2, 2, 6, 6))
    (F.pixel_shuffle(x, 2) * gg.tensor(u)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), F.pixel_unshuffle(gg.tensor(u), 2).numpy())
    assert gg.debug.gradcheck(lambda t: F.pixel_unshuffle(t, 3), [np.random.rand(1, 2, 3, 6)])


def test_pixel_shuffle_matches_torch(torch):
    x = np.random.default_rng(3).standard_normal((2, 3, 8, 6, 4))
    for r in (1, 2):
        np.testing.assert_array_equal(F.pixel_unshuffle(gg.tensor(x), r).numpy(),
                                      torch.nn.functional.pixel_unshuffle(torch.tensor(x), r).numpy())
    y = np.random.default_rng(4).standard_normal((2, 3, 18, 4, 5))
    np.testing.assert_array_equal(F.pixel_shuffle(gg.tensor(y), 3).numpy(),
                                  torch.nn.functional.pixel_shuffle(torch.tensor(y), 3).numpy())


def test_pixel_shuffle_errors_name_the_sizes_and_a_fix():
    with pytest.raises(gg.ShapeError, match=r"(?s)divisible by the square of upscale_factor.*fix: give the layer"):
        F.pixel_shuffle(gg.tensor(np.zeros((1, 6, 2, 2))), 2)
    with pytest.raises(gg.ShapeError, match=r"height to be divisible by downscale_factor.*input.size\(-2\)=5"):
        F.pixel_unshuffle(gg.tensor(np.zeros((1, 1, 5, 4))), 2)
    with pytest.raises(gg.ShapeError, match="at least 3 dimensions"):
        F.pixel_shuffle(gg.tensor(np.zeros((4, 4))), 2)
    with pytest.raises(gg.InvalidArgumentError, match="upscale_factor must be an int >= 1"):
        gg.nn.PixelShuffle(0)(gg.ones(1, 4, 2, 2))  # PyTorch builds it; its call refuses


# ---- channel dropout ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn,shape", [("dropout1d", (4, 6, 9)), ("dropout1d", (6, 9)), ("dropout2d", (4, 6, 3, 5)),
                                      ("dropout3d", (3, 5, 2, 3, 4)), ("dropout3d", (5, 2, 3, 4))])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(fn, shape):
    gg.manual_seed(0)
    x = np.random.default_rng(5).uniform(1.0, 2.0, shape)  # no zeros of its own
    y = getattr(F, fn)(gg.tensor(x), p=0.4).numpy()
    spatial = 1 if fn == "dropout1d" else 2 if fn == "dropout2d" else 3
    per_channel = (y / x).reshape(-1, int(np.prod(shape[-spatial:])))
    for row in per_channel:  # one value a channel: 0 or 1 / (1 - p)
        np.testing.assert_allclose(row, row[0], rtol=1e-12)
        assert row[0] == 0 or abs(row[0] - 1 / 0.6) < 1e-12
    # A few channels a call: the kept fraction over twenty calls (each draws a new mask).
    kept = np.mean([(getattr(F, fn)(gg.tensor(x), p=0.4).numpy().reshape(per_channel.shape)[:, 0] != 0).mean()
                    for _ in range(20)])
    assert 0.45 < kept < 0.75
    np.testing.assert_array_equal(getattr(F, fn)(gg.tensor(x), p=0.4, training=False).numpy(), x)
    np.testing.assert_array_equal(getattr(F, fn)(gg.tensor(x), p=1.0).numpy(), np.zeros(shape))


def test_channel_dropout_layers_train_and_eval():
    gg.manual_seed(1)
    layer = gg.nn.Dropout2d(0.5)
    assert repr(layer) == "Dropout2d(p=0.5, inplace=False)"
    x = gg.tensor(np.ones((8, 16, 2, 2)), requires_grad=True)
    y = layer(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.detach().numpy(), y.detach().numpy())  # the gradient is the same mask
    assert set(np.unique(y.detach().numpy())) <= {0.0, 2.0}
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), x.detach().numpy())


def test_channel_dropout_follows_pytorch_s_rank_rules():
    with pytest.raises(gg.ShapeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(gg.tensor(np.zeros((2, 3, 4, 5))))
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
        y = F.dropout2d(gg.tensor(np.ones((2, 3, 4))), 0.5)
    assert y.shape == (2, 3, 4)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(gg.tensor(np.ones((2, 3))), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout3d(gg.tensor(np.ones((2, 3, 4, 5))), 0.5)  # (C, D, H, W): unbatched, no warning
    with pytest.raises(gg.InvalidArgumentError, match=r"dropout probability has to be between 0 and 1"):
        gg.nn.Dropout1d(1.5)


def test_channel_dropout_masks_are_redrawn_by_compiled_steps():
    gg.manual_seed(2)
    x = gg.tensor(np.ones((4, 8, 3, 3), np.float32))
    step = gg.compile(lambda t: F.dropout2d(t, 0.5) * 1.0)
    masks = [step(x).numpy()[:, :, 0, 0] for _ in range(3)]
    assert not np.array_equal(masks[1], masks[2])
