"""glassgrad.vision.models.detection: torchvision's Faster R-CNN, Mask R-CNN, Keypoint R-CNN,
RetinaNet and FCOS with their parts (GeneralizedRCNNTransform, RPN, RoIHeads, FastRCNNPredictor) and
MultiScaleRoIAlign over a backbone of fewer maps than its names. Without torch: torchvision's
parameter counts, a custom-backbone FasterRCNN's loss dict in training and detections in eval, a
few SGD steps lowering the loss, the finetuning tutorial's predictor swap, the refusals of
weights. With torchvision installed: the same state_dict keys, and after loading torchvision's
state_dict the same eval detections and training losses and gradients (every anchor and proposal
sampled, so no random draw decides which)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.vision.models import detection
from glassgrad.vision.models.detection.anchor_utils import AnchorGenerator
from glassgrad.vision.models.detection.faster_rcnn import FasterRCNN, FastRCNNPredictor
from glassgrad.vision.models.detection.mask_rcnn import MaskRCNNPredictor
from glassgrad.vision.ops import MultiScaleRoIAlign

# torchvision 0.28's counts with weights=None and weights_backbone=None (BatchNorm2d in the backbone)
NUM_PARAMS = {"fasterrcnn_resnet50_fpn": 41808406, "fasterrcnn_resnet50_fpn_v2": 43712278,
              "fasterrcnn_mobilenet_v3_large_fpn": 19410754, "maskrcnn_resnet50_fpn": 44454513,
              "maskrcnn_resnet50_fpn_v2": 46359409, "keypointrcnn_resnet50_fpn": 59190378,
              "retinanet_resnet50_fpn": 34068119, "retinanet_resnet50_fpn_v2": 38198935, "fcos_resnet50_fpn": 32322720}


def _images(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.random((3, 64, 80), dtype=np.float32), rng.random((3, 56, 72), dtype=np.float32)]


def _targets(images, keypoints=False):
    """Two boxes in the first image, one in the second, with their masks (and 17 keypoints)."""
    rng = np.random.default_rng(1)
    out = [dict(boxes=np.array([[5, 6, 40, 50], [30, 20, 70, 60]], np.float32), labels=np.array([1, 1])),
           dict(boxes=np.array([[10, 12, 30, 40]], np.float32), labels=np.array([1]))]
    for t, image in zip(out, images):
        t["masks"] = np.zeros((len(t["boxes"]), *image.shape[1:]), np.uint8)
        for j, (x1, y1, x2, y2) in enumerate(t["boxes"].astype(int)):
            t["masks"][j, y1:y2, x1:x2] = 1
        if keypoints:
            xy = rng.uniform(12, 28, (len(t["boxes"]), 17, 2))
            t["keypoints"] = np.concatenate([xy, np.ones((len(t["boxes"]), 17, 1))], 2).astype(np.float32)
    return out


def _gg_targets(targets):
    return [{k: gg.tensor(v) for k, v in t.items()} for t in targets]


class _TinyBackbone(nn.Sequential):
    """Two strided convolutions to 8 channels: the finetuning tutorial's custom backbone, small."""

    def __init__(self):
        super().__init__(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, stride=2, padding=1),
                         nn.ReLU())
        self.out_channels = 8


def _tiny_faster_rcnn(num_classes=3):
    anchors = AnchorGenerator(sizes=((8, 16, 32),), aspect_ratios=((0.5, 1.0, 2.0),))
    pool = MultiScaleRoIAlign(featmap_names=["0"], output_size=7, sampling_ratio=2)
    return FasterRCNN(_TinyBackbone(), num_classes=num_classes, rpn_anchor_generator=anchors, box_roi_pool=pool,
                      min_size=64, max_size=96, rpn_pre_nms_top_n_train=200, rpn_post_nms_top_n_train=50,
                      rpn_pre_nms_top_n_test=100, rpn_post_nms_top_n_test=30, box_batch_size_per_image=64)


def test_multiscale_roi_align_pools_the_maps_it_is_given():
    # a backbone of two maps under the default four names: the names x lacks are skipped
    rng = np.random.default_rng(0)
    x = {"0": gg.tensor(rng.random((1, 4, 16, 16), dtype=np.float32)),
         "1": gg.tensor(rng.random((1, 4, 8, 8), dtype=np.float32))}
    boxes = [gg.tensor([[1.0, 2.0, 20.0, 30.0], [0.0, 0.0, 60.0, 60.0]])]
    four = MultiScaleRoIAlign(["0", "1", "2", "3"], 3, 2)(x, boxes, [(64, 64)])
    two = MultiScaleRoIAlign(["0", "1"], 3, 2)(x, boxes, [(64, 64)])
    np.testing.assert_array_equal(four.numpy(), two.numpy())


