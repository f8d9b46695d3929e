"""glassgrad.vision.models.segmentation: torchvision's FCN, DeepLabV3 and Lite R-ASPP builders.
Without torch: the parameter counts torchvision documents for each builder's weights (21 classes,
with the auxiliary head where the weights have one), the outputs' keys and shapes, the refusals of
pretrained weights, the registry and the heads tutorials import. With torchvision installed: the
same state_dict keys, and the same eval outputs and training-mode gradients after loading
torchvision's state_dict."""
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import models
from glassgrad.vision.models import segmentation

# torchvision 0.29's weights' meta["num_params"] (aux_loss=True except Lite R-ASPP, which has none)
NUM_PARAMS = {"fcn_resnet50": 35322218, "deeplabv3_resnet50": 42004074, "deeplabv3_mobilenet_v3_large": 11029328,
              "lraspp_mobilenet_v3_large": 3221538}


def _image(n=2, h=32, w=40, seed=0):
    return np.random.RandomState(seed).randn(n, 3, h, w).astype(np.float32)


@pytest.mark.parametrize("name", list(NUM_PARAMS))
def test_parameter_counts_are_torchvisions(name):
    kwargs = {} if name.startswith("lraspp") else {"aux_loss": True}
    model = getattr(segmentation, name)(weights=None, **kwargs)
    assert sum(p.numel() for p in model.parameters()) == NUM_PARAMS[name]


def test_outputs_are_input_sized_per_class_maps():
    model = segmentation.deeplabv3_mobilenet_v3_large(num_classes=3, aux_loss=True).eval()
    with gg.no_grad():
        out = model(gg.tensor(_image(h=50, w=37)))
    assert isinstance(out, OrderedDict) and list(out) == ["out", "aux"]
    assert tuple(out["out"].shape) == tuple(out["aux"].shape) == (2, 3, 50, 37)
    model = segmentation.lraspp_mobilenet_v3_large(num_classes=2).eval()
    with gg.no_grad():
        out = model(gg.tensor(_image(n=1)))
    assert list(out) == ["out"] and tuple(out["out"].shape) == (1, 2, 32, 40)
    assert segmentation.fcn_resnet50().aux_classifier is None  # 21 classes, no auxiliary head by default
    assert segmentation.fcn_resnet50().classifier[-1].out_channels == 21


