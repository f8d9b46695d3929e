"""torchvision.models.detection.faster_rcnn (Ren et al. 2015): FasterRCNN (a GeneralizedRCNN of a
backbone with out_channels, an RPN and RoIHeads), TwoMLPHead, FastRCNNConvFCHead,
FastRCNNPredictor (the layer the finetuning tutorial replaces) and the builders
fasterrcnn_resnet50_fpn(_v2) and fasterrcnn_mobilenet_v3_large(_320)_fpn, with torchvision's
arguments, defaults and submodule names, so state_dicts load both ways. No weights are bundled or
downloaded: weights and weights_backbone must be None (their default here), which builds the
backbone with BatchNorm2d and every layer trainable, as torchvision does without weights."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)

from __future__ import annotations

from typing import Any, Callable, Optional

from .... import nn
from ....nn import functional as F
from ...ops import MultiScaleRoIAlign
from ...ops import misc as misc_nn_ops
from .._weight_enums import enum_for
from ..mobilenetv3 import mobilenet_v3_large
from ..resnet import resnet50
from ._utils import _assert, builder_arguments
from .anchor_utils import AnchorGenerator
from .backbone_utils import _mobilenet_extractor, _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform

__all__ = [
    "FasterRCNN",
    "FastRCNNPredictor",
    "TwoMLPHead",
    "FastRCNNConvFCHead",
    "FasterRCNN_ResNet50_FPN_Weights",
    "FasterRCNN_ResNet50_FPN_V2_Weights",
    "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
    "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights",
    "fasterrcnn_resnet50_fpn",
    "fasterrcnn_resnet50_fpn_v2",
    "fasterrcnn_mobilenet_v3_large_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
]


def _default_anchorgen():
    anchor_sizes = ((32,), (64,), (128,), (256,), (512,))
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return AnchorGenerator(anchor_sizes, aspect_ratios)


class FasterRCNN(GeneralizedRCNN):
    def __init__(
        self,
        backbone,
        num_classes=None,
        min_size=800,
        max_size=1333,
        image_mean=None,
        image_std=None,
        rpn_anchor_generator=None,
        rpn_head=None,
        rpn_pre_nms_top_n_train=2000,
        rpn_pre_nms_top_n_test=1000,
        rpn_post_nms_top_n_train=2000,
        rpn_post_nms_top_n_test=1000,
        rpn_nms_thresh=0.7,
        rpn_fg_iou_thresh=0.7,
        rpn_bg_iou_thresh=0.3,
        rpn_batch_size_per_image=256,
        rpn_positive_fraction=0.5,
        rpn_score_thresh=0.0,
        box_roi_pool=None,
        box_head=None,
        box_predictor=None,
        box_score_thresh=0.05,
        box_nms_thresh=0.5,
        box_detections_per_img=100,
        box_fg_iou_thresh=0.5,
        box_bg_iou_thresh=0.5,
        box_batch_size_per_image=512,
        box_positive_fraction=0.25,
        bbox_reg_weights=None,
        **kwargs,
    ):
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels specifying the number of output channels (assumed to be the same for all the levels)"
            )
        if not isinstance(rpn_anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                f"rpn_anchor_generator should be of type AnchorGenerator or None instead of {type(rpn_anchor_generator)}"
            )
        if not isinstance(box_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                f"box_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(box_roi_pool)}"
            )
        if num_classes is not None:
            if box_predictor is not None:
                raise ValueError("num_classes should be None when box_predictor is specified")
        elif box_predictor is None:
            raise ValueError("num_classes should not be None when box_predictor is not specified")
        out_channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(out_channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn_pre_nms_top_n = dict(training=rpn_pre_nms_top_n_train, testing=rpn_pre_nms_top_n_test)
        rpn_post_nms_top_n = dict(training=rpn_post_nms_top_n_train, testing=rpn_post_nms_top_n_test)
        rpn = RegionProposalNetwork(
            rpn_anchor_generator,
            rpn_head,
            rpn_fg_iou_thresh,
            rpn_bg_iou_thresh,
            rpn_batch_size_per_image,
            rpn_positive_fraction,
            rpn_pre_nms_top_n,
            rpn_post_nms_top_n,
            rpn_nms_thresh,
            score_thresh=rpn_score_thresh,
        )
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7, sampling_ratio=2)
        if box_head is None:
            resolution = box_roi_pool.output_size[0]
            representation_size = 1024
            box_head = TwoMLPHead(out_channels * resolution**2, representation_size)
        if box_predictor is None:
            representation_size = 1024
            box_predictor = FastRCNNPredictor(representation_size, num_classes)
        roi_heads = RoIHeads(
            box_roi_pool,
            box_head,
            box_predictor,
            box_fg_iou_thresh,
            box_bg_iou_thresh,
            box_batch_size_per_image,
            box_positive_fraction,
            bbox_reg_weights,
            box_score_thresh,
            box_nms_thresh,
            box_detections_per_img,
        )
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


class TwoMLPHead(nn.Module):
    def __init__(self, in_channels, representation_size):
        super().__init__()
        self.fc6 = nn.Linear(in_channels, representation_size)
        self.fc7 = nn.Linear(representation_size, representation_size)

    def forward(self, x):
        x = x.flatten(start_dim=1)
        x = F.relu(self.fc6(x))
        x = F.relu(self.fc7(x))
        return x


class FastRCNNConvFCHead(nn.Sequential):
    def __init__(
        self,
        input_size: tuple[int, int, int],
        conv_layers: list[int],
        fc_layers: list[int],
        norm_layer: Optional[Callable[..., nn.Module]] = None,
    ):
        in_channels, in_height, in_width = input_size
        blocks = []
        previous_channels = in_channels
        for current_channels in conv_layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(previous_channels, current_channels, norm_layer=norm_layer))
            previous_channels = current_channels
        blocks.append(nn.Flatten())
        previous_channels = previous_channels * in_height * in_width
        for current_channels in fc_layers:
            blocks.append(nn.Linear(previous_channels, current_channels))
            blocks.append(nn.ReLU(inplace=True))
            previous_channels = current_channels
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)


class FastRCNNPredictor(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)

    def forward(self, x):
        if x.dim() == 4:
            _assert(
                list(x.shape[2:]) == [1, 1],
                f"x has the wrong shape, expecting the last two dimensions to be [1,1] instead of {list(x.shape[2:])}",
            )
        x = x.flatten(start_dim=1)
        scores = self.cls_score(x)
        bbox_deltas = self.bbox_pred(x)
        return (scores, bbox_deltas)


FasterRCNN_ResNet50_FPN_Weights = enum_for("fasterrcnn_resnet50_fpn")
FasterRCNN_ResNet50_FPN_V2_Weights = enum_for("fasterrcnn_resnet50_fpn_v2")
FasterRCNN_MobileNet_V3_Large_FPN_Weights = enum_for("fasterrcnn_mobilenet_v3_large_fpn")
FasterRCNN_MobileNet_V3_Large_320_FPN_Weights = enum_for("fasterrcnn_mobilenet_v3_large_320_fpn")


def fasterrcnn_resnet50_fpn(
    *,
    weights: Any = None,
    progress: bool = True,
    num_classes: Optional[int] = None,
    weights_backbone: Any = None,
    trainable_backbone_layers: Optional[int] = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a ResNet-50 FPN backbone (91 classes by default, COCO's)."""
    num_classes = builder_arguments("fasterrcnn_resnet50_fpn", weights, weights_backbone, num_classes, kwargs)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=None, progress=progress, norm_layer=nn.BatchNorm2d)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    return FasterRCNN(backbone, num_classes=num_classes, **kwargs)


