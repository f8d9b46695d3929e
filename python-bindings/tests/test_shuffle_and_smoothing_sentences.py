"""pixel_shuffle / pixel_unshuffle factors below 1 and cross_entropy's label_smoothing out of
[0, 1] are refused with PyTorch's RuntimeError sentence on the first line (after the call), then
glassgrad's cause and fix; the layers say the same at their call, as PyTorch's."""
import pytest

import glassgrad as gg

nn, F = gg.nn, gg.nn.functional

CASES = [
    ("F.pixel_shuffle(gg.ones(1, 4, 2, 2), 0)", "pixel_shuffle expects a positive upscale_factor, but got 0"),
    ("F.pixel_unshuffle(gg.ones(1, 1, 4, 4), -1)", "pixel_unshuffle expects a positive downscale_factor, but got -1"),
    ("F.cross_entropy(gg.ones(2, 3), gg.tensor([0, 1]), label_smoothing=1.5)",
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
]
LAYERS = [
    ("nn.PixelShuffle(0)(gg.ones(1, 4, 2, 2))", "pixel_shuffle expects a positive upscale_factor, but got 0"),
    ("nn.PixelUnshuffle(-2)(gg.ones(1, 1, 4, 4))", "pixel_unshuffle expects a positive downscale_factor, but got -2"),
    # the loss module refuses it at its call, as PyTorch's does
    ("nn.CrossEntropyLoss(label_smoothing=2)(gg.ones(2, 3), gg.tensor([0, 1]))",
     "label_smoothing must be between 0.0 and 1.0. Got: 2"),
]


@pytest.mark.parametrize("call, sentence", CASES + LAYERS)
def test_the_first_line_carries_pytorchs_sentence(call, sentence):
    with pytest.raises(RuntimeError) as e:
        eval(call, {"gg": gg, "nn": nn, "F": F})
    first, rest = str(e.value).split("\n", 1)
    assert first.endswith(": " + sentence) and "fix:" in rest


def test_a_label_smoothing_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        F.cross_entropy(gg.ones(2, 3), gg.tensor([0, 1]), label_smoothing="0.1")


def test_valid_values_still_work():
    assert F.pixel_shuffle(gg.ones(1, 4, 2, 2), 2).shape == (1, 1, 4, 4)
    assert nn.PixelUnshuffle(2)(gg.ones(1, 1, 4, 4)).shape == (1, 4, 2, 2)
    loss = F.cross_entropy(gg.zeros(2, 3), gg.tensor([0, 1]), label_smoothing=1.0)
    assert abs(loss.item() - 1.0986123) < 1e-5  # log(3): uniform logits give log(C) whatever the smoothing


@pytest.mark.parametrize("call, sentence", CASES)
def test_pytorch_says_the_same(call, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as e:
        eval(call.replace("gg.", "torch."), {"torch": torch, "nn": torch.nn, "F": torch.nn.functional})
    assert str(e.value).splitlines()[0] == sentence
