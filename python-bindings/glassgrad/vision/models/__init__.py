"""torchvision.models' architectures with torchvision's names (resnet.py, vgg.py, alexnet.py,
squeezenet.py, mobilenetv2.py, densenet.py).
No pretrained weights are bundled or downloaded: build with weights=None and load a state_dict
from a file (_weights.py)."""
from . import alexnet as _alexnet, densenet as _densenet, mobilenetv2 as _mobilenetv2, resnet as _resnet
from . import squeezenet as _squeezenet, vgg as _vgg
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .resnet import (BasicBlock, Bottleneck, ResNet, resnet18, resnet34, resnet50, resnet101,
                     resnet152, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .mobilenetv2 import InvertedResidual, MobileNetV2, mobilenet_v2
from .squeezenet import Fire, SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn

__all__ = _resnet.__all__ + _vgg.__all__ + _alexnet.__all__ + _squeezenet.__all__ + _mobilenetv2.__all__ + _densenet.__all__
