"""torchvision.models.detection: the detectors Faster R-CNN (faster_rcnn.py), Mask R-CNN
(mask_rcnn.py), Keypoint R-CNN (keypoint_rcnn.py), RetinaNet (retinanet.py) and FCOS (fcos.py), with the pieces they
are built of, backbone_utils.py (BackboneWithFPN, resnet_fpn_backbone, mobilenet_backbone),
anchor_utils.py (AnchorGenerator), image_list.py (ImageList), transform.py
(GeneralizedRCNNTransform), rpn.py (RPNHead, RegionProposalNetwork), roi_heads.py (RoIHeads) and
_utils.py (BoxCoder, Matcher, the sampler). No weights are bundled: builders take weights=None
(docs/porting.md)."""
from . import (_utils, anchor_utils, backbone_utils, faster_rcnn, fcos, generalized_rcnn, image_list, keypoint_rcnn,
               mask_rcnn, retinanet, roi_heads, rpn, transform)
from .fcos import FCOS, FCOS_ResNet50_FPN_Weights, fcos_resnet50_fpn
from .retinanet import (RetinaNet, RetinaNet_ResNet50_FPN_V2_Weights, RetinaNet_ResNet50_FPN_Weights,
                        retinanet_resnet50_fpn, retinanet_resnet50_fpn_v2)
from .keypoint_rcnn import KeypointRCNN, KeypointRCNN_ResNet50_FPN_Weights, keypointrcnn_resnet50_fpn
from .mask_rcnn import (MaskRCNN, MaskRCNN_ResNet50_FPN_V2_Weights, MaskRCNN_ResNet50_FPN_Weights, maskrcnn_resnet50_fpn,
                        maskrcnn_resnet50_fpn_v2)
from .faster_rcnn import (FasterRCNN, FasterRCNN_MobileNet_V3_Large_320_FPN_Weights,
                          FasterRCNN_MobileNet_V3_Large_FPN_Weights, FasterRCNN_ResNet50_FPN_V2_Weights,
                          FasterRCNN_ResNet50_FPN_Weights, fasterrcnn_mobilenet_v3_large_320_fpn,
                          fasterrcnn_mobilenet_v3_large_fpn, fasterrcnn_resnet50_fpn, fasterrcnn_resnet50_fpn_v2)

__all__ = ["FasterRCNN", "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights", "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
           "FasterRCNN_ResNet50_FPN_V2_Weights", "FasterRCNN_ResNet50_FPN_Weights", "fasterrcnn_mobilenet_v3_large_320_fpn",
           "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
           "KeypointRCNN", "KeypointRCNN_ResNet50_FPN_Weights", "keypointrcnn_resnet50_fpn", "MaskRCNN",
           "MaskRCNN_ResNet50_FPN_V2_Weights", "MaskRCNN_ResNet50_FPN_Weights", "maskrcnn_resnet50_fpn",
           "maskrcnn_resnet50_fpn_v2", "FCOS", "FCOS_ResNet50_FPN_Weights", "fcos_resnet50_fpn", "RetinaNet",
           "RetinaNet_ResNet50_FPN_V2_Weights", "RetinaNet_ResNet50_FPN_Weights", "retinanet_resnet50_fpn",
           "retinanet_resnet50_fpn_v2"]
