"""glassgrad.vision.models' GoogLeNet and Inception v3, checked without torch: torchvision's
documented parameter counts, state_dict names, order and shapes, the auxiliary heads (present in
training with aux_logits, dropped with aux_logits=False), transform_input, initialization, a
training step and the refusal of pretrained weights. test_vision_models_torchvision.py compares
the outputs with torchvision's."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models
from vision_model_checks import assert_pretrained_refused, count


def test_googlenet_counts_names_and_aux_heads():
    # torchvision's num_params 6624904 is the model without the auxiliary heads (as its weights load).
    assert count(models.googlenet(aux_logits=False, init_weights=False)) == 6624904
    model = models.googlenet(init_weights=False)
    # Each aux head: 1x1 conv to 128 (no bias) + its norm, Linear(2048, 1024), Linear(1024, 1000).
    head = 2 * 128 + 2048 * 1024 + 1024 + 1024 * 1000 + 1000
    assert count(model) == 6624904 + (512 * 128 + head) + (528 * 128 + head)
    assert [n for n, _ in model.named_children()] == [
        "conv1", "maxpool1", "conv2", "conv3", "maxpool2", "inception3a", "inception3b", "maxpool3", "inception4a",
        "inception4b", "inception4c", "inception4d", "inception4e", "maxpool4", "inception5a", "inception5b", "aux1",
        "aux2", "avgpool", "dropout", "fc"]
    keys = list(model.state_dict())
    assert keys[:6] == ["conv1.conv.weight", "conv1.bn.weight", "conv1.bn.bias", "conv1.bn.running_mean",
                        "conv1.bn.running_var", "conv1.bn.num_batches_tracked"]
    assert "inception3a.branch4.1.conv.weight" in keys and "aux2.fc2.bias" in keys
    assert keys[-2:] == ["fc.weight", "fc.bias"]
    assert tuple(model.inception3a.branch3[1].conv.weight.shape) == (32, 16, 3, 3)  # the "5x5" branch is 3x3
    assert model.conv1.bn.eps == 0.001 and model.maxpool1.ceil_mode and model.aux1.dropout.p == 0.7
    no_aux = models.googlenet(aux_logits=False, init_weights=False)
    assert no_aux.aux1 is None and no_aux.aux2 is None and "aux1.conv.conv.weight" not in no_aux.state_dict()
    with pytest.raises(ValueError, match="blocks length should be 3"):
        models.GoogLeNet(blocks=[], init_weights=False)


def test_googlenet_outputs_in_training_and_eval_and_a_training_step():
    gg.manual_seed(0)
    model = models.googlenet(num_classes=5, init_weights=False, dropout=0.0, dropout_aux=0.0)
    x = gg.randn(2, 3, 64, 64)
    out = model(x)
    assert isinstance(out, models.GoogLeNetOutputs) and out._fields == ("logits", "aux_logits2", "aux_logits1")
    assert [tuple(t.shape) for t in out] == [(2, 5)] * 3
    y = gg.tensor([1, 4])
    opt = gg.optim.SGD(model.parameters(), lr=0.01)
    loss = nn.functional.cross_entropy(out.logits, y) + 0.3 * (nn.functional.cross_entropy(out.aux_logits1, y)
                                                               + nn.functional.cross_entropy(out.aux_logits2, y))
    before = model.aux1.fc1.weight.detach().numpy().copy()
    loss.backward()
    opt.step()
    assert not np.array_equal(before, model.aux1.fc1.weight.detach().numpy())
    model.eval()
    with gg.no_grad():
        assert tuple(model(x).shape) == (2, 5)
    model.train()
    model.aux_logits = False
    assert tuple(model(x).shape) == (2, 5)


def test_transform_input_renormalizes_each_channel():
    model = models.googlenet(transform_input=True, aux_logits=False, init_weights=False).eval()
    seen = {}

    def keep_input(module, inputs, output):
        seen["x"] = inputs[0].numpy()

    model.conv1.register_forward_hook(keep_input)
    x = np.random.RandomState(0).rand(1, 3, 32, 32).astype(np.float32)
    with gg.no_grad():
        model(gg.tensor(x))
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    expected = (x * std[None, :, None, None] + mean[None, :, None, None] - 0.5) / 0.5
    np.testing.assert_allclose(seen["x"], expected, rtol=1e-6, atol=1e-6)


def test_init_weights_none_warns_and_truncated_normal_init():
    gg.manual_seed(0)
    with pytest.warns(FutureWarning, match="init_weights=True"):
        model = models.googlenet(aux_logits=False)
    w = model.inception4e.branch2[1].conv.weight.detach().numpy()
    # trunc_normal_(std=0.01, a=-2, b=2): the bounds are absolute, 200 standard deviations out.
    assert abs(w.std() - 0.01) < 0.001 and 0.04 < np.abs(w).max() <= 2
    assert np.all(model.conv1.bn.weight.detach().numpy() == 1) and np.all(model.conv1.bn.bias.detach().numpy() == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        models.googlenet(init_weights=False, aux_logits=False)


def test_inception_v3_counts_names_and_aux_logits():
    gg.manual_seed(0)
    with pytest.warns(FutureWarning):
        model = models.inception_v3()
    assert count(model) == 27161264
    assert [n for n, _ in model.named_children()] == [
        "Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "maxpool1", "Conv2d_3b_1x1", "Conv2d_4a_3x3", "maxpool2",
        "Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e", "AuxLogits",
        "Mixed_7a", "Mixed_7b", "Mixed_7c", "avgpool", "dropout", "fc"]
    keys = list(model.state_dict())
    assert keys[0] == "Conv2d_1a_3x3.conv.weight" and keys[-2:] == ["fc.weight", "fc.bias"]
    assert tuple(model.Mixed_6b.branch7x7_2.conv.weight.shape) == (128, 128, 1, 7)
    assert tuple(model.Mixed_7c.branch3x3dbl_3b.conv.weight.shape) == (384, 384, 3, 1)
    assert tuple(model.AuxLogits.conv1.conv.weight.shape) == (768, 128, 5, 5)
    # Initialization: std 0.1 by default, 0.001 for the aux head's Linear (its stddev). conv1's
    # stddev 0.01 sits on the block, not on its Conv2d, so that convolution starts at 0.1 (as torchvision's).
    assert model.AuxLogits.conv1.stddev == 0.01
    for layer, std in [(model.Mixed_6b.branch1x1.conv, 0.1), (model.AuxLogits.conv1.conv, 0.1),
                       (model.AuxLogits.fc, 0.001)]:
        w = layer.weight.detach().numpy()
        assert abs(w.std() - std) < 0.05 * std
    small = models.inception_v3(aux_logits=False, init_weights=False, num_classes=3)
    assert small.AuxLogits is None and count(small) == 27161264 - count(model.AuxLogits) - 2048 * 997 - 997


def test_inception_v3_forward_shapes_and_training_step():
    gg.manual_seed(0)
    model = models.inception_v3(num_classes=4, init_weights=False)
    x = gg.randn(2, 3, 299, 299)  # the auxiliary head's 5x5 convolution needs a 17x17 grid: 299x299
    out = model(x)
    assert isinstance(out, models.InceptionOutputs) and [tuple(t.shape) for t in out] == [(2, 4), (2, 4)]
    loss = nn.functional.cross_entropy(out.logits, gg.tensor([0, 3])) + 0.4 * out.aux_logits.sum()
    loss.backward()
    assert model.AuxLogits.fc.weight.grad is not None and model.Conv2d_1a_3x3.conv.weight.grad is not None
    model.eval()
    with gg.no_grad():
        assert tuple(model(gg.randn(1, 3, 75, 75)).shape) == (1, 4)


@pytest.mark.parametrize("name", ["googlenet", "inception_v3"])
def test_pretrained_weights_are_refused(name):
    assert_pretrained_refused(name)
