"""torchvision.models.detection's building blocks: backbone_utils.py (BackboneWithFPN,
resnet_fpn_backbone, mobilenet_backbone). The detectors themselves (Faster/Mask R-CNN, RetinaNet,
SSD, FCOS) are not there (docs/porting.md)."""
from . import backbone_utils

__all__: list = []
