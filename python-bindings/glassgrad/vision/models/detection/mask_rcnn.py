"""torchvision.models.detection.mask_rcnn (He et al. 2017): MaskRCNN, a FasterRCNN whose RoIHeads
also run a mask branch (MultiScaleRoIAlign to 14 x 14, MaskRCNNHeads: four 3x3 convolutions,
MaskRCNNPredictor: a 2x2 transposed convolution and a 1x1 convolution to one mask per class), and
the builders maskrcnn_resnet50_fpn(_v2), with torchvision's arguments and submodule names. In
training the loss dict adds loss_mask; in eval each detection dict adds "masks" [N, 1, H, W],
probabilities pasted into the original image. weights and weights_backbone must be None."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Optional

from .... import nn
from ...ops import MultiScaleRoIAlign
from ...ops import misc as misc_nn_ops
from .._weight_enums import enum_for
from ..resnet import resnet50
from ._utils import builder_arguments
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN, FastRCNNConvFCHead, RPNHead, _default_anchorgen

__all__ = ["MaskRCNN", "MaskRCNNHeads", "MaskRCNNPredictor", "MaskRCNN_ResNet50_FPN_Weights",
           "MaskRCNN_ResNet50_FPN_V2_Weights", "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]

MaskRCNN_ResNet50_FPN_Weights = enum_for("maskrcnn_resnet50_fpn")
MaskRCNN_ResNet50_FPN_V2_Weights = enum_for("maskrcnn_resnet50_fpn_v2")


class MaskRCNN(FasterRCNN):
    """MaskRCNN(backbone, num_classes=None, ..., mask_roi_pool=None, mask_head=None,
    mask_predictor=None, **FasterRCNN's arguments)."""

    def __init__(self, backbone: nn.Module, num_classes: Optional[int] = None, *args: Any,
                 mask_roi_pool: Optional[MultiScaleRoIAlign] = None, mask_head: Optional[nn.Module] = None,
                 mask_predictor: Optional[nn.Module] = None, **kwargs: Any) -> None:
        if not isinstance(mask_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(f"mask_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(mask_roi_pool)}")
        if num_classes is not None and mask_predictor is not None:
            raise ValueError("num_classes should be None when mask_predictor is specified")
        out_channels = backbone.out_channels
        if mask_roi_pool is None:
            mask_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2)
        if mask_head is None:
            mask_head = MaskRCNNHeads(out_channels, (256, 256, 256, 256), 1)
        if mask_predictor is None:
            mask_predictor = MaskRCNNPredictor(256, 256, num_classes)
        super().__init__(backbone, num_classes, *args, **kwargs)
        self.roi_heads.mask_roi_pool = mask_roi_pool
        self.roi_heads.mask_head = mask_head
        self.roi_heads.mask_predictor = mask_predictor


class MaskRCNNHeads(nn.Sequential):
    """MaskRCNNHeads(in_channels, layers, dilation, norm_layer=None): a 3x3 Conv2dNormActivation per
    entry of layers (its width)."""

    def __init__(self, in_channels: int, layers: Any, dilation: int,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        blocks = []
        next_feature = in_channels
        for layer_features in layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(next_feature, layer_features, kernel_size=3, stride=1,
                                                           padding=dilation, dilation=dilation, norm_layer=norm_layer))
            next_feature = layer_features
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)


class MaskRCNNPredictor(nn.Sequential):
    """MaskRCNNPredictor(in_channels, dim_reduced, num_classes): conv5_mask (2x2 transposed
    convolution, stride 2), relu, mask_fcn_logits (1x1 convolution to num_classes masks)."""

    def __init__(self, in_channels: int, dim_reduced: int, num_classes: int) -> None:
        super().__init__(OrderedDict([("conv5_mask", nn.ConvTranspose2d(in_channels, dim_reduced, 2, 2, 0)),
                                      ("relu", nn.ReLU(inplace=True)),
                                      ("mask_fcn_logits", nn.Conv2d(dim_reduced, num_classes, 1, 1, 0))]))
        for name, param in self.named_parameters():
            if "weight" in name:
                nn.init.kaiming_normal_(param, mode="fan_out", nonlinearity="relu")


def maskrcnn_resnet50_fpn(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                          weights_backbone: Any = None, trainable_backbone_layers: Optional[int] = None,
                          **kwargs: Any) -> MaskRCNN:
    """Mask R-CNN with a ResNet-50 FPN backbone (91 classes by default)."""
    num_classes = builder_arguments("maskrcnn_resnet50_fpn", weights, weights_backbone, num_classes, kwargs)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=None, progress=progress, norm_layer=nn.BatchNorm2d)
    return MaskRCNN(_resnet_fpn_extractor(backbone, trainable_backbone_layers), num_classes=num_classes, **kwargs)


def maskrcnn_resnet50_fpn_v2(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                             weights_backbone: Any = None, trainable_backbone_layers: Optional[int] = None,
                             **kwargs: Any) -> MaskRCNN:
    """Mask R-CNN v2: batch-normed FPN, two-conv RPN head, four-conv box head, batch-normed mask head."""
    num_classes = builder_arguments("maskrcnn_resnet50_fpn_v2", weights, weights_backbone, num_classes, kwargs)
    trainable_backbone_layers = _validate_trainable_layers(False, trainable_backbone_layers, 5, 3)
    backbone = _resnet_fpn_extractor(resnet50(weights=None, progress=progress), trainable_backbone_layers,
                                     norm_layer=nn.BatchNorm2d)
    rpn_anchor_generator = _default_anchorgen()
    rpn_head = RPNHead(backbone.out_channels, rpn_anchor_generator.num_anchors_per_location()[0], conv_depth=2)
    box_head = FastRCNNConvFCHead((backbone.out_channels, 7, 7), [256, 256, 256, 256], [1024], norm_layer=nn.BatchNorm2d)
    mask_head = MaskRCNNHeads(backbone.out_channels, [256, 256, 256, 256], 1, norm_layer=nn.BatchNorm2d)
    return MaskRCNN(backbone, num_classes=num_classes, rpn_anchor_generator=rpn_anchor_generator, rpn_head=rpn_head,
                    box_head=box_head, mask_head=mask_head, **kwargs)
