"""torchvision.models.detection.keypoint_rcnn: KeypointRCNN, a FasterRCNN whose RoIHeads also run
a keypoint branch (MultiScaleRoIAlign to 14 x 14, KeypointRCNNHeads: eight 3x3 convolutions of
512, KeypointRCNNPredictor: a 4x4 transposed convolution and a 2x bilinear upsampling to one
heatmap per keypoint), and keypointrcnn_resnet50_fpn (2 classes, 17 keypoints by default), with
torchvision's arguments and submodule names. Targets carry "keypoints" [N, K, 3] (x, y,
visibility); eval adds "keypoints" and "keypoints_scores". weights and weights_backbone must be None."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)
from __future__ import annotations

from typing import Any, Optional

from .... import nn
from ....nn import functional as F
from ...ops import MultiScaleRoIAlign
from .._weight_enums import enum_for
from ..resnet import resnet50
from ._utils import builder_arguments
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN

__all__ = ["KeypointRCNN", "KeypointRCNNHeads", "KeypointRCNNPredictor", "KeypointRCNN_ResNet50_FPN_Weights",
           "keypointrcnn_resnet50_fpn"]

KeypointRCNN_ResNet50_FPN_Weights = enum_for("keypointrcnn_resnet50_fpn")


class KeypointRCNN(FasterRCNN):
    """KeypointRCNN(backbone, num_classes=None, min_size=None (640 to 800 by 32), ...,
    keypoint_roi_pool=None, keypoint_head=None, keypoint_predictor=None, num_keypoints=None (17))."""

    def __init__(self, backbone: nn.Module, num_classes: Optional[int] = None, min_size: Any = None, *args: Any,
                 keypoint_roi_pool: Optional[MultiScaleRoIAlign] = None, keypoint_head: Optional[nn.Module] = None,
                 keypoint_predictor: Optional[nn.Module] = None, num_keypoints: Optional[int] = None,
                 **kwargs: Any) -> None:
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError("keypoint_roi_pool should be of type MultiScaleRoIAlign or None instead of "
                            f"{type(keypoint_roi_pool)}")
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError("num_keypoints should be None when keypoint_predictor is specified")
        else:
            num_keypoints = 17
        out_channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2)
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(out_channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(backbone, num_classes, min_size, *args, **kwargs)
        self.roi_heads.keypoint_roi_pool = keypoint_roi_pool
        self.roi_heads.keypoint_head = keypoint_head
        self.roi_heads.keypoint_predictor = keypoint_predictor


class KeypointRCNNHeads(nn.Sequential):
    """KeypointRCNNHeads(in_channels, layers): a 3x3 convolution and a ReLU per entry of layers."""

    def __init__(self, in_channels: int, layers: Any) -> None:
        d: list = []
        next_feature = in_channels
        for out_channels in layers:
            d.append(nn.Conv2d(next_feature, out_channels, 3, stride=1, padding=1))
            d.append(nn.ReLU(inplace=True))
            next_feature = out_channels
        super().__init__(*d)
        for m in self.children():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)


class KeypointRCNNPredictor(nn.Module):
    """KeypointRCNNPredictor(in_channels, num_keypoints): kps_score_lowres (4x4 transposed
    convolution, stride 2) then a 2x bilinear upsampling."""

    def __init__(self, in_channels: int, num_keypoints: int) -> None:
        super().__init__()
        deconv_kernel = 4
        self.kps_score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, deconv_kernel, stride=2,
                                                   padding=deconv_kernel // 2 - 1)
        nn.init.kaiming_normal_(self.kps_score_lowres.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(self.kps_score_lowres.bias, 0)
        self.up_scale = 2
        self.out_channels = num_keypoints

    def forward(self, x: Any) -> Any:
        x = self.kps_score_lowres(x)
        return F.interpolate(x, scale_factor=float(self.up_scale), mode="bilinear", align_corners=False,
                             recompute_scale_factor=False)


def keypointrcnn_resnet50_fpn(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                              num_keypoints: Optional[int] = None, weights_backbone: Any = None,
                              trainable_backbone_layers: Optional[int] = None, **kwargs: Any) -> KeypointRCNN:
    """Keypoint R-CNN with a ResNet-50 FPN backbone (person and background, 17 COCO keypoints)."""
    num_classes = builder_arguments("keypointrcnn_resnet50_fpn", weights, weights_backbone, num_classes, kwargs,
                                    default_classes=2)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=None, progress=progress, norm_layer=nn.BatchNorm2d)
    return KeypointRCNN(_resnet_fpn_extractor(backbone, trainable_backbone_layers), num_classes,
                        num_keypoints=17 if num_keypoints is None else num_keypoints, **kwargs)
