"""glassgrad.vision.ops (box_area, box_iou, nms, roi_pool) against a NumPy reference and, where
torchvision is installed, torchvision.ops on the same random boxes and feature maps (odd sizes,
regions partly outside the map, scales that round halves); roi_pool's input gradient against
finite differences in float64."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import ops


def _boxes(rng, n, size=20.0):
    xy = rng.uniform(-2, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


def _iou_reference(a, b):
    out = np.zeros((len(a), len(b)))
    for i, p in enumerate(a):
        for j, q in enumerate(b):
            w = max(0.0, min(p[2], q[2]) - max(p[0], q[0]))
            h = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
            inter = w * h
            out[i, j] = inter / ((p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter)
    return out


def test_box_area_and_iou_match_the_reference():
    rng = np.random.default_rng(0)
    a, b = _boxes(rng, 7), _boxes(rng, 5)
    np.testing.assert_allclose(ops.box_area(gg.tensor(a)).numpy(), (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]), rtol=1e-6)
    np.testing.assert_allclose(ops.box_iou(gg.tensor(a), gg.tensor(b)).numpy(), _iou_reference(a, b), rtol=1e-5,
                               atol=1e-7)


def _rois(rng, k, n, size):
    return np.concatenate([rng.integers(0, n, (k, 1)).astype(np.float32), _boxes(rng, k, size)], axis=1)


def test_nms_and_roi_pool_match_torchvision():
    torch = pytest.importorskip("torch")
    tv_ops = pytest.importorskip("torchvision.ops")
    rng = np.random.default_rng(1)
    boxes, scores = _boxes(rng, 30), rng.uniform(0, 1, 30).astype(np.float32)
    for threshold in (0.1, 0.3, 0.7):
        mine = ops.nms(gg.tensor(boxes), gg.tensor(scores), threshold)
        assert mine.dtype == gg.int64
        assert mine.tolist() == tv_ops.nms(torch.tensor(boxes), torch.tensor(scores), threshold).tolist()
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    rois = _rois(rng, 9, 2, 100.0)
    rois[0, 1:] = [5, 5, 15, 25]  # a scale of 0.1 rounds halves: 0.5 -> 1, 1.5 -> 2, 2.5 -> 3
    for size, scale in (((2, 2), 0.1), (3, 0.1), ((2, 4), 0.05), (1, 0.12)):
        theirs = tv_ops.roi_pool(torch.tensor(x), torch.tensor(rois), size, scale).numpy()
        np.testing.assert_array_equal(ops.roi_pool(gg.tensor(x), gg.tensor(rois), size, scale).numpy(), theirs)
        per_image = [gg.tensor(rois[rois[:, 0] == b, 1:]) for b in range(2)]
        order = np.argsort(rois[:, 0], kind="stable")
        np.testing.assert_array_equal(ops.roi_pool(gg.tensor(x), per_image, size, scale).numpy(), theirs[order])


def test_roi_pool_of_the_course_example_and_its_gradient():
    x = gg.arange(16, dtype=gg.float32).view(1, 1, 4, 4)
    rois = gg.tensor([[0, 0, 0, 20, 20], [0, 0, 10, 30, 30]], dtype=gg.float32)
    assert ops.roi_pool(x, rois, output_size=(2, 2), spatial_scale=0.1).tolist() == \
        [[[[5.0, 6.0], [9.0, 10.0]]], [[[9.0, 11.0], [13.0, 15.0]]]]
    rng = np.random.default_rng(2)
    data = rng.standard_normal((1, 2, 5, 7))
    region = gg.tensor([[0, 0.0, 1.0, 5.0, 4.0]], dtype=gg.float64)
    inp = gg.tensor(data, requires_grad=True)
    weights = rng.standard_normal((1, 2, 2, 3))
    (ops.roi_pool(inp, region, (2, 3)) * gg.tensor(weights)).sum().backward()
    numeric, eps = np.zeros_like(data), 1e-6
    for idx in np.ndindex(*data.shape):
        hi, lo = data.copy(), data.copy()
        hi[idx] += eps
        lo[idx] -= eps
        numeric[idx] = ((ops.roi_pool(gg.tensor(hi), region, (2, 3)).numpy() * weights).sum()
                        - (ops.roi_pool(gg.tensor(lo), region, (2, 3)).numpy() * weights).sum()) / (2 * eps)
    np.testing.assert_allclose(inp.grad.numpy(), numeric, atol=1e-6)


def test_roi_pool_refuses_boxes_of_the_wrong_shape_naming_the_fix():
    x = gg.zeros(1, 1, 4, 4)
    with pytest.raises(gg.ShapeError, match=r"\[K, 5\]"):
        ops.roi_pool(x, gg.zeros(2, 4), 2)
    with pytest.raises(gg.GlassgradIndexError, match="image 3 of a batch of 1"):
        ops.roi_pool(x, gg.tensor([[3.0, 0, 0, 1, 1]]), 2)
    with pytest.raises(gg.ShapeError, match=r"\[N, 4\]"):
        ops.nms(gg.zeros(3, 5), gg.zeros(3), 0.5)
