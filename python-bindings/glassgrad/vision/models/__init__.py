"""torchvision.models' architectures with torchvision's names (resnet.py, vgg.py, alexnet.py).
No pretrained weights are bundled or downloaded: build with weights=None and load a state_dict
from a file (_weights.py)."""
from . import alexnet as _alexnet, resnet as _resnet, vgg as _vgg
from .alexnet import AlexNet, alexnet
from .resnet import (BasicBlock, Bottleneck, ResNet, resnet18, resnet34, resnet50, resnet101,
                     resnet152, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn

__all__ = _resnet.__all__ + _vgg.__all__ + _alexnet.__all__
