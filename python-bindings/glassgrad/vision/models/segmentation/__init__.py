"""torchvision.models.segmentation: FCN (fcn.py), DeepLabV3 (deeplabv3.py) and Lite R-ASPP
(lraspp.py) with torchvision's builders, arguments and submodule names, their weight enums
(whose use raises: nothing is bundled or downloaded) and the shared body (_utils.py)."""
from . import deeplabv3, fcn, lraspp
from .deeplabv3 import (DeepLabV3, DeepLabV3_MobileNet_V3_Large_Weights, DeepLabV3_ResNet50_Weights,
                        DeepLabV3_ResNet101_Weights, deeplabv3_mobilenet_v3_large, deeplabv3_resnet50,
                        deeplabv3_resnet101)
from .fcn import FCN, FCN_ResNet50_Weights, FCN_ResNet101_Weights, fcn_resnet50, fcn_resnet101
from .lraspp import LRASPP, LRASPP_MobileNet_V3_Large_Weights, lraspp_mobilenet_v3_large

__all__ = deeplabv3.__all__ + fcn.__all__ + lraspp.__all__
