"""glassgrad.vision.models' newer architectures (GoogLeNet, RegNet, ConvNeXt, ViT, Swin V1 and V2,
MaxViT) on each device: small configurations give the CPU's eval outputs and gradients, so the
composites they use (roll with dims, the relative-position gather from an int64 buffer, padding,
strided slices, window masks made on the input's device, normalize, clamp) run there. The "cuda"
cases need a GPU."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import models
from glassgrad.vision.models import swin_transformer as swin

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]

SMALL = {
    "googlenet": (lambda: models.googlenet(aux_logits=False, init_weights=False, num_classes=3), 64),
    "regnet": (lambda: models.regnet_x_400mf(num_classes=3), 32),
    "convnext": (lambda: models.ConvNeXt([models.CNBlockConfig(16, 32, 1), models.CNBlockConfig(32, None, 2)],
                                         layer_scale=0.5, num_classes=3), 32),
    "vit": (lambda: models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16,
                                             mlp_dim=32, num_classes=3), 32),
    "swin": (lambda: models.SwinTransformer(patch_size=[4, 4], embed_dim=8, depths=[2, 2], num_heads=[2, 4],
                                            window_size=[2, 2], stochastic_depth_prob=0.0, num_classes=3), 24),
    "swin_v2": (lambda: models.SwinTransformer(patch_size=[4, 4], embed_dim=8, depths=[2, 2], num_heads=[2, 4],
                                               window_size=[2, 2], stochastic_depth_prob=0.0, num_classes=3,
                                               block=swin.SwinTransformerBlockV2,
                                               downsample_layer=swin.PatchMergingV2), 24),
    "maxvit": (lambda: models.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[8, 16],
                                     block_layers=[1, 2], head_dim=4, stochastic_depth_prob=0.0, num_classes=3), 32),
}


def _randomize(model):
    """Every parameter drawn at random (zero heads and 1e-6 layer scales would hide the layers)."""
    rng = np.random.default_rng(0)
    with gg.no_grad():
        for p in model.parameters():
            p.copy_(gg.tensor((rng.standard_normal(tuple(p.shape)) * 0.2).astype(np.float32)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(SMALL))
def test_outputs_and_gradients_match_the_cpu(name, device, on_the_cpu):
    build, side = SMALL[name]
    gg.manual_seed(0)
    reference = build().eval()
    _randomize(reference)
    model = build().eval()
    model.load_state_dict(reference.state_dict())
    model.to(device)
    x = np.random.default_rng(1).standard_normal((2, 3, side, side)).astype(np.float32)
    expected = reference(gg.tensor(x))
    expected.square().sum().backward()
    got = model(gg.tensor(x, device=device))
    assert got.device.type == device
    got.square().sum().backward()
    scale = np.abs(expected.detach().numpy()).max()
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=0, atol=1e-4 * scale)
    for (n, p), q in zip(reference.named_parameters(), model.parameters()):
        g, h = p.grad.numpy(), q.grad.cpu().numpy()
        np.testing.assert_allclose(h, g, rtol=0, atol=1e-3 * max(np.abs(g).max(), 1e-6), err_msg=n)