def test_a_tutorials_head_replacement_trains():
    # the fine-tuning recipe: swap the heads for the data set's classes, train on (N, H, W) masks
    from glassgrad.vision.models.segmentation.deeplabv3 import DeepLabHead
    from glassgrad.vision.models.segmentation.fcn import FCNHead
    gg.manual_seed(0)
    model = segmentation.deeplabv3_mobilenet_v3_large(aux_loss=True)
    model.classifier = DeepLabHead(960, 2, atrous_rates=(2, 4, 6))
    model.aux_classifier = FCNHead(40, 2)
    mask = np.zeros((2, 32, 32), np.int64)  # a bright square on noise, to be segmented
    mask[0, 4:20, 8:24], mask[1, 12:28, 2:18] = 1, 1
    x = gg.tensor(0.3 * _image(h=32, w=32) + mask[:, None].astype(np.float32))
    target = gg.tensor(mask)
    opt = gg.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(6):
        out = model(x)
        loss = gg.nn.functional.cross_entropy(out["out"], target) + 0.5 * gg.nn.functional.cross_entropy(
            out["aux"], target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.9 * losses[0], losses


def test_pretrained_weights_are_refused_with_the_way_to_load_a_file():
    with pytest.raises(gg.UnsupportedError, match="fcn_resnet50.*load_state_dict"):
        segmentation.fcn_resnet50(weights=segmentation.FCN_ResNet50_Weights.DEFAULT)
    with pytest.raises(gg.UnsupportedError, match="resnet50.*load_state_dict"):
        segmentation.deeplabv3_resnet50(weights_backbone=models.ResNet50_Weights.IMAGENET1K_V1)
    with pytest.raises(gg.UnsupportedError, match="pretrained=True"):
        segmentation.deeplabv3_mobilenet_v3_large(pretrained=True)
    with pytest.raises(gg.UnsupportedError):
        segmentation.lraspp_mobilenet_v3_large(pretrained_backbone=True)
    with pytest.raises(NotImplementedError, match="auxiliary loss"):
        segmentation.lraspp_mobilenet_v3_large(aux_loss=True)
    assert repr(segmentation.DeepLabV3_ResNet50_Weights.DEFAULT) == "DeepLabV3_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1"


def test_the_registry_builds_them():
    # references/segmentation/train.py: get_model(args.model, weights=..., weights_backbone=..., num_classes=..., aux_loss=...)
    assert models.list_models(module=segmentation) == [
        "deeplabv3_mobilenet_v3_large", "deeplabv3_resnet101", "deeplabv3_resnet50", "fcn_resnet101", "fcn_resnet50",
        "lraspp_mobilenet_v3_large"]
    model = models.get_model("lraspp_mobilenet_v3_large", weights=None, weights_backbone=None, num_classes=4)
    assert isinstance(model, segmentation.LRASPP) and model.classifier.low_classifier.out_channels == 4
    assert models.get_model_weights("fcn_resnet101") is segmentation.FCN_ResNet101_Weights
    assert models.get_weight("LRASPP_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1") is (
        segmentation.LRASPP_MobileNet_V3_Large_Weights.DEFAULT)
    assert not hasattr(models, "FCN_ResNet50_Weights")  # torchvision keeps them in the task's package


# --- against torchvision itself ---------------------------------------------------------------

def _torchvision():
    torch = pytest.importorskip("torch")
    return torch, pytest.importorskip("torchvision.models.segmentation")


def _randomize_norms(torch, model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)


def _pair(name, **kwargs):
    torch, tv_segmentation = _torchvision()
    torch.manual_seed(0)
    theirs = getattr(tv_segmentation, name)(weights=None, weights_backbone=None, **kwargs)
    ours = getattr(segmentation, name)(weights=None, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _randomize_norms(torch, theirs)
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()}, strict=True)
    return torch, theirs, ours


@pytest.mark.parametrize("name,kwargs,side", [("fcn_resnet50", {"num_classes": 3, "aux_loss": True}, 32),
                                              ("deeplabv3_mobilenet_v3_large", {"num_classes": 5, "aux_loss": True}, 64),
                                              ("lraspp_mobilenet_v3_large", {"num_classes": 2}, 64)])
def test_eval_outputs_match_torchvision(name, kwargs, side):
    torch, theirs, ours = _pair(name, **kwargs)
    x = _image(h=side, w=side + 8)
    with torch.no_grad():
        expected = theirs.eval()(torch.from_numpy(x))
    with gg.no_grad():
        got = ours.eval()(gg.tensor(x))
    assert list(got) == list(expected)
    for key in expected:
        e = expected[key].numpy()
        assert np.abs(got[key].numpy() - e).max() <= 1e-4 * np.abs(e).max(), key


def test_training_gradients_match_torchvision():
    torch, theirs, ours = _pair("lraspp_mobilenet_v3_large", num_classes=3)
    x = _image(h=48, w=48)
    target = np.random.RandomState(1).randint(0, 3, (2, 48, 48))
    theirs.train()
    torch.nn.functional.cross_entropy(theirs(torch.from_numpy(x))["out"], torch.from_numpy(target)).backward()
    ours.train()
    gg.nn.functional.cross_entropy(ours(gg.tensor(x))["out"], gg.tensor(target)).backward()
    mine = dict(ours.named_parameters())
    # a bias before a training-mode norm has a zero gradient up to rounding: it is compared on the
    # scale of the largest gradient
    scale = max(float(np.abs(p.grad.numpy()).max()) for p in theirs.parameters())
    for name, p in theirs.named_parameters():
        e = p.grad.numpy()
        assert np.abs(mine[name].grad.numpy() - e).max() <= 1e-3 * np.abs(e).max() + 1e-5 * scale, name
