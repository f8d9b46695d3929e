"""torchvision's weight enums under their names (ResNet18_Weights, VGG16_Weights, ...), one per
builder, with torchvision's members (IMAGENET1K_V1, IMAGENET1K_V2, the SWAG ones) and DEFAULT
among them, so scripts that import them or pass one (`resnet18(weights=ResNet18_Weights.DEFAULT)`)
reach glassgrad's refusal at the line that asks for the weights, not an ImportError at the top.
No weights are bundled or downloaded: a builder given a member raises (_weights.refuse_pretrained),
and a member's get_state_dict() and transforms() raise alike, naming how to load a saved file."""
from __future__ import annotations

import enum
import functools
from typing import Any, Dict, List, Tuple, Type

from ... import _C

# builder -> (enum name, members in torchvision 0.29's order). DEFAULT is the newest IMAGENET1K_Vn,
# else the first (vit_h_14's SWAG_E2E_V1), as torchvision's.
_V1 = ("IMAGENET1K_V1",)
_V2 = ("IMAGENET1K_V1", "IMAGENET1K_V2")
_SWAG = ("IMAGENET1K_SWAG_E2E_V1", "IMAGENET1K_SWAG_LINEAR_V1")
ENUMS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "alexnet": ("AlexNet_Weights", _V1),
    "googlenet": ("GoogLeNet_Weights", _V1),
    "inception_v3": ("Inception_V3_Weights", _V1),
    "maxvit_t": ("MaxVit_T_Weights", _V1),
    "mobilenet_v2": ("MobileNet_V2_Weights", _V2),
    "mobilenet_v3_large": ("MobileNet_V3_Large_Weights", _V2),
    "mobilenet_v3_small": ("MobileNet_V3_Small_Weights", _V1),
    "resnext50_32x4d": ("ResNeXt50_32X4D_Weights", _V2),
    "resnext101_32x8d": ("ResNeXt101_32X8D_Weights", _V2),
    "resnext101_64x4d": ("ResNeXt101_64X4D_Weights", _V1),
    "wide_resnet50_2": ("Wide_ResNet50_2_Weights", _V2),
    "wide_resnet101_2": ("Wide_ResNet101_2_Weights", _V2),
    "vgg16": ("VGG16_Weights", _V1 + ("IMAGENET1K_FEATURES",)),
    "efficientnet_b1": ("EfficientNet_B1_Weights", _V2),
    "vit_b_16": ("ViT_B_16_Weights", _V1 + _SWAG),
    "vit_l_16": ("ViT_L_16_Weights", _V1 + _SWAG),
    "vit_h_14": ("ViT_H_14_Weights", _SWAG),
    "regnet_y_16gf": ("RegNet_Y_16GF_Weights", _V2 + _SWAG),
    "regnet_y_32gf": ("RegNet_Y_32GF_Weights", _V2 + _SWAG),
    "regnet_y_128gf": ("RegNet_Y_128GF_Weights", _SWAG),
}
for n in ("18", "34"):
    ENUMS[f"resnet{n}"] = (f"ResNet{n}_Weights", _V1)
for n in ("50", "101", "152"):
    ENUMS[f"resnet{n}"] = (f"ResNet{n}_Weights", _V2)
for n in ("11", "13", "16", "19"):
    ENUMS.setdefault(f"vgg{n}", (f"VGG{n}_Weights", _V1))
    ENUMS[f"vgg{n}_bn"] = (f"VGG{n}_BN_Weights", _V1)
for n in ("tiny", "small", "base", "large"):
    ENUMS[f"convnext_{n}"] = (f"ConvNeXt_{n.capitalize()}_Weights", _V1)
for n in ("121", "161", "169", "201"):
    ENUMS[f"densenet{n}"] = (f"DenseNet{n}_Weights", _V1)
for n in "0234567":
    ENUMS[f"efficientnet_b{n}"] = (f"EfficientNet_B{n}_Weights", _V1)
for n in "sml":
    ENUMS[f"efficientnet_v2_{n}"] = (f"EfficientNet_V2_{n.upper()}_Weights", _V1)
for n in ("0_5", "0_75", "1_0", "1_3"):
    ENUMS[f"mnasnet{n}"] = (f"MNASNet{n}_Weights", _V1)
