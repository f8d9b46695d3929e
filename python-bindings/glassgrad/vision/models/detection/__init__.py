"""torchvision.models.detection's building blocks: backbone_utils.py (BackboneWithFPN,
resnet_fpn_backbone, mobilenet_backbone), anchor_utils.py (AnchorGenerator) and image_list.py
(ImageList). The detectors themselves (Faster/Mask R-CNN, RetinaNet, SSD, FCOS) are not there
(docs/porting.md)."""
from . import anchor_utils, backbone_utils, image_list

__all__: list = []
