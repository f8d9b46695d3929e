"""torchvision.models' architectures with torchvision's names (resnet.py). No pretrained weights
are bundled or downloaded: build with weights=None and load a state_dict from a file."""
from .resnet import (BasicBlock, Bottleneck, ResNet, resnet18, resnet34, resnet50, resnet101,
                     resnet152, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .resnet import __all__