for n in ("x0_5", "x1_0", "x1_5", "x2_0"):
    ENUMS[f"shufflenet_v2_{n}"] = (f"ShuffleNet_V2_{n.upper()}_Weights", _V1)
for n in ("1_0", "1_1"):
    ENUMS[f"squeezenet{n}"] = (f"SqueezeNet{n}_Weights", _V1)
for n in "tsb":
    ENUMS[f"swin_{n}"] = (f"Swin_{n.upper()}_Weights", _V1)
    ENUMS[f"swin_v2_{n}"] = (f"Swin_V2_{n.upper()}_Weights", _V1)
for n in ("b_32", "l_32"):
    ENUMS[f"vit_{n}"] = (f"ViT_{n.upper()}_Weights", _V1)
for n in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf"):
    ENUMS[f"regnet_x_{n}"] = (f"RegNet_X_{n.upper()}_Weights", _V2)
for n in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf"):
    ENUMS[f"regnet_y_{n}"] = (f"RegNet_Y_{n.upper()}_Weights", _V2)
# models.segmentation's, trained on COCO's images of the Pascal VOC classes
_VOC = ("COCO_WITH_VOC_LABELS_V1",)
ENUMS.update({"fcn_resnet50": ("FCN_ResNet50_Weights", _VOC), "fcn_resnet101": ("FCN_ResNet101_Weights", _VOC),
              "deeplabv3_resnet50": ("DeepLabV3_ResNet50_Weights", _VOC),
              "deeplabv3_resnet101": ("DeepLabV3_ResNet101_Weights", _VOC),
              "deeplabv3_mobilenet_v3_large": ("DeepLabV3_MobileNet_V3_Large_Weights", _VOC),
              "lraspp_mobilenet_v3_large": ("LRASPP_MobileNet_V3_Large_Weights", _VOC)})


def no_weights(what: str) -> _C.UnsupportedError:
    return _C.UnsupportedError(
        f"{what}: glassgrad bundles no pretrained weights and downloads nothing\n  fix: build with weights=None "
        f"and load a state_dict saved from torchvision: model.load_state_dict(glassgrad.load('model.pth'))")


class WeightsEnum(enum.Enum):
    """torchvision.models.WeightsEnum: members print as `ResNet18_Weights.IMAGENET1K_V1`; what
    would need the weights' files (get_state_dict, transforms) raises."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    __str__ = __repr__

    @property
    def url(self) -> str:
        raise no_weights(f"{self!r}.url")

    @property
    def meta(self) -> Dict[str, Any]:
        raise no_weights(f"{self!r}.meta")

    def get_state_dict(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        raise no_weights(f"{self!r}.get_state_dict()")

    def transforms(self, *args: Any, **kwargs: Any) -> Any:
        raise no_weights(f"{self!r}.transforms()")

    @classmethod
    def verify(cls, obj: Any) -> Any:
        """None stays None; a member, or its name as a string ("IMAGENET1K_V1"), gives the member."""
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            name = obj.replace(cls.__name__ + ".", "")
            if name in cls.__members__:
                return cls.__members__[name]
        raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received {obj!r}\n"
                        f"  fix: one of {', '.join(cls.__members__)}, or weights=None")


@functools.lru_cache(maxsize=None)
def build() -> Dict[str, Type[WeightsEnum]]:
    """builder name -> its enum class (members' values are their names; DEFAULT an alias). Built
    once: a model file and the registry hold the same classes."""
    out: Dict[str, Type[WeightsEnum]] = {}
    for builder, (name, members) in ENUMS.items():
        versions = [m for m in members if m.startswith("IMAGENET1K_V")]
        pairs: List[Tuple[str, str]] = [(m, m) for m in members] + [("DEFAULT", max(versions or members[:1]))]
        # the functional Enum API (mypy types its result as a member, not a class)
        out[builder] = WeightsEnum(name, pairs, module=__name__)  # type: ignore[call-overload, assignment, call-arg]
    return out


def enum_for(builder: str) -> Type[WeightsEnum]:
    """The enum class of one builder, for the model file that defines the builder."""
    return build()[builder]