def test_nms_keeps_boxes_whose_iou_is_nan():
    # two boxes of zero area overlap by 0 / 0: torchvision's kernel suppresses on `iou > threshold`,
    # which NaN never is, so both stay (FCOS decodes such boxes from a random network)
    from glassgrad.vision.ops import batched_nms, nms
    boxes = gg.tensor([[16.0, 48.0, 16.0, 49.0], [16.0, 48.0, 16.0, 50.0], [0.0, 0.0, 10.0, 10.0]])
    scores = gg.tensor([0.9, 0.8, 0.7])
    assert nms(boxes, scores, 0.5).tolist() == [0, 1, 2]
    assert batched_nms(boxes, scores, gg.tensor([1, 1, 2]), 0.5).tolist() == [0, 1, 2]


@pytest.mark.parametrize("name", ["retinanet_resnet50_fpn", "fcos_resnet50_fpn"])
def test_one_stage_detectors_losses_and_detections(name):
    gg.manual_seed(0)
    model = getattr(detection, name)(weights=None, num_classes=3, min_size=64, max_size=96, score_thresh=0.001,
                                     detections_per_img=20)
    images = [gg.tensor(i) for i in _images()]
    losses = model(images, _gg_targets(_targets(_images())))
    keys = ["bbox_regression", "classification"] + (["bbox_ctrness"] if name.startswith("fcos") else [])
    assert sorted(losses) == sorted(keys) and all(np.isfinite(v.item()) for v in losses.values())
    sum(losses.values()).backward()
    assert model.head.classification_head.cls_logits.weight.grad is not None
    model.eval()
    with gg.no_grad():
        out = model(images)
    assert len(out) == 2 and sorted(out[0]) == ["boxes", "labels", "scores"] and len(out[0]["boxes"]) == 20


@pytest.mark.parametrize("name", list(NUM_PARAMS))
def test_parameter_counts_are_torchvisions(name):
    model = getattr(detection, name)(weights=None, weights_backbone=None)
    assert sum(p.numel() for p in model.parameters()) == NUM_PARAMS[name]


def test_custom_backbone_losses_in_training_detections_in_eval():
    gg.manual_seed(0)
    model = _tiny_faster_rcnn()
    images = [gg.tensor(i) for i in _images()]
    losses = model(images, _gg_targets(_targets(_images())))
    assert sorted(losses) == ["loss_box_reg", "loss_classifier", "loss_objectness", "loss_rpn_box_reg"]
    assert all(v.ndim == 0 and np.isfinite(v.item()) for v in losses.values())
    sum(losses.values()).backward()
    assert model.roi_heads.box_predictor.cls_score.weight.grad is not None
    assert model.rpn.head.cls_logits.weight.grad is not None
    model.eval()
    with gg.no_grad():
        out = model(images)
    assert isinstance(out, list) and len(out) == 2 and sorted(out[0]) == ["boxes", "labels", "scores"]
    for o, image in zip(out, images):
        assert o["boxes"].shape[1] == 4 and o["labels"].dtype == gg.int64 and len(o["scores"]) == len(o["labels"])
        b = o["boxes"].numpy()  # in the original image's coordinates
        assert (b[:, 0] >= 0).all() and (b[:, 2] <= image.shape[2]).all() and (b[:, 3] <= image.shape[1]).all()


def test_sgd_steps_lower_the_loss():
    gg.manual_seed(0)
    model = _tiny_faster_rcnn()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = gg.optim.SGD(params, lr=0.01, momentum=0.9)
    images, targets = [gg.tensor(i) for i in _images()], _gg_targets(_targets(_images()))
    totals = []
    for _ in range(6):
        loss = sum(model(images, targets).values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        totals.append(loss.item())
    assert totals[-1] < totals[0]


def test_finetuning_tutorial_replaces_the_predictors():
    model = detection.maskrcnn_resnet50_fpn(weights=None, min_size=64, max_size=96)
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, 2)
    in_features_mask = model.roi_heads.mask_predictor.conv5_mask.in_channels
    model.roi_heads.mask_predictor = MaskRCNNPredictor(in_features_mask, 256, 2)
    assert in_features == 1024 and in_features_mask == 256
    assert tuple(model.state_dict()["roi_heads.box_predictor.bbox_pred.weight"].shape) == (8, 1024)
    model.eval()
    with gg.no_grad():
        (out,) = model([gg.tensor(_images()[0])])
    assert out["masks"].shape[1:] == (1, 64, 80) and set(out["labels"].tolist()) <= {1}


def test_weights_are_refused_and_enums_exist():
    from glassgrad import _C
    with pytest.raises(_C.UnsupportedError, match="no pretrained weights"):
        detection.fasterrcnn_resnet50_fpn(weights="DEFAULT")
    with pytest.raises(_C.UnsupportedError, match="no pretrained weights"):
        detection.maskrcnn_resnet50_fpn(weights_backbone="IMAGENET1K_V1")
    assert detection.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.name == "COCO_V1"
    assert detection.KeypointRCNN_ResNet50_FPN_Weights.DEFAULT.name == "COCO_V1"
    with pytest.raises(ValueError, match="num_classes should not be None"):
        FasterRCNN(_TinyBackbone())
    with pytest.raises(AssertionError, match="positive height and width"):
        _tiny_faster_rcnn()([gg.rand(3, 32, 32)], [{"boxes": gg.tensor([[5.0, 5.0, 5.0, 9.0]]),
                                                     "labels": gg.tensor([1])}])


