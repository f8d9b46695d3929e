"""glassgrad.vision.ops: torchvision.ops' names.

- boxes: box_convert, box_area, box_iou, generalized/distance/complete_box_iou, nms, batched_nms,
  remove_small_boxes, clip_boxes_to_image, masks_to_boxes (boxes.py);
- losses: generalized/distance/complete_box_iou_loss, sigmoid_focal_loss (losses.py);
- regions: roi_pool / RoIPool (roi_pool.py), roi_align / RoIAlign (roi_align.py),
  MultiScaleRoIAlign (poolers.py), ps_roi_align / PSRoIAlign and ps_roi_pool / PSRoIPool (ps_roi.py);
- regularizers: stochastic_depth / StochasticDepth, drop_block2d/3d / DropBlock2d/3d;
- deformable convolution: deform_conv2d / DeformConv2d (deform_conv.py);
- pyramids: FeaturePyramidNetwork with its extra levels (feature_pyramid_network.py);
- layers: FrozenBatchNorm2d, Conv2dNormActivation, Conv3dNormActivation, MLP, Permute,
  SqueezeExcitation (misc.py; the conv/MLP blocks are those glassgrad.vision.models builds with)."""
from ..models._layers import StochasticDepth, stochastic_depth
from .boxes import (batched_nms, box_area, box_convert, box_iou, clip_boxes_to_image, complete_box_iou,
                    distance_box_iou, generalized_box_iou, masks_to_boxes, nms, remove_small_boxes)
from .deform_conv import DeformConv2d, deform_conv2d
from .feature_pyramid_network import FeaturePyramidNetwork
from .drop_block import DropBlock2d, DropBlock3d, drop_block2d, drop_block3d
from .losses import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss, sigmoid_focal_loss
from .poolers import MultiScaleRoIAlign
from .misc import MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, Permute, SqueezeExcitation
from .ps_roi import PSRoIAlign, PSRoIPool, ps_roi_align, ps_roi_pool
from .roi_align import RoIAlign, roi_align
from .roi_pool import RoIPool, roi_pool

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "DeformConv2d", "DropBlock2d", "DropBlock3d", "FeaturePyramidNetwork",
           "FrozenBatchNorm2d", "MLP",
           "MultiScaleRoIAlign", "PSRoIAlign", "PSRoIPool", "Permute", "RoIAlign", "RoIPool", "SqueezeExcitation",
           "StochasticDepth", "batched_nms", "box_area", "box_convert", "box_iou", "clip_boxes_to_image",
           "complete_box_iou", "complete_box_iou_loss", "deform_conv2d", "distance_box_iou", "distance_box_iou_loss", "drop_block2d",
           "drop_block3d", "generalized_box_iou", "generalized_box_iou_loss", "masks_to_boxes", "nms",
           "ps_roi_align", "ps_roi_pool", "remove_small_boxes", "roi_align", "roi_pool", "sigmoid_focal_loss",
           "stochastic_depth"]
