"""glassgrad.vision.models against torchvision.models itself: the same state_dict keys in the same
order with the same shapes, the same parameter counts, and the same eval-mode outputs (float32,
1e-4 relative to the largest output) after loading the torchvision model's state_dict strictly,
with its norms' statistics and affine parameters, its layer scales and its constant-initialized
parameters (zero heads, class tokens) randomized so they count.

Skipped where torchvision is not installed (CI has neither torch nor torchvision). To run it:
`pip install torch torchvision`, then
`PYTHONPATH=python-bindings python3 -m pytest python-bindings/tests/test_vision_models_torchvision.py`."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
tv_models = pytest.importorskip("torchvision.models")

import glassgrad as gg  # noqa: E402
from glassgrad.vision import models  # noqa: E402

# name: input side (VGG's adaptive pool takes 32x32; AlexNet needs 63x63 or more, Inception v3 75x75).
CASES = {"alexnet": 64, "vgg11_bn": 32, "vgg16": 32, "squeezenet1_0": 64, "squeezenet1_1": 64, "mobilenet_v2": 64,
         "densenet121": 64, "mobilenet_v3_small": 64, "mobilenet_v3_large": 64, "efficientnet_b0": 64,
         "efficientnet_v2_s": 64, "shufflenet_v2_x1_0": 64, "mnasnet1_0": 64, "googlenet": 64,
         "inception_v3": 80, "regnet_y_400mf": 64, "regnet_x_400mf": 64, "regnet_y_800mf": 64, "regnet_x_8gf": 64,
         "convnext_tiny": 64, "vit_b_32": 64, "vit_b_16": 32, "swin_t": 72, "swin_v2_t": 64}
# Constructor arguments beyond weights=None (a ViT is built for one image size).
KWARGS = {"vit_b_32": {"image_size": 64}, "vit_b_16": {"image_size": 32, "representation_size": 20}}


def _randomize_norms(model):
    """Batch-norm statistics, norms' affine parameters, layer scales and every other parameter
    that starts constant drawn away from their starting values (1e-6 layer scales would hide the
    blocks they scale, a zero head every output)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
            if isinstance(m, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm)):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
        for name, p in model.named_parameters():
            if name.endswith("layer_scale"):
                p.uniform_(0.5, 1.5)
            elif bool((p == p.flatten()[0]).all()):  # zero heads, class tokens, constant biases
                p.normal_(std=0.02)


@pytest.mark.parametrize("name", list(CASES))
def test_keys_counts_and_outputs_match_torchvision(name):
    torch.manual_seed(0)
    theirs = getattr(tv_models, name)(weights=None, **KWARGS.get(name, {})).eval()
    ours = getattr(models, name)(weights=None, **KWARGS.get(name, {})).eval()
    their_sd, our_sd = theirs.state_dict(), ours.state_dict()
    assert list(our_sd) == list(their_sd)
    assert [tuple(v.shape) for v in our_sd.values()] == [tuple(v.shape) for v in their_sd.values()]
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    _randomize_norms(theirs)
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()}, strict=True)
    side = CASES[name]
    x = np.random.RandomState(0).randn(2, 3, side, side).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    with gg.no_grad():
        got = ours(gg.tensor(x)).numpy()
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()


def test_a_small_maxvit_matches_torchvision():
    """MaxViT is built for one input size (every block's grid a multiple of the partition size):
    a two-block configuration on 32x32 inputs exercises the same layers as maxvit_t at 224."""
    from torchvision.models import maxvit as tv_maxvit
    kwargs = dict(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[8, 16], block_layers=[1, 2],
                  head_dim=4, stochastic_depth_prob=0.2, num_classes=5)
    torch.manual_seed(0)
    theirs = tv_maxvit.MaxVit(**kwargs).eval()
    ours = models.MaxVit(**kwargs).eval()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(models.maxvit_t().state_dict()) == list(tv_models.maxvit_t().state_dict())
    _randomize_norms(theirs)
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()}, strict=True)
    x = np.random.RandomState(0).randn(2, 3, 32, 32).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    with gg.no_grad():
        got = ours(gg.tensor(x)).numpy()
    assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()


def test_the_registry_lists_torchvisions_classification_models():
    assert models.list_models(models) == tv_models.list_models(module=tv_models)
    for include, exclude in [("vit*", None), (["swin*", "regnet_y*"], "*_v2_*"), ("*net*", ["*resnet*", "mnas*"])]:
        assert models.list_models(include=include, exclude=exclude) == tv_models.list_models(
            module=tv_models, include=include, exclude=exclude)


def test_interpolate_embeddings_matches_torchvision():
    from torchvision.models.vision_transformer import interpolate_embeddings as theirs
    from glassgrad.vision.models.vision_transformer import interpolate_embeddings as ours
    torch.manual_seed(0)
    state = tv_models.vit_b_32(weights=None, image_size=64).state_dict()  # a 2 x 2 grid
    with torch.no_grad():
        state["encoder.pos_embedding"].normal_()
    expected = theirs(96, 32, dict(state))["encoder.pos_embedding"].numpy()  # to 3 x 3
    got = ours(96, 32, dict(state))["encoder.pos_embedding"]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