# --- against torchvision -------------------------------------------------------------------------

# every anchor and proposal in the sample, so the losses do not depend on the random draw
_ALL = dict(rpn_batch_size_per_image=100000, box_batch_size_per_image=100000, rpn_pre_nms_top_n_train=100,
            rpn_post_nms_top_n_train=60)
_CASES = {"fasterrcnn_mobilenet_v3_large_320_fpn": dict(num_classes=5),
          "maskrcnn_resnet50_fpn": dict(num_classes=3),
          "keypointrcnn_resnet50_fpn": dict(num_classes=2, num_keypoints=17),
          "retinanet_resnet50_fpn": dict(num_classes=4, score_thresh=0.001, detections_per_img=50),
          "fcos_resnet50_fpn": dict(num_classes=4, score_thresh=0.001, detections_per_img=50)}


def _torchvision_detection():
    """torchvision.models.detection, or a skip where torchvision is absent or its compiled ops do
    not load against the installed PyTorch (its import then raises RuntimeError)."""
    pytest.importorskip("torch")
    try:
        from torchvision.models import detection as tv_detection
        from torchvision.ops import nms
        import torch
        nms(torch.zeros(1, 4), torch.zeros(1), 0.5)
    except Exception as e:  # ImportError, or the RuntimeError of ops built for another PyTorch
        pytest.skip(f"torchvision with working ops is needed for the comparison: {type(e).__name__}: {e}")
    return tv_detection


def _pair(name, **kwargs):
    torch = pytest.importorskip("torch")
    tv_detection = _torchvision_detection()
    kwargs = dict(weights=None, weights_backbone=None, min_size=64, max_size=96, **kwargs)
    torch.manual_seed(0)
    theirs, ours = getattr(tv_detection, name)(**kwargs), getattr(detection, name)(**kwargs)
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in state.items()})
    return torch, theirs, ours


@pytest.mark.parametrize("name", list(_CASES))
def test_eval_detections_match_torchvision(name):
    torch, theirs, ours = _pair(name, **_CASES[name])
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        expected = theirs([torch.from_numpy(i) for i in _images()])
    with gg.no_grad():
        got = ours([gg.tensor(i) for i in _images()])
    for e, g in zip(expected, got):
        assert sorted(e) == sorted(g)
        # the first 30 detections: far below the score ties of a random network's tail
        n = min(30, len(e["scores"]))
        assert len(g["scores"]) >= n
        np.testing.assert_array_equal(g["labels"][:n].numpy(), e["labels"][:n].numpy())
        np.testing.assert_allclose(g["scores"][:n].numpy(), e["scores"][:n].numpy(), atol=1e-4)
        np.testing.assert_allclose(g["boxes"][:n].numpy(), e["boxes"][:n].numpy(), atol=0.2)
        if "keypoints" in e:
            np.testing.assert_allclose(g["keypoints"][:n].numpy(), e["keypoints"][:n].numpy(), atol=0.5)
        if "masks" in e:
            assert np.abs(g["masks"][:n].numpy() - e["masks"][:n].numpy()).mean() < 1e-3


@pytest.mark.parametrize("name", list(_CASES))
def test_training_losses_and_gradients_match_torchvision(name):
    torch, theirs, ours = _pair(name, **_CASES[name], **(_ALL if "rcnn" in name else {}))
    targets = _targets(_images(), keypoints=name.startswith("keypoint"))
    expected = theirs([torch.from_numpy(i) for i in _images()],
                      [{k: torch.from_numpy(v) for k, v in t.items()} for t in targets])
    got = ours([gg.tensor(i) for i in _images()], _gg_targets(targets))
    assert sorted(got) == sorted(expected)
    for key in expected:
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=2e-3, atol=1e-5, err_msg=key)
    sum(expected.values()).backward()
    sum(got.values()).backward()
    mine = dict(ours.named_parameters())
    for pname, p in theirs.named_parameters():
        # the R-CNN box and mask heads and the one-stage heads' output layers; the keypoint head's
        # targets are floored pixel indices, which proposals equal to 1e-3 can move by one pixel
        last = pname.startswith("head.") and any(k in pname for k in ("cls_logits", "bbox_reg", "bbox_ctrness"))
        if (pname.startswith("roi_heads") or last) and "keypoint" not in pname and p.grad is not None:
            scale = max(float(p.grad.abs().max()), 1e-3)
            np.testing.assert_allclose(mine[pname].grad.numpy() / scale, p.grad.numpy() / scale, atol=2e-2,
                                       err_msg=pname)
