"""torchvision.ops.FeaturePyramidNetwork (with LastLevelMaxPool / LastLevelP6P7) and
torchvision.models.detection.backbone_utils (BackboneWithFPN, resnet_fpn_backbone,
mobilenet_backbone). Without torch: the pyramid's computation written out with glassgrad's own
layers, the levels' names and shapes, the frozen parameters and the errors. With torchvision
installed: the same state_dict keys, trainable parameters and outputs after loading its
state_dict."""
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.vision.models.detection import backbone_utils
from glassgrad.vision.ops import FeaturePyramidNetwork
from glassgrad.vision.ops.feature_pyramid_network import ExtraFPNBlock, LastLevelMaxPool, LastLevelP6P7

SIZES = [(10, 17, 18), (20, 9, 9), (30, 5, 5)]  # (channels, height, width) of three levels, finest first


def _levels(seed=0, names=("feat0", "feat2", "feat3")):
    rng = np.random.RandomState(seed)
    return OrderedDict((n, gg.tensor(rng.randn(2, c, h, w).astype(np.float32))) for n, (c, h, w) in zip(names, SIZES))


def test_top_down_pathway_written_out():
    gg.manual_seed(0)
    fpn = FeaturePyramidNetwork([10, 20, 30], 8)
    x = _levels()
    out = fpn(x)
    assert list(out) == list(x) and [tuple(v.shape) for v in out.values()] == [(2, 8, h, w) for _, h, w in SIZES]
    feats = list(x.values())
    inner = [fpn.inner_blocks[i][0] for i in range(3)]
    layer = [fpn.layer_blocks[i][0] for i in range(3)]
    top = inner[2](feats[2])
    expected = [layer[2](top)]
    for i in (1, 0):
        top = inner[i](feats[i]) + F.interpolate(top, size=feats[i].shape[-2:], mode="nearest")
        expected.insert(0, layer[i](top))
    for got, want in zip(out.values(), expected):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)
    assert list(fpn.state_dict()) == [f"{b}.{i}.0.{k}" for b in ("inner_blocks", "layer_blocks") for i in range(3)
                                      for k in ("weight", "bias")]
    assert all(not p.detach().numpy().any() for n, p in fpn.named_parameters() if n.endswith("bias"))


def test_extra_levels():
    x = _levels()
    out = FeaturePyramidNetwork([10, 20, 30], 8, extra_blocks=LastLevelMaxPool())(x)
    assert list(out)[-1] == "pool" and tuple(out["pool"].shape) == (2, 8, 3, 3)
    np.testing.assert_array_equal(out["pool"].detach().numpy(), out["feat3"].detach().numpy()[:, :, ::2, ::2])
    p6p7 = LastLevelP6P7(30, 8)  # C5 feeds P6 where the channel counts differ
    out = FeaturePyramidNetwork([10, 20, 30], 8, extra_blocks=p6p7)(x)
    assert list(out)[-2:] == ["p6", "p7"] and not p6p7.use_P5 and LastLevelP6P7(8, 8).use_P5
    np.testing.assert_allclose(out["p6"].detach().numpy(), p6p7.p6(x["feat3"]).detach().numpy(), rtol=1e-6)
    assert tuple(out["p7"].shape) == (2, 8, 2, 2)


def test_a_version_1_state_dict_loads():
    # torchvision's FPN blocks were bare convolutions before version 2: `inner_blocks.0.weight`
    fpn = FeaturePyramidNetwork([10, 20], 4)
    old = OrderedDict((k.replace(".0.", "."), v + 1) for k, v in fpn.state_dict().items())
    old._metadata = OrderedDict([("", {"version": 1})])
    fresh = FeaturePyramidNetwork([10, 20], 4)
    fresh.load_state_dict(old)
    np.testing.assert_array_equal(fresh.inner_blocks[1][0].weight.detach().numpy(),
                                  fpn.inner_blocks[1][0].weight.detach().numpy() + 1)


def test_errors():
    with pytest.raises(ValueError, match="in_channels=0"):
        FeaturePyramidNetwork([0, 10], 4)
    with pytest.raises(TypeError, match="ExtraFPNBlock"):
        FeaturePyramidNetwork([10], 4, extra_blocks=gg.nn.ReLU())
    with pytest.raises(ValueError, match="2 feature maps"):
        FeaturePyramidNetwork([10, 20, 30], 4)(OrderedDict(list(_levels().items())[:2]))
    with pytest.raises(NotImplementedError, match="ExtraFPNBlock subclass"):
        ExtraFPNBlock()([], [], [])


def test_resnet_fpn_backbone_levels_and_frozen_layers():
    gg.manual_seed(0)
    body = backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=2)
    assert isinstance(body, backbone_utils.BackboneWithFPN) and body.out_channels == 256
    assert type(body.body.bn1).__name__ == "FrozenBatchNorm2d"
    trainable = {n.split(".")[1] for n, p in body.named_parameters() if p.requires_grad and n.startswith("body.")}
    assert trainable == {"layer3", "layer4"}
    with gg.no_grad():
        out = body(gg.rand(1, 3, 64, 64))
    assert [(k, tuple(v.shape)) for k, v in out.items()] == [
        ("0", (1, 256, 16, 16)), ("1", (1, 256, 8, 8)), ("2", (1, 256, 4, 4)), ("3", (1, 256, 2, 2)),
        ("pool", (1, 256, 1, 1))]
    body = backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5,
                                              returned_layers=[2, 4])
    assert all(p.requires_grad for p in body.parameters())
    assert [b[0].in_channels for b in body.fpn.inner_blocks] == [128, 512]
    with pytest.raises(ValueError, match=r"range \[0,5\]"):
        backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=6)
    with pytest.raises(ValueError, match=r"range \[1,4\]"):
        backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights=None, returned_layers=[0, 1])
    with pytest.raises(gg.UnsupportedError, match="downloads nothing"):
        backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights="IMAGENET1K_V1")


