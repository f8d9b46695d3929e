"""glassgrad.vision.models' registry functions (list_models, get_model, get_model_builder,
get_model_weights, get_weight), checked without torch; test_vision_models_torchvision.py compares
the lists with torchvision's."""
import pytest

import glassgrad as gg
from glassgrad.vision import models

# torchvision 0.29's classification models (torchvision.models.list_models(module=torchvision.models)).
FAMILIES = {"alexnet": 1, "convnext_*": 4, "densenet*": 4, "efficientnet_b*": 8, "efficientnet_v2_*": 3,
            "googlenet": 1, "inception_v3": 1, "maxvit_t": 1, "mnasnet*": 4, "mobilenet_v2": 1, "mobilenet_v3_*": 2,
            "regnet_x_*": 7, "regnet_y_*": 8, "resnet*": 5, "resnext*": 3, "shufflenet_v2_*": 4, "squeezenet*": 2,
            "swin_[tsb]": 3, "swin_v2_*": 3, "vgg*": 8, "vit_*": 5, "wide_resnet*": 2}


def test_list_models_names_every_builder_with_filters():
    names = models.list_models(models)
    assert len(names) == 80 == sum(FAMILIES.values()) and names == sorted(names)
    # without a module: the task models' builders too (segmentation's six)
    assert models.list_models() == sorted(names + models.list_models(models.segmentation))
    for pattern, n in FAMILIES.items():
        assert len(models.list_models(include=pattern)) == n, pattern
    assert models.list_models(include=["vit*", "swin_v2*"], exclude="*_l_*") == [
        "swin_v2_b", "swin_v2_s", "swin_v2_t", "vit_b_16", "vit_b_32", "vit_h_14"]
    assert models.list_models(module=gg.nn) == []
    # The ImageNet example's list of architectures: the lowercase callables of the package.
    archs = sorted(n for n in models.__dict__ if n.islower() and not n.startswith("__") and callable(models.__dict__[n]))
    assert set(archs) == set(names) | {"list_models", "get_model", "get_model_builder", "get_model_weights",
                                       "get_weight"}


def test_get_model_and_builder():
    model = models.get_model("RegNet_X_400MF", weights=None, num_classes=7)
    assert isinstance(model, models.RegNet) and model.fc.out_features == 7
    assert models.get_model_builder("swin_v2_t") is models.swin_v2_t
    with pytest.raises(ValueError, match="(?s)Unknown model resnet19.*resnet18"):
        models.get_model("resnet19")


def test_weight_lookups_give_torchvisions_enums_whose_use_says_how_to_load_a_file():
    assert models.get_model_weights("vit_b_16") is models.ViT_B_16_Weights
    assert models.get_model_weights(models.resnet50) is models.ResNet50_Weights
    weight = models.get_weight("ResNet50_Weights.IMAGENET1K_V2")
    assert weight is models.ResNet50_Weights.DEFAULT and repr(weight) == "ResNet50_Weights.IMAGENET1K_V2"
    with pytest.raises(gg.GlassgradError, match="(?s)get_state_dict.*downloads nothing.*weights=None"):
        weight.get_state_dict(progress=True)
    with pytest.raises(gg.GlassgradError, match="(?s)IMAGENET1K_V2.transforms.*downloads nothing"):
        weight.transforms()
    with pytest.raises(ValueError, match="Unknown model resnet19"):
        models.get_model_weights("resnet19")
    with pytest.raises(ValueError, match="Unknown weight enum name 'ResNet50_Weights.IMAGENET1K_V9'"):
        models.get_weight("ResNet50_Weights.IMAGENET1K_V9")


def test_every_builder_has_torchvisions_weight_enum_and_refuses_its_members():
    # `from torchvision.models import resnet18, ResNet18_Weights` (the autograd tutorial) imports;
    # resnet18(weights=ResNet18_Weights.DEFAULT) raises the offline refusal at that line.
    from glassgrad.vision.models.resnet import ResNet18_Weights
    assert ResNet18_Weights is models.ResNet18_Weights and list(ResNet18_Weights) == [ResNet18_Weights.IMAGENET1K_V1]
    assert [w.name for w in models.ResNet50_Weights] == ["IMAGENET1K_V1", "IMAGENET1K_V2"]
    assert models.ViT_H_14_Weights.DEFAULT.name == "IMAGENET1K_SWAG_E2E_V1"
    assert models.VGG16_Weights.DEFAULT.name == "IMAGENET1K_V1" and "IMAGENET1K_FEATURES" in models.VGG16_Weights.__members__
    assert models.ResNet50_Weights.verify("IMAGENET1K_V1") is models.ResNet50_Weights.IMAGENET1K_V1
    assert models.ResNet50_Weights.verify(None) is None
    with pytest.raises(TypeError, match="expected ResNet50_Weights"):
        models.ResNet50_Weights.verify(models.ResNet18_Weights.DEFAULT)
    enums = {name: models.get_model_weights(name) for name in models.list_models(models)}
    assert len(set(enums.values())) == 80 and all(e.__name__.endswith("_Weights") for e in enums.values())
    for name in ("resnet18", "mobilenet_v3_small", "squeezenet1_1"):
        with pytest.raises(gg.GlassgradError, match=f"(?s){name}\\(weights={enums[name].__name__}.IMAGENET1K_V1\\).*"
                                                     "downloads nothing"):
            models.get_model(name, weights=enums[name].DEFAULT)
