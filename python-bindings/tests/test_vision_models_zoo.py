"""glassgrad.vision.models beyond ResNet (VGG, AlexNet, SqueezeNet, MobileNetV2, DenseNet,
MobileNetV3, EfficientNet B0-B7 and V2, ShuffleNetV2, MNASNet): the architectures torchvision documents, checked without torch:
parameter counts (the "num_params" torchvision lists for each model's weights), state_dict key
names, order and shapes, forward shapes on small inputs, the classifier edits of
transfer-learning tutorials, a training step, and the refusal of pretrained weights.
test_vision_models_torchvision.py compares with torchvision itself where it is installed."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models

# torchvision's documented parameter counts.
COUNTS = {"alexnet": 61100840, "vgg11": 132863336, "vgg11_bn": 132868840, "vgg13": 133047848,
          "vgg13_bn": 133053736, "vgg16": 138357544, "vgg16_bn": 138365992, "vgg19": 143667240,
          "vgg19_bn": 143678248, "squeezenet1_0": 1248424, "squeezenet1_1": 1235496, "mobilenet_v2": 3504872,
          "densenet121": 7978856, "densenet161": 28681000, "densenet169": 14149480, "densenet201": 20013928,
          "mobilenet_v3_small": 2542856, "mobilenet_v3_large": 5483032, "efficientnet_b0": 5288548,
          "efficientnet_b1": 7794184, "efficientnet_b2": 9109994, "efficientnet_b3": 12233232,
          "efficientnet_b4": 19341616, "efficientnet_b5": 30389784, "efficientnet_b6": 43040704,
          "efficientnet_b7": 66347960, "efficientnet_v2_s": 21458488, "efficientnet_v2_m": 54139356,
          "efficientnet_v2_l": 118515272, "shufflenet_v2_x0_5": 1366792, "shufflenet_v2_x1_0": 2278604,
          "shufflenet_v2_x1_5": 3503624, "shufflenet_v2_x2_0": 7393996, "mnasnet0_5": 2218512, "mnasnet0_75": 3170208,
          "mnasnet1_0": 4383312, "mnasnet1_3": 6282256}
VGG_CFGS = {"vgg11": "A", "vgg13": "B", "vgg16": "D", "vgg19": "E"}
# VGG's classifier: Linear(512*7*7, 4096), Linear(4096, 4096), Linear(4096, 1000), with biases.
VGG_CLASSIFIER = 25088 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 1000 + 1000
# Models small enough to build in every run. The VGGs (over 130M parameters each, seconds to
# initialize on a 2-core CPU) are counted as features + classifier here; they and
# EfficientNet-B4..B7, V2-M and V2-L are counted whole under -m slow.
FAST = ["alexnet", "squeezenet1_0", "squeezenet1_1", "mobilenet_v2", "densenet121", "densenet161",
        "densenet169", "densenet201", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0", "efficientnet_b1",
        "efficientnet_b2", "efficientnet_b3", "efficientnet_v2_s", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
        "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]


def _count(model):
    return sum(p.numel() for p in model.parameters())


def _sgd_step_changes(model, watched, x, y, lr=0.01, momentum=0.0):
    """One cross-entropy SGD step over the trainable parameters; asserts a finite loss and that
    the watched parameter moved."""
    opt = gg.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr, momentum=momentum)
    before = watched.detach().numpy().copy()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item())
    assert not np.array_equal(before, watched.detach().numpy())


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
    kwargs = {"init_weights": False} if name.startswith("vgg") else {}
    assert _count(getattr(models, name)(**kwargs)) == COUNTS[name]


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
    w = model.features[4].weight.detach().numpy()  # [128, 64, 3, 3]: kaiming normal, fan_out 128 * 9
    assert abs(w.std() - np.sqrt(2.0 / (128 * 9))) < 0.05 * np.sqrt(2.0 / (128 * 9))
    assert np.all(model.features[4].bias.detach().numpy() == 0) and np.all(model.features[1].weight.detach().numpy() == 1)
    lin = model.classifier[3].weight.detach().numpy()
    assert abs(lin.std() - 0.01) < 0.001 and np.all(model.classifier[3].bias.detach().numpy() == 0)
    untouched = models.VGG(models.vgg.make_layers([8, "M"]), init_weights=False)
    assert not np.all(untouched.features[0].bias.detach().numpy() == 0)


def test_vgg11_bn_trains_on_32x32_and_frozen_features_get_no_gradient():
    gg.manual_seed(0)
    model = models.vgg11_bn(num_classes=4)
    for p in model.features.parameters():
        p.requires_grad_(False)
    model.classifier[6] = nn.Linear(4096, 4)
    _sgd_step_changes(model, model.classifier[6].weight, gg.randn(2, 3, 32, 32), gg.tensor([1, 3]), momentum=0.9)
    assert model.features[0].weight.grad is None


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


@pytest.mark.parametrize("name", ["alexnet", "vgg16", "vgg11_bn", "squeezenet1_1", "mobilenet_v2", "densenet121",
                                  "mobilenet_v3_small", "efficientnet_b0"])
def test_pretrained_weights_are_refused_with_the_way_to_load_them(name):
    with pytest.raises(gg.GlassgradError, match="downloads nothing"):
        getattr(models, name)(weights="IMAGENET1K_V1")
    with pytest.raises(gg.GlassgradError, match=f"(?s){name}\\(pretrained=True\\).*weights=None"):
        getattr(models, name)(pretrained=True)


def test_weights_none_and_pretrained_false_build():
    assert isinstance(models.alexnet(weights=None, num_classes=2), models.AlexNet)
    assert isinstance(models.alexnet(pretrained=False), models.AlexNet)


def test_squeezenet_fire_names_classifier_and_forward():
    model = models.squeezenet1_1(num_classes=6)
    keys = list(model.state_dict())
    assert keys[:2] == ["features.0.weight", "features.0.bias"]
    assert keys[2:8] == [f"features.3.{c}.{k}" for c in ("squeeze", "expand1x1", "expand3x3")
                         for k in ("weight", "bias")]
    assert keys[-2:] == ["classifier.1.weight", "classifier.1.bias"]
    assert [type(m).__name__ for m in model.features] == ["Conv2d", "ReLU", "MaxPool2d", "Fire", "Fire", "MaxPool2d",
                                                          "Fire", "Fire", "MaxPool2d", "Fire", "Fire", "Fire", "Fire"]
    assert model.features[2].ceil_mode and tuple(model.features[0].weight.shape) == (64, 3, 3, 3)
    assert tuple(model.classifier[1].weight.shape) == (6, 512, 1, 1)
    assert tuple(model.features[12].expand3x3.weight.shape) == (256, 64, 3, 3)
    assert [type(m).__name__ for m in models.squeezenet1_0().features].count("Fire") == 8
    assert tuple(models.squeezenet1_0().features[0].weight.shape) == (96, 3, 7, 7)
    out = model(gg.randn(2, 3, 64, 64))
    assert tuple(out.shape) == (2, 6)
    out.sum().backward()
    assert model.features[3].expand3x3.weight.grad is not None
    # The tutorials' edit: a new final convolution for n classes.
    model.classifier[1] = nn.Conv2d(512, 2, kernel_size=(1, 1), stride=(1, 1))
    with gg.no_grad():
        assert tuple(model.eval()(gg.randn(1, 3, 64, 64)).shape) == (1, 2)
    with pytest.raises(ValueError, match="1_0 or 1_1"):
        models.SqueezeNet(version="1_2")


def test_squeezenet_initialization():
    gg.manual_seed(0)
    model = models.squeezenet1_0()
    final = model.classifier[1].weight.detach().numpy()
    assert abs(final.std() - 0.01) < 0.001 and np.all(model.classifier[1].bias.detach().numpy() == 0)
    w = model.features[3].expand3x3.weight.detach().numpy()  # kaiming uniform, fan_in 16 * 9: bound sqrt(6 / 144)
    assert np.abs(w).max() <= np.sqrt(6.0 / 144) and np.abs(w).max() > 0.9 * np.sqrt(6.0 / 144)
    assert np.all(model.features[3].squeeze.bias.detach().numpy() == 0)


def test_mobilenet_v2_blocks_names_and_width_mult():
    model = models.mobilenet_v2(num_classes=10)
    assert len(model.features) == 19 and model.last_channel == 1280
    keys = list(model.state_dict())
    assert keys[:3] == ["features.0.0.weight", "features.0.1.weight", "features.0.1.bias"]
    assert "features.1.conv.0.0.weight" in keys and "features.1.conv.2.running_var" in keys
    assert "features.2.conv.3.weight" in keys and "features.1.conv.3.weight" not in keys
    assert keys[-2:] == ["classifier.1.weight", "classifier.1.bias"]
    assert tuple(model.features[2].conv[1][0].weight.shape) == (96, 1, 3, 3)  # depthwise over 16 * 6
    assert tuple(model.features[18][0].weight.shape) == (1280, 320, 1, 1)
    assert isinstance(model.features[0][2], nn.ReLU6) and model.classifier[0].p == 0.2
    assert [b.use_res_connect for b in list(model.features)[1:5]] == [False, False, True, False]
    thin = models.mobilenet_v2(width_mult=0.5)
    assert tuple(thin.features[0][0].weight.shape) == (16, 3, 3, 3) and thin.last_channel == 1280
    assert models.mobilenet_v2(width_mult=1.4).last_channel == 1792
    with pytest.raises(ValueError, match="4-element"):
        models.MobileNetV2(inverted_residual_setting=[[1, 16, 1]])


def test_mobilenet_v2_trains_with_a_replaced_classifier():
    gg.manual_seed(0)
    model = models.mobilenet_v2(width_mult=0.35, dropout=0.1)
    model.classifier[1] = nn.Linear(model.last_channel, 3)
    _sgd_step_changes(model, model.features[0][0].weight, gg.randn(2, 3, 32, 32), gg.tensor([0, 2]))
    w = models.mobilenet_v2().features[18][0].weight.detach().numpy()  # kaiming normal, fan_out 1280
    assert abs(w.std() - np.sqrt(2.0 / 1280)) < 0.05 * np.sqrt(2.0 / 1280)


def test_densenet121_names_widths_and_forward():
    model = models.densenet121(num_classes=3)
    assert [n for n, _ in model.features.named_children()] == [
        "conv0", "norm0", "relu0", "pool0", "denseblock1", "transition1", "denseblock2", "transition2",
        "denseblock3", "transition3", "denseblock4", "norm5"]
    assert [len(getattr(model.features, f"denseblock{i}")) for i in range(1, 5)] == [6, 12, 24, 16]
    sd = model.state_dict()
    keys = list(sd)
    assert keys[:6] == ["features.conv0.weight", "features.norm0.weight", "features.norm0.bias",
                        "features.norm0.running_mean", "features.norm0.running_var", "features.norm0.num_batches_tracked"]
    layer = "features.denseblock1.denselayer1."
    assert keys[6:18] == [layer + k for k in ("norm1.weight", "norm1.bias", "norm1.running_mean", "norm1.running_var",
                                             "norm1.num_batches_tracked", "conv1.weight", "norm2.weight", "norm2.bias",
                                             "norm2.running_mean", "norm2.running_var",
                                             "norm2.num_batches_tracked", "conv2.weight")]
    assert keys[-2:] == ["classifier.weight", "classifier.bias"]
    assert tuple(sd["features.denseblock1.denselayer1.conv1.weight"].shape) == (128, 64, 1, 1)
    assert tuple(sd["features.denseblock1.denselayer6.norm1.weight"].shape) == (64 + 5 * 32,)
    assert tuple(sd["features.transition1.conv.weight"].shape) == (128, 256, 1, 1)
    assert tuple(sd["features.norm5.weight"].shape) == (1024,) and model.classifier.in_features == 1024
    assert isinstance(model.features.transition2.pool, nn.AvgPool2d)
    out = model(gg.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 3)
    out.sum().backward()
    assert model.features.denseblock1.denselayer1.conv1.weight.grad is not None
    assert models.densenet161().features.conv0.out_channels == 96


def test_a_small_densenet_trains_with_dropout_and_is_deterministic_in_eval():
    gg.manual_seed(0)
    model = models.DenseNet(growth_rate=8, block_config=(2, 3), num_init_features=16, bn_size=2, drop_rate=0.2,
                            num_classes=4)
    assert model.classifier.in_features == (16 + 2 * 8) // 2 + 3 * 8
    x = gg.randn(4, 3, 32, 32)
    _sgd_step_changes(model, model.features.conv0.weight, x, gg.tensor([0, 1, 2, 3]), lr=0.1)
    model.eval()
    with gg.no_grad():
        np.testing.assert_array_equal(model(x).numpy(), model(x).numpy())
    w = models.densenet121().features.conv0.weight.detach().numpy()  # kaiming normal, fan_in 3 * 49
    assert abs(w.std() - np.sqrt(2.0 / 147)) < 0.05 * np.sqrt(2.0 / 147)


def test_mobilenet_v3_names_blocks_and_options():
    model = models.mobilenet_v3_small(num_classes=5)
    assert len(model.features) == 13 and [n for n, _ in model.named_children()] == ["features", "avgpool",
                                                                                      "classifier"]
    keys = list(model.state_dict())
    assert keys[:2] == ["features.0.0.weight", "features.0.1.weight"]
    # Block 1: depthwise 3x3 over 16, squeeze-excitation to 8, projection; no expansion.
    assert [type(m).__name__ for m in model.features[1].block] == ["Conv2dNormActivation", "SqueezeExcitation",
                                                                   "Conv2dNormActivation"]
    assert tuple(model.features[1].block[1].fc1.weight.shape) == (8, 16, 1, 1)
    assert isinstance(model.features[1].block[1].scale_activation, nn.Hardsigmoid)
    assert isinstance(model.features[4].block[0][2], nn.Hardswish) and isinstance(model.features[2].block[0][2],
                                                                                  nn.ReLU)
    assert tuple(model.features[12][0].weight.shape) == (576, 96, 1, 1)
    assert [type(m).__name__ for m in model.classifier] == ["Linear", "Hardswish", "Dropout", "Linear"]
    assert tuple(model.classifier[0].weight.shape) == (1024, 576) and keys[-2:] == ["classifier.3.weight",
                                                                                    "classifier.3.bias"]
    assert abs(model.features[0][1].eps - 0.001) < 1e-12 and abs(model.features[0][1].momentum - 0.01) < 1e-12
    large = models.mobilenet_v3_large(reduced_tail=True, dilated=True)
    assert len(large.features) == 17 and large.classifier[0].out_features == 640
    assert large.features[13].block[1][0].dilation == (2, 2) and large.features[13].block[1][0].stride == (1, 1)
    assert models.mobilenet_v3_large(width_mult=0.75).features[0][0].out_channels == 16
    out = model(gg.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 5)
    out.sum().backward()
    assert model.features[1].block[1].fc1.weight.grad is not None


def test_efficientnet_b0_stages_and_stochastic_depth():
    model = models.efficientnet_b0(num_classes=4)
    assert len(model.features) == 9
    assert [len(model.features[i]) for i in range(1, 8)] == [1, 2, 2, 3, 3, 4, 1]
    keys = list(model.state_dict())
    assert keys[:2] == ["features.0.0.weight", "features.0.1.weight"]
    assert "features.1.0.block.1.fc1.weight" in keys and "features.2.0.block.3.1.running_var" in keys
    assert tuple(model.features[2][0].block[2].fc1.weight.shape) == (4, 96, 1, 1)  # input 16 // 4
    assert tuple(model.features[8][0].weight.shape) == (1280, 320, 1, 1)
    assert [type(m).__name__ for m in model.classifier] == ["Dropout", "Linear"] and model.classifier[0].p == 0.2
    probs = [b.stochastic_depth.p for stage in list(model.features)[1:8] for b in stage]
    assert len(probs) == 16 and probs[0] == 0.0 and abs(probs[-1] - 0.2 * 15 / 16) < 1e-12
    assert models.efficientnet_b2().classifier[0].p == 0.3 and models.efficientnet_b1().features[2].__len__() == 3
    out = model(gg.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 4)
    out.sum().backward()
    assert model.features[0][0].weight.grad is not None
    lin = model.classifier[1].weight.detach().numpy()  # uniform(+-1/sqrt(4))
    assert np.abs(lin).max() <= 0.5


def test_stochastic_depth_drops_whole_samples_in_training_only():
    from glassgrad.vision.models._layers import StochasticDepth
    gg.manual_seed(0)
    layer = StochasticDepth(0.5, "row")
    x = gg.ones(64, 3, 2, 2)
    y = layer(x).numpy()
    per_sample = y.reshape(64, -1)
    assert set(np.unique(per_sample)) <= {0.0, 2.0}
    assert np.all(per_sample.min(1) == per_sample.max(1))  # one draw per sample
    assert 0 < (per_sample[:, 0] == 0).sum() < 64
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    batch = StochasticDepth(0.5, "batch")(x).numpy()
    assert len(np.unique(batch)) == 1
    with pytest.raises(ValueError, match="'batch' or 'row'"):
        StochasticDepth(0.5, "col")


def test_efficientnet_v2_s_fused_stages():
    model = models.efficientnet_v2_s(num_classes=3)
    assert len(model.features) == 8 and [len(model.features[i]) for i in range(1, 7)] == [2, 4, 4, 6, 9, 15]
    assert [type(model.features[i][0]).__name__ for i in range(1, 7)] == ["FusedMBConv"] * 3 + ["MBConv"] * 3
    assert len(model.features[1][0].block) == 1 and len(model.features[2][0].block) == 2
    assert tuple(model.features[2][0].block[0][0].weight.shape) == (96, 24, 3, 3)  # fused 3x3 expand by 4
    assert model.features[1][0].use_res_connect and not model.features[2][0].use_res_connect
    assert abs(model.features[0][1].eps - 1e-3) < 1e-12 and model.classifier[0].p == 0.2
    assert tuple(model.features[7][0].weight.shape) == (1280, 256, 1, 1)
    out = model(gg.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 3)
    out.sum().backward()
    assert model.features[1][0].block[0][0].weight.grad is not None


def test_shufflenet_v2_branches_shuffle_and_training_step():
    gg.manual_seed(0)
    model = models.shufflenet_v2_x0_5(num_classes=3)
    assert [n for n, _ in model.named_children()] == ["conv1", "maxpool", "stage2", "stage3", "stage4", "conv5", "fc"]
    assert [len(model.stage2), len(model.stage3), len(model.stage4)] == [4, 8, 4]
    keys = list(model.state_dict())
    assert keys[:2] == ["conv1.0.weight", "conv1.1.weight"]
    assert "stage2.0.branch1.0.weight" in keys and "stage2.1.branch1.0.weight" not in keys
    assert tuple(model.stage2[0].branch1[0].weight.shape) == (24, 1, 3, 3)  # depthwise over the input
    assert tuple(model.stage2[1].branch2[0].weight.shape) == (24, 24, 1, 1)  # half of 48 channels
    assert keys[-2:] == ["fc.weight", "fc.bias"] and model.fc.in_features == 1024
    from glassgrad.vision.models.shufflenetv2 import channel_shuffle
    x = gg.arange(8.0).view(1, 8, 1, 1)
    assert channel_shuffle(x, 2).flatten().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    _sgd_step_changes(model, model.conv1[0].weight, gg.randn(2, 3, 32, 32), gg.tensor([0, 2]), lr=0.05)
    with pytest.raises(ValueError, match="list of 3"):
        models.ShuffleNetV2([4, 8], [24, 48, 96, 192, 1024])


def test_mnasnet_layers_momentum_and_training_step():
    gg.manual_seed(0)
    model = models.mnasnet0_5(num_classes=3, dropout=0.1)
    assert [n for n, _ in model.named_children()] == ["layers", "classifier"] and len(model.layers) == 17
    keys = list(model.state_dict())
    assert keys[:2] == ["layers.0.weight", "layers.1.weight"] and keys[-2:] == ["classifier.1.weight",
                                                                                "classifier.1.bias"]
    assert [len(model.layers[i]) for i in range(8, 14)] == [3, 3, 3, 2, 4, 1]
    assert tuple(model.layers[8][0].layers[0].weight.shape) == (24, 8, 1, 1)  # 16 * 0.5 -> 8, expanded by 3
    assert abs(model.layers[1].momentum - (1 - 0.9997)) < 1e-12
    assert model.layers[8][1].apply_residual and not model.layers[8][0].apply_residual
    assert tuple(model.layers[14].weight.shape) == (1280, 160, 1, 1) and model.classifier[0].p == 0.1
    _sgd_step_changes(model, model.layers[0].weight, gg.randn(2, 3, 32, 32), gg.tensor([0, 2]))
    with pytest.raises(ValueError, match="alpha should be greater than 0.0"):
        models.MNASNet(0.0)