def fasterrcnn_resnet50_fpn_v2(
    *,
    weights: Any = None,
    progress: bool = True,
    num_classes: Optional[int] = None,
    weights_backbone: Any = None,
    trainable_backbone_layers: Optional[int] = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN v2 (Li et al. 2021): batch-normed FPN, a two-conv RPN head and a four-conv box head."""
    num_classes = builder_arguments("fasterrcnn_resnet50_fpn_v2", weights, weights_backbone, num_classes, kwargs)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=None, progress=progress)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers, norm_layer=nn.BatchNorm2d)
    rpn_anchor_generator = _default_anchorgen()
    rpn_head = RPNHead(backbone.out_channels, rpn_anchor_generator.num_anchors_per_location()[0], conv_depth=2)
    box_head = FastRCNNConvFCHead(
        (backbone.out_channels, 7, 7), [256, 256, 256, 256], [1024], norm_layer=nn.BatchNorm2d
    )
    return FasterRCNN(
        backbone,
        num_classes=num_classes,
        rpn_anchor_generator=rpn_anchor_generator,
        rpn_head=rpn_head,
        box_head=box_head,
        **kwargs,
    )


def _fasterrcnn_mobilenet_v3_large_fpn(
    name: str,
    weights: Any,
    progress: bool,
    num_classes: Optional[int],
    weights_backbone: Any,
    trainable_backbone_layers: Optional[int],
    **kwargs: Any,
) -> FasterRCNN:
    num_classes = builder_arguments(name, weights, weights_backbone, num_classes, kwargs)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 6, 3)
    backbone = mobilenet_v3_large(weights=None, progress=progress, norm_layer=nn.BatchNorm2d)
    backbone = _mobilenet_extractor(backbone, True, trainable_backbone_layers)
    anchor_sizes = ((32, 64, 128, 256, 512),) * 3
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    return FasterRCNN(
        backbone, num_classes, rpn_anchor_generator=AnchorGenerator(anchor_sizes, aspect_ratios), **kwargs
    )


def fasterrcnn_mobilenet_v3_large_320_fpn(
    *,
    weights: Any = None,
    progress: bool = True,
    num_classes: Optional[int] = None,
    weights_backbone: Any = None,
    trainable_backbone_layers: Optional[int] = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large FPN backbone tuned for 320-pixel images."""
    defaults = {
        "min_size": 320,
        "max_size": 640,
        "rpn_pre_nms_top_n_test": 150,
        "rpn_post_nms_top_n_test": 150,
        "rpn_score_thresh": 0.05,
    }
    return _fasterrcnn_mobilenet_v3_large_fpn(
        "fasterrcnn_mobilenet_v3_large_320_fpn",
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        **{**defaults, **kwargs},
    )


def fasterrcnn_mobilenet_v3_large_fpn(
    *,
    weights: Any = None,
    progress: bool = True,
    num_classes: Optional[int] = None,
    weights_backbone: Any = None,
    trainable_backbone_layers: Optional[int] = None,
    **kwargs: Any,
) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large FPN backbone."""
    defaults = {"rpn_score_thresh": 0.05}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        "fasterrcnn_mobilenet_v3_large_fpn",
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        **{**defaults, **kwargs},
    )
