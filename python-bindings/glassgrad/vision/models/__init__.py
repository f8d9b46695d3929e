"""torchvision.models' architectures with torchvision's names (resnet.py, vgg.py, alexnet.py,
squeezenet.py, mobilenetv2.py, mobilenetv3.py, densenet.py,
efficientnet.py, shufflenetv2.py, mnasnet.py, googlenet.py, inception.py, regnet.py, convnext.py,
vision_transformer.py, swin_transformer.py, maxvit.py).
No pretrained weights are bundled or downloaded: build with weights=None and load a state_dict
from a file (_weights.py)."""
from . import alexnet as _alexnet, densenet as _densenet, mobilenetv2 as _mobilenetv2, resnet as _resnet
from . import efficientnet as _efficientnet, mobilenetv3 as _mobilenetv3, shufflenetv2 as _shufflenetv2
from . import mnasnet as _mnasnet, squeezenet as _squeezenet, vgg as _vgg
from . import googlenet as _googlenet, inception as _inception, regnet as _regnet, convnext as _convnext
from . import vision_transformer as _vision_transformer, swin_transformer as _swin_transformer
from . import maxvit as _maxvit
from .alexnet import AlexNet, alexnet
from .googlenet import GoogLeNet, GoogLeNetOutputs, googlenet
from .inception import Inception3, InceptionOutputs, inception_v3
from .regnet import (BlockParams, RegNet, regnet_x_1_6gf, regnet_x_3_2gf, regnet_x_8gf, regnet_x_16gf,
                     regnet_x_32gf, regnet_x_400mf, regnet_x_800mf, regnet_y_1_6gf, regnet_y_3_2gf, regnet_y_8gf,
                     regnet_y_16gf, regnet_y_32gf, regnet_y_128gf, regnet_y_400mf, regnet_y_800mf)
from .convnext import CNBlockConfig, ConvNeXt, LayerNorm2d, convnext_base, convnext_large, convnext_small, convnext_tiny
from .vision_transformer import ConvStemConfig, VisionTransformer, vit_b_16, vit_b_32, vit_h_14, vit_l_16, vit_l_32
from .swin_transformer import SwinTransformer, swin_b, swin_s, swin_t, swin_v2_b, swin_v2_s, swin_v2_t
from .maxvit import MaxVit, maxvit_t
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .resnet import (BasicBlock, Bottleneck, ResNet, resnet18, resnet34, resnet50, resnet101,
                     resnet152, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2,
                     wide_resnet101_2)
from .mnasnet import MNASNet, mnasnet0_5, mnasnet0_75, mnasnet1_0, mnasnet1_3
from .mobilenetv2 import InvertedResidual, MobileNetV2, mobilenet_v2
from .efficientnet import (EfficientNet, MBConvConfig, efficientnet_b0, efficientnet_b1, efficientnet_b2,
                           efficientnet_b3, efficientnet_b4, efficientnet_b5, efficientnet_b6, efficientnet_b7,
                           FusedMBConvConfig, efficientnet_v2_s, efficientnet_v2_m, efficientnet_v2_l)
from .mobilenetv3 import InvertedResidualConfig, MobileNetV3, mobilenet_v3_large, mobilenet_v3_small
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_x0_5, shufflenet_v2_x1_0, shufflenet_v2_x1_5,
                           shufflenet_v2_x2_0)
from .squeezenet import Fire, SqueezeNet, squeezenet1_0, squeezenet1_1
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn

# The files whose builders list_models / get_model know (_registry.py).
_MODEL_FILES = (_resnet, _vgg, _alexnet, _squeezenet, _mobilenetv2, _densenet, _mobilenetv3, _efficientnet,
                _shufflenetv2, _mnasnet, _googlenet, _inception, _regnet, _convnext, _vision_transformer,
                _swin_transformer, _maxvit)
from . import detection, feature_extraction, segmentation
from .segmentation import deeplabv3 as _deeplabv3, fcn as _fcn, lraspp as _lraspp

# The task models' files (torchvision.models.<task>): their builders are in the registry, their
# names stay in their package.
_TASK_FILES = (_fcn, _deeplabv3, _lraspp)
from ._registry import get_model, get_model_builder, get_model_weights, get_weight, list_models
from . import _weight_enums
from ._weight_enums import WeightsEnum

# torchvision's weight enums (ResNet18_Weights, ...): here and in their model's file, as torchvision
# has them; using one raises (_weight_enums.py).
_ENUMS = _weight_enums.build()
_TOP_ENUMS = {b: e for b, e in _ENUMS.items() if any(b in m.__all__ for m in _MODEL_FILES)}
for _builder, _enum in _TOP_ENUMS.items():
    globals()[_enum.__name__] = _enum
    _module = next(m for m in _MODEL_FILES if _builder in m.__all__)
    setattr(_module, _enum.__name__, _enum)
del _builder, _enum, _module

__all__ = (_resnet.__all__ + _vgg.__all__ + _alexnet.__all__ + _squeezenet.__all__ + _mobilenetv2.__all__
           + _densenet.__all__ + _mobilenetv3.__all__ + _efficientnet.__all__
           + _shufflenetv2.__all__ + _mnasnet.__all__ + _googlenet.__all__ + _inception.__all__
           + _regnet.__all__ + _convnext.__all__ + _vision_transformer.__all__
           + _swin_transformer.__all__ + _maxvit.__all__
           + ["list_models", "get_model", "get_model_builder", "get_model_weights", "get_weight", "WeightsEnum"]
           + sorted(e.__name__ for e in _TOP_ENUMS.values()) + ["detection", "feature_extraction", "segmentation"])
