"""glassgrad.vision.ops' region and layer operations: roi_align / RoIAlign, MultiScaleRoIAlign,
ps_roi_align, ps_roi_pool (bilinear sampling as torchvision's kernel: a hand-computed 1x1 case, float64 finite-difference gradients, and
torchvision.ops.roi_align on random regions partly off the map for every sampling_ratio and
aligned), RoIPool, drop_block2d/3d (blocks of zeros, the rescaling, eval identity),
stochastic_depth, FrozenBatchNorm2d (formula, BatchNorm2d state_dict) and Conv3dNormActivation."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.debug import gradcheck
from glassgrad.vision import ops


def _rois(rng, k, n, size):
    xy = rng.uniform(-3, size, (k, 2))
    wh = rng.uniform(0.2, size / 2, (k, 2))
    return np.concatenate([rng.integers(0, n, (k, 1)), xy, xy + wh], axis=1)


def test_roi_align_refuses_integer_maps_and_maps_that_are_not_4d():
    with pytest.raises(gg.DTypeError, match="input must be floating point"):
        ops.roi_align(gg.zeros(1, 1, 3, 4, dtype=gg.int64), gg.tensor([[0.0, 0.0, 0.0, 1.0, 1.0]]), 1)
    with pytest.raises(gg.ShapeError, match=r"input must be \[N, C, H, W\]"):
        ops.roi_align(gg.zeros(1, 3, 4), gg.tensor([[0.0, 0.0, 0.0, 1.0, 1.0]]), 1)


def test_roi_align_hand_computed_bilinear_values():
    x = gg.arange(12.0).reshape(1, 1, 3, 4)  # value = 4 * row + column
    # one bin, one sample at the region's centre (1.5, 1.0): bilinear reads 4 * 1.0 + 1.5
    out = ops.roi_align(x, gg.tensor([[0.0, 1.0, 0.5, 2.0, 1.5]]), 1, sampling_ratio=1, aligned=False)
    assert out.tolist() == [[[[5.5]]]]
    # aligned shifts by half a pixel: x in [0, 1], y in [-0.5, 0.5], the centre (0.5, 0.0) reads 0.5
    out = ops.roi_align(x, [gg.tensor([[0.5, 0.0, 1.5, 1.0]])], 1, sampling_ratio=1, aligned=True)
    assert out.tolist() == [[[[0.5]]]]
    # a point beyond one pixel outside reads 0, and still counts: 2 samples, one outside
    out = ops.roi_align(x, gg.tensor([[0.0, -4.0, 0.0, 0.0, 0.0]]), (1, 1), sampling_ratio=2, aligned=True)
    assert out.item() == pytest.approx(0.0)
    assert list(ops.roi_align(x, gg.zeros(0, 5), 2).shape) == [0, 1, 2, 2]
    module = ops.RoIAlign((2, 3), 0.5, 2, aligned=True)
    assert repr(module) == "RoIAlign(output_size=(2, 3), spatial_scale=0.5, sampling_ratio=2, aligned=True)"
    assert list(module(x, gg.tensor([[0.0, 0.0, 0.0, 6.0, 4.0]])).shape) == [1, 1, 2, 3]
    with pytest.raises(IndexError, match="image 3"):
        ops.roi_align(x, gg.tensor([[3.0, 0.0, 0.0, 1.0, 1.0]]), 1)


def test_roi_align_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x = gg.tensor(rng.standard_normal((2, 2, 5, 6)), requires_grad=True)
    rois = gg.tensor(_rois(rng, 4, 2, 6.0))
    for ratio, aligned in ((-1, False), (2, True)):
        assert gradcheck(lambda t: ops.roi_align(t, rois, (2, 3), 0.8, ratio, aligned), (x,))
    assert gradcheck(lambda t: ops.roi_pool(t, rois, 2, 0.8), (x,))


def test_roi_align_and_pool_match_torchvision():
    torch = pytest.importorskip("torch")
    tv = pytest.importorskip("torchvision.ops")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 9, 11)).astype(np.float32)
    rois = _rois(rng, 12, 3, 24.0).astype(np.float32)
    for size, scale, ratio, aligned in (((2, 2), 0.5, -1, False), (3, 0.25, 2, True), ((4, 2), 0.5, 0, True),
                                         (1, 1.0, 3, False), ((7, 7), 0.4, -1, True)):
        theirs = tv.roi_align(torch.tensor(x), torch.tensor(rois), size, scale, ratio, aligned).numpy()
        ours = ops.roi_align(gg.tensor(x), gg.tensor(rois), size, scale, ratio, aligned).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=str((size, scale, ratio, aligned)))
    xd = rng.standard_normal((2, 3, 7, 8))
    rd = _rois(rng, 6, 2, 10.0)
    weights = rng.standard_normal((6, 3, 3, 2))
    gx, tx = gg.tensor(xd, requires_grad=True), torch.tensor(xd, requires_grad=True)
    (ops.roi_align(gx, gg.tensor(rd), (3, 2), 0.7, -1, True) * gg.tensor(weights)).sum().backward()
    (tv.roi_align(tx, torch.tensor(rd), (3, 2), 0.7, -1, True) * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    per_image = [gg.tensor(rd[rd[:, 0] == b, 1:]) for b in range(2)]
    order = np.argsort(rd[:, 0], kind="stable")
    np.testing.assert_allclose(ops.RoIPool(2, 0.7)(gg.tensor(xd), per_image).numpy(),
                               tv.RoIPool(2, 0.7)(torch.tensor(xd), torch.tensor(rd)).numpy()[order])
    xp = rng.standard_normal((2, 12, 11, 13)).astype(np.float32)  # position-sensitive: C * h * w channels
    rp = _rois(rng, 9, 2, 14.0).astype(np.float32)
    for size, scale, ratio in (((3, 2), 1.0, -1), ((2, 3), 0.6, 2), ((3, 2), 0.9, 0)):
        np.testing.assert_allclose(ops.PSRoIAlign(size, scale, ratio)(gg.tensor(xp), gg.tensor(rp)).numpy(),
                                   tv.PSRoIAlign(size, scale, ratio)(torch.tensor(xp), torch.tensor(rp)).numpy(),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(ops.PSRoIPool(size, scale)(gg.tensor(xp), gg.tensor(rp)).numpy(),
                                   tv.PSRoIPool(size, scale)(torch.tensor(xp), torch.tensor(rp)).numpy(),
                                   rtol=1e-5, atol=1e-5)


def test_drop_block_zeroes_whole_blocks_and_rescales():
    gg.manual_seed(0)
    x = gg.ones(2, 3, 12, 12)
    y = ops.drop_block2d(x, 0.3, 3)
    kept = (y != 0).float()
    dropped = 1 - kept.numpy()
    assert 0 < dropped.sum() < dropped.size
    scale = kept.numel() / (1e-6 + kept.sum().item())
    np.testing.assert_allclose(y.numpy()[kept.numpy() == 1], scale, rtol=1e-5)
    assert ops.drop_block2d(x, 0.3, 3, training=False) is x
    assert ops.DropBlock3d(0.2, 3).eval()(gg.ones(1, 1, 4, 4, 4)).tolist() == gg.ones(1, 1, 4, 4, 4).tolist()
    y3 = ops.drop_block3d(gg.ones(1, 2, 5, 5, 5), 0.5, 9)  # block capped at 5
    assert list(y3.shape) == [1, 2, 5, 5, 5]
    assert repr(ops.DropBlock2d(0.1, 5)) == "DropBlock2d(p=0.1, block_size=5, inplace=False)"
    with pytest.raises(ValueError, match="odd"):
        ops.drop_block2d(x, 0.1, 4)
    with pytest.raises(ValueError, match="4 dimensional"):
        ops.drop_block2d(gg.ones(3, 4, 4), 0.1, 3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        ops.drop_block3d(gg.ones(1, 1, 3, 3, 3), 1.5, 3)


def test_drop_block_blocks_are_squares():
    gg.manual_seed(3)
    y = ops.drop_block2d(gg.ones(1, 1, 15, 15), 0.05, 5)
    zero = (y == 0).numpy()[0, 0]
    assert zero.any()
    rows, cols = np.nonzero(zero)
    # each zero pixel belongs to some 5x5 all-zero square inside the map
    for i, j in zip(rows, cols):
        assert any(zero[a:a + 5, b:b + 5].all() for a in range(max(i - 4, 0), min(i, 10) + 1)
                   for b in range(max(j - 4, 0), min(j, 10) + 1))


def test_stochastic_depth_function():
    gg.manual_seed(1)
    x = gg.ones(64, 3)
    y = ops.stochastic_depth(x, 0.5, "row")
    rows = y.numpy()
    assert set(np.unique(rows)) <= {0.0, 2.0} and (rows == rows[:, :1]).all() and 0 < rows[:, 0].sum() < 128
    assert ops.stochastic_depth(x, 0.5, "row", training=False) is x
    assert set(np.unique(ops.stochastic_depth(x, 0.25, "batch").numpy())) <= {0.0, 4 / 3}
    with pytest.raises(ValueError, match="mode"):
        ops.stochastic_depth(x, 0.5, "column")


def test_frozen_batch_norm_and_conv3d_norm_activation():
    rng = np.random.default_rng(4)
    bn = nn.BatchNorm2d(3)
    for name in ("weight", "bias", "running_mean"):
        getattr(bn, name).data.copy_(gg.tensor(rng.standard_normal(3).astype(np.float32)))
    bn.running_var.data.copy_(gg.tensor(rng.uniform(0.5, 2, 3).astype(np.float32)))
    frozen = ops.FrozenBatchNorm2d(3, eps=1e-5)
    frozen.load_state_dict(bn.state_dict())  # num_batches_tracked is dropped
    assert [n for n, _ in frozen.named_parameters()] == []
    assert sorted(frozen.state_dict()) == ["bias", "running_mean", "running_var", "weight"]
    x = gg.tensor(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    np.testing.assert_allclose(frozen(x).numpy(), bn.eval()(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(frozen) == "FrozenBatchNorm2d(3, eps=1e-05)"
    block = ops.Conv3dNormActivation(2, 4, kernel_size=(3, 1, 5))
    assert isinstance(block[0], nn.Conv3d) and block[0].padding == (1, 0, 2) and block[0].bias is None
    assert isinstance(block[1], nn.BatchNorm3d) and isinstance(block[2], nn.ReLU)
    assert list(block(gg.ones(1, 2, 5, 6, 7)).shape) == [1, 4, 5, 6, 7]
    plain = ops.Conv2dNormActivation(3, 5, (3, 5), norm_layer=None, activation_layer=None)
    assert plain[0].padding == (1, 2) and plain[0].bias is not None and len(plain) == 1


def test_layers_match_torchvision():
    torch = pytest.importorskip("torch")
    tv = pytest.importorskip("torchvision.ops")
    theirs = tv.Conv3dNormActivation(2, 4, kernel_size=(3, 1, 5), dilation=2)
    ours = ops.Conv3dNormActivation(2, 4, kernel_size=(3, 1, 5), dilation=2)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((1, 2, 6, 5, 9)).astype(np.float32)
    np.testing.assert_allclose(ours.eval()(gg.tensor(x)).detach().numpy(),
                               theirs.eval()(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    image = x[0, :, 0][None]  # [1, 2, 5, 9]: FrozenBatchNorm2d over 2 channels
    frozen_tv, frozen = tv.FrozenBatchNorm2d(2), ops.FrozenBatchNorm2d(2)
    frozen_tv.running_var.uniform_(0.5, 2)
    frozen_tv.bias.normal_()
    frozen.load_state_dict({k: gg.tensor(v.numpy()) for k, v in frozen_tv.state_dict().items()})
    np.testing.assert_allclose(frozen(gg.tensor(image)).numpy(), frozen_tv(torch.tensor(image)).numpy(), rtol=1e-5,
                               atol=1e-6)


def test_multiscale_roi_align_picks_levels_and_matches_torchvision():
    rng = np.random.default_rng(9)
    feats = {"p2": rng.standard_normal((2, 3, 32, 40)), "p3": rng.standard_normal((2, 3, 16, 20)),
             "p5": rng.standard_normal((2, 3, 4, 5))}
    boxes = [np.array([[0, 0, 20, 20], [5, 5, 120, 110], [10, 4, 150, 160]], np.float32),
             np.array([[1, 2, 60, 70], [0, 0, 8, 9]], np.float32)]
    shapes = [(128, 160), (120, 150)]
    pooler = ops.MultiScaleRoIAlign(["p2", "p3"], 3, 2)
    x = {k: gg.tensor(v.astype(np.float32)) for k, v in feats.items()}
    out = pooler(x, [gg.tensor(b) for b in boxes], shapes)
    assert out.shape == (5, 3, 3, 3) and pooler.scales == [0.25, 0.125]
    # a small box (sqrt(area) 20 -> level 4 + log2(20 / 224) < 2) reads p2, the large ones p3
    first = ops.roi_align(x["p2"], gg.tensor([[0.0, 0, 0, 20, 20]]), 3, 0.25, 2)
    np.testing.assert_allclose(out[:1].numpy(), first.numpy(), rtol=1e-6)
    assert repr(pooler) == "MultiScaleRoIAlign(featmap_names=['p2', 'p3'], output_size=(3, 3), sampling_ratio=2)"
    torch = pytest.importorskip("torch")
    tv = pytest.importorskip("torchvision.ops")
    for names in (["p2", "p3", "p5"], ["p3"]):
        theirs = tv.MultiScaleRoIAlign(names, (2, 3), -1)({k: torch.tensor(v.astype(np.float32)) for k, v in
                                                           feats.items()}, [torch.tensor(b) for b in boxes], shapes)
        ours = ops.MultiScaleRoIAlign(names, (2, 3), -1)(x, [gg.tensor(b) for b in boxes], shapes)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    xd = {k: gg.tensor(v, requires_grad=True) for k, v in feats.items()}
    td = {k: torch.tensor(v, requires_grad=True) for k, v in feats.items()}
    w = rng.standard_normal((5, 3, 2, 2))
    (ops.MultiScaleRoIAlign(["p2", "p3"], 2, 2)(xd, [gg.tensor(b.astype(np.float64)) for b in boxes], shapes)
     * gg.tensor(w)).sum().backward()
    (tv.MultiScaleRoIAlign(["p2", "p3"], 2, 2)(td, [torch.tensor(b.astype(np.float64)) for b in boxes], shapes)
     * torch.tensor(w)).sum().backward()
    for k in ("p2", "p3"):
        np.testing.assert_allclose(xd[k].grad.numpy(), td[k].grad.numpy(), rtol=1e-9, atol=1e-12)


def test_position_sensitive_pooling():
    x = gg.arange(1 * 4 * 6 * 6, dtype=gg.float32).reshape(1, 4, 6, 6)
    # bin (i, j) reads channel i * 2 + j; region [0, 3) x [0, 3) in bins of 1.5 pixels
    pooled = ops.ps_roi_pool(x, gg.tensor([[0.0, 0, 0, 3, 3]]), 2)
    assert pooled.tolist() == [[[[3.5, 40.5], [81.5, 118.5]]]]
    assert list(ops.ps_roi_align(x, [gg.tensor([[0.0, 0, 3, 3]])], 2, 1.0, 2).shape) == [1, 1, 2, 2]
    assert repr(ops.PSRoIPool(2, 0.5)) == "PSRoIPool(output_size=2, spatial_scale=0.5)"
    with pytest.raises(ValueError, match="multiple"):
        ops.ps_roi_pool(gg.zeros(1, 3, 4, 4), gg.tensor([[0.0, 0, 0, 2, 2]]), 2)
    rng = np.random.default_rng(12)
    xd = gg.tensor(rng.standard_normal((2, 8, 5, 6)), requires_grad=True)
    rois = gg.tensor([[0.0, 0.4, 0.2, 4.6, 3.9], [1.0, 1.2, 0.0, 5.0, 4.4], [1.0, -1.0, 1.5, 3.3, 6.0]])
    assert gradcheck(lambda t: ops.ps_roi_align(t, rois, 2, 0.9, 2), (xd,))
    assert gradcheck(lambda t: ops.ps_roi_pool(t, rois, 2, 0.9), (xd,))

