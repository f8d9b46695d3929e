"""glassgrad.vision.models' Vision Transformer, checked without torch: torchvision's documented
parameter counts (every size by counting the architecture's layers, ViT-B/32 by building it),
state_dict names and order, the image_size argument, the class token and positional embedding,
representation_size and the convolutional stem, initialization, a training step and the refusal of
pretrained weights. test_vision_models_torchvision.py compares the outputs with torchvision's."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models
from vision_model_checks import assert_pretrained_refused, count

# torchvision's documented counts at the default image_size 224.
COUNTS = {"vit_b_16": 86567656, "vit_b_32": 88224232, "vit_l_16": 304326632, "vit_l_32": 306535400,
          "vit_h_14": 632045800}
CONFIGS = {"vit_b_16": (16, 12, 768, 3072), "vit_b_32": (32, 12, 768, 3072), "vit_l_16": (16, 24, 1024, 4096),
           "vit_l_32": (32, 24, 1024, 4096), "vit_h_14": (14, 32, 1280, 5120)}


def _architecture_count(patch, layers, dim, mlp, image_size=224, num_classes=1000):
    """Patch convolution (bias), class token, positional embedding (one row per patch and one
    for the class token); per layer two norms, attention (in_proj 3d x d and out_proj, with
    biases) and the MLP; the final norm and the head."""
    tokens = (image_size // patch) ** 2 + 1
    per_layer = 2 * dim + (3 * dim * dim + 3 * dim) + (dim * dim + dim) + 2 * dim + (dim * mlp + mlp) + (mlp * dim + dim)
    return 3 * patch * patch * dim + dim + dim + tokens * dim + layers * per_layer + 2 * dim + dim * num_classes \
        + num_classes


@pytest.mark.parametrize("name", list(COUNTS))
def test_every_size_has_torchvisions_parameter_count(name):
    assert _architecture_count(*CONFIGS[name]) == COUNTS[name]


@pytest.mark.parametrize("name, image_size, expected", [("vit_b_16", 384, 86859496), ("vit_l_16", 512, 305174504),
                                                        ("vit_h_14", 518, 633470440)])
def test_counts_at_the_image_sizes_of_torchvisions_larger_weights(name, image_size, expected):
    assert _architecture_count(*CONFIGS[name], image_size=image_size) == expected


def test_vit_b_32_built_names_order_and_initialization():
    gg.manual_seed(0)
    model = models.vit_b_32()
    assert count(model) == COUNTS["vit_b_32"] and model.seq_length == 50
    assert [n for n, _ in model.named_children()] == ["conv_proj", "encoder", "heads"]
    keys = list(model.state_dict())
    layer = "encoder.layers.encoder_layer_0."
    assert keys[:6] == ["class_token", "conv_proj.weight", "conv_proj.bias", "encoder.pos_embedding",
                        layer + "ln_1.weight", layer + "ln_1.bias"]
    assert keys[6:16] == [layer + k for k in (
        "self_attention.in_proj_weight", "self_attention.in_proj_bias", "self_attention.out_proj.weight",
        "self_attention.out_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.0.weight", "mlp.0.bias", "mlp.3.weight",
        "mlp.3.bias")]
    assert keys[-4:] == ["encoder.ln.weight", "encoder.ln.bias", "heads.head.weight", "heads.head.bias"]
    assert [type(m).__name__ for m in model.encoder.layers.encoder_layer_11.mlp] == ["Linear", "GELU", "Dropout",
                                                                                     "Linear", "Dropout"]
    assert tuple(model.encoder.pos_embedding.shape) == (1, 50, 768) and model.encoder.ln.eps == 1e-6
    assert abs(model.encoder.pos_embedding.detach().numpy().std() - 0.02) < 0.002
    assert np.all(model.class_token.detach().numpy() == 0) and np.all(model.heads.head.weight.detach().numpy() == 0)
    w = model.conv_proj.weight.detach().numpy()  # trunc_normal_(std=sqrt(1 / (3 * 32 * 32)))
    assert abs(w.std() - np.sqrt(1 / 3072)) < 0.05 * np.sqrt(1 / 3072)
    fc = model.encoder.layers.encoder_layer_0.mlp[0]  # xavier uniform: bound sqrt(6 / (768 + 3072))
    assert np.abs(fc.weight.detach().numpy()).max() <= np.sqrt(6 / 3840) and np.abs(fc.bias.detach().numpy()).max() < 1e-4


def _tiny(**kwargs):
    return models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16,
                                    mlp_dim=32, **kwargs)


def test_image_size_class_token_and_a_training_step():
    gg.manual_seed(0)
    model = _tiny(num_classes=3)
    assert model.seq_length == 17 and tuple(model.encoder.pos_embedding.shape) == (1, 17, 16)
    with gg.no_grad():
        model.heads.head.weight.normal_(std=0.1)
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    before = model.class_token.detach().numpy().copy()
    loss = nn.functional.cross_entropy(model(gg.randn(2, 3, 32, 32)), gg.tensor([0, 2]))
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item()) and not np.array_equal(before, model.class_token.detach().numpy())
    assert model.encoder.pos_embedding.grad is not None
    with pytest.raises(ValueError, match="(?s)Wrong image height! Expected 32 but got 64.*image_size=64"):
        model(gg.randn(1, 3, 64, 64))
    with pytest.raises(ValueError, match="indivisible by patch size"):
        models.VisionTransformer(image_size=30, patch_size=8, num_layers=1, num_heads=1, hidden_dim=8, mlp_dim=8)
    with pytest.raises(ValueError, match="Expected \\(batch_size, seq_length, hidden_dim\\)"):
        model.encoder(gg.randn(2, 16))
    assert models.vit_b_16(image_size=64).encoder.pos_embedding.shape[1] == 17


def test_representation_size_and_convolutional_stem():
    model = _tiny(representation_size=12, num_classes=4)
    assert [n for n, _ in model.heads.named_children()] == ["pre_logits", "act", "head"]
    assert isinstance(model.heads.act, nn.Tanh) and model.heads.head.in_features == 12
    stem = _tiny(conv_stem_configs=[models.ConvStemConfig(out_channels=8, kernel_size=3, stride=2),
                                    models.ConvStemConfig(out_channels=8, kernel_size=3, stride=4)])
    assert [n for n, _ in stem.conv_proj.named_children()] == ["conv_bn_relu_0", "conv_bn_relu_1", "conv_last"]
    assert tuple(stem.conv_proj.conv_last.weight.shape) == (16, 8, 1, 1)
    assert abs(stem.conv_proj.conv_last.weight.detach().numpy().std() - np.sqrt(2 / 16)) < 0.1 * np.sqrt(2 / 16)
    with gg.no_grad():
        assert tuple(stem.eval()(gg.randn(2, 3, 32, 32)).shape) == (2, 1000)


@pytest.mark.parametrize("name", ["vit_b_16", "vit_h_14"])
def test_pretrained_weights_are_refused(name):
    assert_pretrained_refused(name)


def test_interpolate_embeddings_resizes_the_patch_grid_for_a_new_image_size():
    from glassgrad.vision.models.vision_transformer import interpolate_embeddings
    gg.manual_seed(0)
    small = _tiny(num_classes=3)  # 32 / 8: a 4 x 4 grid of patches
    state = small.state_dict()
    pos = state["encoder.pos_embedding"].numpy()  # a copy
    assert interpolate_embeddings(32, 8, state)["encoder.pos_embedding"] is state["encoder.pos_embedding"]
    new = interpolate_embeddings(56, 8, dict(state), reset_heads=True)  # a 7 x 7 grid
    assert type(new["encoder.pos_embedding"]) is gg.Tensor  # a tensor, as torchvision's
    resized = new["encoder.pos_embedding"].numpy()
    assert resized.shape == (1, 50, 16) and not any(k.startswith("heads") for k in new)
    np.testing.assert_array_equal(resized[:, 0], pos[:, 0])  # the class token's row is kept
    grid, old = resized[0, 1:].reshape(7, 7, 16), pos[0, 1:].reshape(4, 4, 16)
    for (i, j), (k, m) in [((0, 0), (0, 0)), ((0, 6), (0, 3)), ((6, 0), (3, 0)), ((6, 6), (3, 3))]:
        np.testing.assert_allclose(grid[i, j], old[k, m], rtol=1e-5, atol=1e-6)  # align_corners: corners kept
    # Bilinear interpolation reproduces a linear ramp between grid points.
    ramp = np.tile(np.arange(4, dtype=np.float32)[None, :, None], (4, 1, 16)).reshape(1, 16, 16)
    state["encoder.pos_embedding"] = np.concatenate([pos[:, :1], ramp], 1)
    out = interpolate_embeddings(56, 8, state, interpolation_mode="bilinear")["encoder.pos_embedding"]  # an array in
    np.testing.assert_allclose(out[0, 1:8, 0], np.linspace(0, 3, 7), rtol=1e-5, atol=1e-6)
    big = models.VisionTransformer(image_size=56, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32,
                                   num_classes=3)
    big.load_state_dict(new, strict=False)
    assert np.array_equal(big.encoder.pos_embedding.detach().numpy(), resized)
    with pytest.raises(ValueError, match="not a perfect square"):
        interpolate_embeddings(56, 8, {"encoder.pos_embedding": np.zeros((1, 6, 4), np.float32)})