def test_mobilenet_backbone_with_and_without_fpn():
    body = backbone_utils.mobilenet_backbone(backbone_name="mobilenet_v3_large", weights=None, fpn=True)
    with gg.no_grad():
        out = body(gg.rand(1, 3, 64, 64))
    # the last two stages: strides 16 and 32 (its last block and 1x1 head)
    assert [(k, tuple(v.shape)) for k, v in out.items()] == [("0", (1, 256, 2, 2)), ("1", (1, 256, 2, 2)),
                                                             ("pool", (1, 256, 1, 1))]
    plain = backbone_utils.mobilenet_backbone(backbone_name="mobilenet_v2", weights=None, fpn=False,
                                              trainable_layers=0)
    assert plain.out_channels == 256 and not any(p.requires_grad for p in plain[0].parameters())
    assert tuple(plain(gg.rand(1, 3, 32, 32)).shape) == (1, 256, 1, 1)
    assert backbone_utils._validate_trainable_layers(True, None, 5, 3) == 3
    with pytest.warns(UserWarning, match="no effect"):
        assert backbone_utils._validate_trainable_layers(False, 2, 5, 3) == 5


# --- against torchvision itself ---------------------------------------------------------------

def _load_from(torch, theirs, ours):
    with torch.no_grad():
        for k, v in theirs.state_dict().items():
            if k.endswith("running_var"):
                v.uniform_(0.5, 1.5)
            elif k.endswith(("running_mean", "bias")):
                v.uniform_(-0.1, 0.1)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ([n for n, p in ours.named_parameters() if p.requires_grad]
            == [n for n, p in theirs.named_parameters() if p.requires_grad])
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()}, strict=True)


def _compare(torch, theirs, ours, x):
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x) if isinstance(x, np.ndarray) else
                          OrderedDict((k, torch.from_numpy(v.numpy())) for k, v in x.items()))
    with gg.no_grad():
        got = ours(gg.tensor(x) if isinstance(x, np.ndarray) else x)
    assert list(got) == list(expected)
    for k in expected:
        e = expected[k].numpy()
        assert np.abs(got[k].numpy() - e).max() <= 1e-5 * np.abs(e).max(), k


@pytest.mark.parametrize("extra", [None, "maxpool", "p6p7_c5", "p6p7_p5"])
def test_fpn_matches_torchvision(extra):
    torch = pytest.importorskip("torch")
    tv_fpn = pytest.importorskip("torchvision.ops.feature_pyramid_network")
    make = {None: lambda m: None, "maxpool": lambda m: m.LastLevelMaxPool(),
            "p6p7_c5": lambda m: m.LastLevelP6P7(30, 8), "p6p7_p5": lambda m: m.LastLevelP6P7(8, 8)}[extra]
    from glassgrad.vision.ops import feature_pyramid_network as ours_module
    torch.manual_seed(0)
    theirs = tv_fpn.FeaturePyramidNetwork([10, 20, 30], 8, extra_blocks=make(tv_fpn))
    ours = FeaturePyramidNetwork([10, 20, 30], 8, extra_blocks=make(ours_module))
    _load_from(torch, theirs, ours)
    _compare(torch, theirs, ours, _levels())


@pytest.mark.parametrize("kind,kwargs", [("resnet", dict(backbone_name="resnet18", trainable_layers=3)),
                                         ("resnet", dict(backbone_name="resnet50", returned_layers=[2, 3, 4])),
                                         ("mobilenet", dict(backbone_name="mobilenet_v3_large", fpn=True)),
                                         ("mobilenet", dict(backbone_name="mobilenet_v3_small", fpn=True,
                                                            returned_layers=[1, 2, 3])),
                                         ("mobilenet", dict(backbone_name="mobilenet_v2", fpn=False))])
def test_backbones_match_torchvision(kind, kwargs):
    torch = pytest.importorskip("torch")
    tv_backbone_utils = pytest.importorskip("torchvision.models.detection.backbone_utils")
    torch.manual_seed(0)
    theirs = getattr(tv_backbone_utils, f"{kind}_fpn_backbone" if kind == "resnet" else "mobilenet_backbone")(
        weights=None, **kwargs).eval()
    ours = getattr(backbone_utils, f"{kind}_fpn_backbone" if kind == "resnet" else "mobilenet_backbone")(
        weights=None, **kwargs).eval()
    _load_from(torch, theirs, ours)
    x = np.random.RandomState(0).randn(1, 3, 64, 72).astype(np.float32)
    if kwargs.get("fpn", True):
        _compare(torch, theirs, ours, x)
    else:
        with torch.no_grad():
            e = theirs(torch.from_numpy(x)).numpy()
        with gg.no_grad():
            assert np.abs(ours(gg.tensor(x)).numpy() - e).max() <= 1e-5 * np.abs(e).max()
