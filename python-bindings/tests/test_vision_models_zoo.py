"""glassgrad.vision.models beyond ResNet (VGG, AlexNet, SqueezeNet, MobileNetV2, DenseNet): the
architectures torchvision documents, checked without torch: parameter counts (the "num_params"
torchvision lists for each model's weights), state_dict key names, order and shapes, forward
shapes on small inputs, the classifier edits of transfer-learning tutorials, a training step, and
the refusal of pretrained weights. test_vision_models_torchvision.py compares with torchvision
itself where it is installed."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models

# torchvision's documented parameter counts.
COUNTS = {"alexnet": 61100840, "vgg11": 132863336, "vgg11_bn": 132868840, "vgg13": 133047848,
          "vgg13_bn": 133053736, "vgg16": 138357544, "vgg16_bn": 138365992, "vgg19": 143667240,
          "vgg19_bn": 143678248}
VGG_CFGS = {"vgg11": "A", "vgg13": "B", "vgg16": "D", "vgg19": "E"}
# VGG's classifier: Linear(512*7*7, 4096), Linear(4096, 4096), Linear(4096, 1000), with biases.
VGG_CLASSIFIER = 25088 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 1000 + 1000
# Models small enough to build in every run; the VGGs (over 130M parameters each, seconds to
# initialize on a 2-core CPU) are counted as features + classifier here, whole under -m slow.
FAST = ["alexnet"]


def _count(model):
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name", FAST)
def test_parameter_counts_are_torchvisions(name):
    assert _count(getattr(models, name)()) == COUNTS[name]


@pytest.mark.parametrize("name", [n for n in COUNTS if n.startswith("vgg")])
def test_vgg_feature_extractor_plus_classifier_counts_are_torchvisions(name):
    from glassgrad.vision.models import vgg
    features = vgg.make_layers(vgg._CFGS[VGG_CFGS[name[:5]]], batch_norm=name.endswith("_bn"))
    assert _count(features) + VGG_CLASSIFIER == COUNTS[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in COUNTS if n not in FAST])
def test_whole_model_parameter_counts_are_torchvisions(name):
    assert _count(getattr(models, name)(init_weights=False)) == COUNTS[name]


def test_vgg16_keys_order_shapes_and_classifier_edit():
    model = models.vgg16(num_classes=10, init_weights=False)
    sd = model.state_dict()
    # Configuration D: 13 convolutions at these indices of features (ReLU after each, 5 pools).
    convs = [0, 2, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28]
    widths = [64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512]
    expected = []
    for i in convs:
        expected += [f"features.{i}.weight", f"features.{i}.bias"]
    for i in (0, 3, 6):
        expected += [f"classifier.{i}.weight", f"classifier.{i}.bias"]
    assert list(sd) == expected
    cin = 3
    for i, w in zip(convs, widths):
        assert tuple(sd[f"features.{i}.weight"].shape) == (w, cin, 3, 3)
        cin = w
    assert tuple(sd["classifier.0.weight"].shape) == (4096, 25088)
    assert tuple(sd["classifier.6.weight"].shape) == (10, 4096)
    assert [type(m).__name__ for m in model.classifier] == ["Linear", "ReLU", "Dropout", "Linear", "ReLU",
                                                             "Dropout", "Linear"]
    assert isinstance(model.features[30], nn.MaxPool2d) and len(model.features) == 31
    assert [n for n, _ in model.named_children()] == ["features", "avgpool", "classifier"]
    model.classifier[6] = nn.Linear(4096, 3)
    assert list(model.state_dict())[-2:] == ["classifier.6.weight", "classifier.6.bias"]
    with gg.no_grad():
        assert tuple(model.eval()(gg.randn(1, 3, 32, 32)).shape) == (1, 3)


def test_vgg_bn_layers_and_initialization():
    gg.manual_seed(0)
    model = models.vgg11_bn(num_classes=7, dropout=0.25)
    assert [type(m).__name__ for m in list(model.features)[:4]] == ["Conv2d", "BatchNorm2d", "ReLU", "MaxPool2d"]
    assert len(model.features) == 29 and model.classifier[2].p == 0.25
    keys = list(model.state_dict())
    assert keys[:7] == ["features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
                        "features.1.running_mean", "features.1.running_var", "features.1.num_batches_tracked"]
    w = model.features[4].weight.numpy()  # [128, 64, 3, 3]: kaiming normal, fan_out 128 * 9
    assert abs(w.std() - np.sqrt(2.0 / (128 * 9))) < 0.05 * np.sqrt(2.0 / (128 * 9))
    assert np.all(model.features[4].bias.numpy() == 0) and np.all(model.features[1].weight.numpy() == 1)
    lin = model.classifier[3].weight.numpy()
    assert abs(lin.std() - 0.01) < 0.001 and np.all(model.classifier[3].bias.numpy() == 0)
    untouched = models.VGG(models.vgg.make_layers([8, "M"]), init_weights=False)
    assert not np.all(untouched.features[0].bias.numpy() == 0)


def test_vgg11_bn_trains_on_32x32_and_frozen_features_get_no_gradient():
    gg.manual_seed(0)
    model = models.vgg11_bn(num_classes=4)
    for p in model.features.parameters():
        p.requires_grad_(False)
    model.classifier[6] = nn.Linear(4096, 4)
    opt = gg.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01, momentum=0.9)
    x, y = gg.randn(2, 3, 32, 32), gg.tensor([1, 3])
    before = model.classifier[6].weight.numpy().copy()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item())
    assert model.features[0].weight.grad is None
    assert not np.array_equal(before, model.classifier[6].weight.numpy())


def test_alexnet_names_shapes_and_forward():
    model = models.alexnet(num_classes=5, dropout=0.1)
    sd = model.state_dict()
    assert list(sd) == [f"features.{i}.{k}" for i in (0, 3, 6, 8, 10) for k in ("weight", "bias")] + \
        [f"classifier.{i}.{k}" for i in (1, 4, 6) for k in ("weight", "bias")]
    assert [tuple(sd[f"features.{i}.weight"].shape) for i in (0, 3, 6, 8, 10)] == [
        (64, 3, 11, 11), (192, 64, 5, 5), (384, 192, 3, 3), (256, 384, 3, 3), (256, 256, 3, 3)]
    assert tuple(sd["classifier.1.weight"].shape) == (4096, 9216) and model.classifier[0].p == 0.1
    out = model(gg.randn(2, 3, 64, 64))
    assert tuple(out.shape) == (2, 5)
    out.sum().backward()
    assert model.features[0].weight.grad is not None


@pytest.mark.parametrize("name", ["alexnet", "vgg16", "vgg11_bn"])
def test_pretrained_weights_are_refused_with_the_way_to_load_them(name):
    with pytest.raises(gg.GlassgradError, match="downloads nothing"):
        getattr(models, name)(weights="IMAGENET1K_V1")
    with pytest.raises(gg.GlassgradError, match=f"(?s){name}\\(pretrained=True\\).*weights=None"):
        getattr(models, name)(pretrained=True)


def test_weights_none_and_pretrained_false_build():
    assert isinstance(models.alexnet(weights=None, num_classes=2), models.AlexNet)
    assert isinstance(models.alexnet(pretrained=False), models.AlexNet)
