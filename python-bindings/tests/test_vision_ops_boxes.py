"""glassgrad.vision.ops' box functions and detection losses (box_convert, box_area/box_iou in
every format, generalized/distance/complete_box_iou, batched_nms, remove_small_boxes,
clip_boxes_to_image, masks_to_boxes, the three IoU losses and sigmoid_focal_loss): hand-computed
values from the formulas torchvision documents, float64 finite-difference gradients, and, where
torchvision is installed, torchvision.ops on the same random boxes."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.debug import gradcheck
from glassgrad.vision import ops


def _boxes(rng, n, size=20.0):
    xy = rng.uniform(-2, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


A = [[0.0, 0.0, 2.0, 2.0]]
B = [[1.0, 1.0, 3.0, 4.0]]


def test_box_convert_round_trips_and_known_values():
    xyxy = gg.tensor([[1.0, 2.0, 5.0, 8.0]])
    assert ops.box_convert(xyxy, "xyxy", "xywh").tolist() == [[1.0, 2.0, 4.0, 6.0]]
    assert ops.box_convert(xyxy, "xyxy", "cxcywh").tolist() == [[3.0, 5.0, 4.0, 6.0]]
    assert ops.box_convert(gg.tensor([[3.0, 5.0, 4.0, 6.0]]), "cxcywh", "xywh").tolist() == [[1.0, 2.0, 4.0, 6.0]]
    same = ops.box_convert(xyxy, "xyxy", "xyxy")
    assert same.tolist() == xyxy.tolist() and same.data_ptr() != xyxy.data_ptr()
    batch = gg.tensor(_boxes(np.random.default_rng(0), 6).reshape(2, 3, 4))
    for fmt in ("xywh", "cxcywh"):
        back = ops.box_convert(ops.box_convert(batch, "xyxy", fmt), fmt, "xyxy")
        np.testing.assert_allclose(back.numpy(), batch.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="xyxy"):
        ops.box_convert(xyxy, "xyxy", "xywhr")


def test_iou_family_matches_hand_computed_values():
    a, b = gg.tensor(A, dtype=gg.float64), gg.tensor(B, dtype=gg.float64)
    # intersection 1, union 4 + 6 - 1 = 9, enclosing box 3 x 4 = 12, centres (1, 1) and (2, 2.5)
    assert ops.box_iou(a, b).item() == pytest.approx(1 / 9)
    assert ops.generalized_box_iou(a, b).item() == pytest.approx(1 / 9 - 3 / 12)
    diou = 1 / 9 - (1 + 2.25) / (9 + 16 + 1e-7)
    assert ops.distance_box_iou(a, b).item() == pytest.approx(diou)
    v = 4 / math.pi ** 2 * (math.atan(2 / 3) - math.atan(1.0)) ** 2
    alpha = v / (1 - 1 / 9 + v + 1e-7)
    assert ops.complete_box_iou(a, b).item() == pytest.approx(diou - alpha * v)
    assert ops.box_area(gg.tensor([[1, 1, 4, 3]])).tolist() == [6]
    assert ops.box_area(gg.tensor([[0.0, 0.0, 3.0, 2.0]]), fmt="xywh").tolist() == [6.0]
    xywh = ops.box_convert(b, "xyxy", "xywh")
    assert ops.box_iou(ops.box_convert(a, "xyxy", "xywh"), xywh, fmt="xywh").item() == pytest.approx(1 / 9)


def test_losses_match_hand_computed_values_and_reductions():
    a, b = gg.tensor(A * 2), gg.tensor(B + [[5.0, 5.0, 6.0, 6.0]])
    giou = ops.generalized_box_iou_loss(a, b)
    # the second pair is disjoint: IoU 0, union 5, enclosing 36
    np.testing.assert_allclose(giou.numpy(), [1 - (1 / 9 - 3 / 12), 1 + 31 / 36], rtol=1e-5)
    assert ops.generalized_box_iou_loss(a, b, reduction="sum").item() == pytest.approx(float(giou.sum()), rel=1e-6)
    assert ops.distance_box_iou_loss(a, b, reduction="mean").item() == pytest.approx(
        float(ops.distance_box_iou_loss(a, b).mean()), rel=1e-6)
    empty = gg.zeros(0, 4)
    assert ops.complete_box_iou_loss(empty, empty, reduction="mean").item() == 0.0
    with pytest.raises(ValueError, match="reduction"):
        ops.distance_box_iou_loss(a, b, reduction="max")
    # focal loss at logit 0: p = 0.5, BCE = log 2, (1 - p_t)^2 = 1/4, alpha_t = 0.25 (t=1) / 0.75 (t=0)
    focal = ops.sigmoid_focal_loss(gg.zeros(2), gg.tensor([1.0, 0.0]))
    np.testing.assert_allclose(focal.numpy(), [0.25 * math.log(2) / 4, 0.75 * math.log(2) / 4], rtol=1e-6)
    plain = ops.sigmoid_focal_loss(gg.zeros(2), gg.tensor([1.0, 0.0]), alpha=-1, gamma=0, reduction="sum")
    assert plain.item() == pytest.approx(2 * math.log(2), rel=1e-6)
    with pytest.raises(ValueError, match="alpha"):
        ops.sigmoid_focal_loss(gg.zeros(2), gg.zeros(2), alpha=2.0)


def test_box_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    a = gg.tensor(_boxes(rng, 3), requires_grad=True)
    b = gg.tensor(_boxes(rng, 3) * 0.5 + 4, requires_grad=True)
    for fn in (ops.box_iou, ops.generalized_box_iou, ops.distance_box_iou):
        assert gradcheck(fn, (a, b))
    for fn in (ops.generalized_box_iou_loss, ops.distance_box_iou_loss):
        assert gradcheck(fn, (a, b))
    logits = gg.tensor(rng.standard_normal(5), requires_grad=True)
    assert gradcheck(lambda x: ops.sigmoid_focal_loss(x, gg.tensor([1.0, 0.0, 1.0, 0.0, 0.5], dtype=gg.float64)),
                     (logits,))


def test_box_utilities_match_hand_computed_values():
    boxes = gg.tensor([[0.0, 0.0, 1.0, 5.0], [-3.0, 2.0, 12.0, 20.0], [2.0, 2.0, 4.0, 4.0]])
    assert ops.remove_small_boxes(boxes, 2.0).tolist() == [1, 2]
    assert ops.remove_small_boxes(boxes, 2.0).dtype == gg.int64
    assert ops.clip_boxes_to_image(boxes, (10, 8)).tolist() == [[0, 0, 1, 5], [0, 2, 8, 10], [2, 2, 4, 4]]
    scores = gg.tensor([0.9, 0.8, 0.7, 0.6])
    same = gg.tensor([[0.0, 0.0, 10.0, 10.0]] * 4)
    assert ops.batched_nms(same, scores, gg.tensor([0, 0, 1, 1]), 0.5).tolist() == [0, 2]
    assert ops.batched_nms(same, scores, gg.tensor([3, 1, 3, 1]), 0.5).tolist() == [0, 1]
    assert ops.batched_nms(gg.zeros(0, 4), gg.zeros(0), gg.zeros(0, dtype=gg.int64), 0.5).tolist() == []
    masks = gg.zeros(3, 4, 6)
    masks[0, 1:3, 2:5] = 1
    masks[2, 3, 0] = 1
    assert ops.masks_to_boxes(masks).tolist() == [[2, 1, 4, 2], [0, 0, 0, 0], [0, 3, 0, 3]]
    assert ops.masks_to_boxes(masks).dtype == gg.float32
    assert list(ops.masks_to_boxes(gg.zeros(0, 4, 4)).shape) == [0, 4]


def test_boxes_match_torchvision():
    torch = pytest.importorskip("torch")
    tv = pytest.importorskip("torchvision.ops")
    rng = np.random.default_rng(7)
    a, b = _boxes(rng, 6).astype(np.float32), _boxes(rng, 4).astype(np.float32)
    ga, gb, ta, tb = gg.tensor(a), gg.tensor(b), torch.tensor(a), torch.tensor(b)
    for name in ("box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou"):
        np.testing.assert_allclose(getattr(ops, name)(ga, gb).numpy(), getattr(tv, name)(ta, tb).numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    for fmt in ("xywh", "cxcywh"):
        np.testing.assert_allclose(ops.box_convert(ga, "xyxy", fmt).numpy(), tv.box_convert(ta, "xyxy", fmt).numpy(),
                                   rtol=1e-6)
        np.testing.assert_allclose(ops.box_iou(ops.box_convert(ga, "xyxy", fmt), ops.box_convert(gb, "xyxy", fmt),
                                               fmt=fmt).numpy(),
                                   tv.box_iou(tv.box_convert(ta, "xyxy", fmt), tv.box_convert(tb, "xyxy", fmt),
                                              fmt=fmt).numpy(), rtol=1e-5, atol=1e-6)
    pa, pb = _boxes(rng, 8).astype(np.float32), _boxes(rng, 8).astype(np.float32)
    for name in ("generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"):
        for reduction in ("none", "mean", "sum"):
            ours = getattr(ops, name)(gg.tensor(pa), gg.tensor(pb), reduction=reduction).numpy()
            np.testing.assert_allclose(ours, getattr(tv, name)(torch.tensor(pa), torch.tensor(pb),
                                                               reduction=reduction).numpy(), rtol=1e-5, atol=1e-6)
    ga = gg.tensor(pa.astype(np.float64), requires_grad=True)
    ta = torch.tensor(pa.astype(np.float64), requires_grad=True)
    ops.complete_box_iou_loss(ga, gg.tensor(pb.astype(np.float64)), reduction="sum").backward()
    tv.complete_box_iou_loss(ta, torch.tensor(pb.astype(np.float64)), reduction="sum").backward()
    np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=1e-7, atol=1e-10)
    ga.grad, ta.grad = None, None
    ops.complete_box_iou(ga, gg.tensor(pb.astype(np.float64))).sum().backward()
    tv.complete_box_iou(ta, torch.tensor(pb.astype(np.float64))).sum().backward()
    np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=1e-7, atol=1e-10)
    x, t = rng.standard_normal((4, 5)).astype(np.float32), (rng.uniform(size=(4, 5)) > 0.5).astype(np.float32)
    for alpha, gamma in ((0.25, 2), (-1, 0.5), (0.9, 0)):
        np.testing.assert_allclose(ops.sigmoid_focal_loss(gg.tensor(x), gg.tensor(t), alpha, gamma).numpy(),
                                   tv.sigmoid_focal_loss(torch.tensor(x), torch.tensor(t), alpha, gamma).numpy(),
                                   rtol=1e-5, atol=1e-7)
    boxes, scores = _boxes(rng, 40).astype(np.float32), rng.uniform(size=40).astype(np.float32)
    idxs = rng.integers(0, 4, 40)
    for thr in (0.2, 0.5):
        assert ops.batched_nms(gg.tensor(boxes), gg.tensor(scores), gg.tensor(idxs), thr).tolist() == \
            tv.batched_nms(torch.tensor(boxes), torch.tensor(scores), torch.tensor(idxs), thr).tolist()
    assert ops.remove_small_boxes(gg.tensor(boxes), 5.0).tolist() == \
        tv.remove_small_boxes(torch.tensor(boxes), 5.0).tolist()
    assert ops.clip_boxes_to_image(gg.tensor(boxes), (12, 15)).tolist() == \
        tv.clip_boxes_to_image(torch.tensor(boxes), (12, 15)).tolist()
    masks = rng.uniform(size=(5, 9, 7)) > 0.8
    masks[1] = False
    assert ops.masks_to_boxes(gg.tensor(masks)).tolist() == tv.masks_to_boxes(torch.tensor(masks)).tolist()
