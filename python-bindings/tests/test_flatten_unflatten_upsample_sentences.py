"""Flatten, unflatten and interpolate / Upsample refusals carry PyTorch's sentence on their first
line (glassgrad's cause and fix after it): start_dim after end_dim, sizes that do not split the
dim, no sizes, neither size nor scale_factor, recompute_scale_factor with a size. nn.Unflatten
takes a size of 0, as PyTorch's."""
import pytest

import glassgrad as gg

nn, F = gg.nn, gg.nn.functional

CASES = [
    ("gg.ones(2, 3, 4).flatten(2, 1)", RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim"),
    ("nn.Flatten(-1, 0)(gg.ones(2, 3, 4))", RuntimeError,
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    ("gg.ones(3, 8).unflatten(1, (3, -1))", RuntimeError,
     "unflatten: Provided sizes [3, -1] don't multiply up to the size of dim 1 (8) in the input tensor"),
    ("gg.unflatten(gg.ones(3, 8), 1, (3, 3))", RuntimeError,
     "unflatten: Provided sizes [3, 3] don't multiply up to the size of dim 1 (8) in the input tensor"),
    ("gg.ones(3, 8).unflatten(1, (0, -1))", RuntimeError,
     "unflatten: Provided sizes [0, -1] don't multiply up to the size of dim 1 (8) in the input tensor"),
    ("nn.Unflatten(-1, (3, 3))(gg.ones(3, 8))", RuntimeError,
     "unflatten: Provided sizes [3, 3] don't multiply up to the size of dim 1 (8) in the input tensor"),
    ("gg.ones(3, 8).unflatten(1, ())", RuntimeError, "unflatten: sizes must be non-empty"),
    ("F.interpolate(gg.ones(1, 1, 4, 4))", ValueError, "either size or scale_factor should be defined"),
    ("nn.Upsample()(gg.ones(1, 1, 4, 4))", ValueError, "either size or scale_factor should be defined"),
    ("F.interpolate(gg.ones(1, 1, 4, 4), size=3, scale_factor=2)", ValueError,
     "only one of size or scale_factor should be defined"),
    ("F.interpolate(gg.ones(1, 1, 4, 4), size=3, recompute_scale_factor=True)", ValueError,
     "recompute_scale_factor is not meaningful with an explicit size."),
]


@pytest.mark.parametrize("call, error, sentence", CASES)
def test_the_first_line_carries_pytorchs_sentence(call, error, sentence):
    with pytest.raises(error) as e:
        eval(call, {"gg": gg, "nn": nn, "F": F})
    lines = str(e.value).splitlines()
    assert lines[0].endswith(sentence) and len(lines) > 1  # glassgrad's cause or fix follows


def test_unflatten_still_splits():
    x = gg.arange(24.0).reshape(3, 8)
    assert x.unflatten(1, (2, -1)).shape == (3, 2, 4) and x.unflatten(-1, [4, 2]).shape == (3, 4, 2)
    assert x.unflatten(1, (2, -1)).tolist() == x.reshape(3, 2, 4).tolist()
    assert gg.ones(3, 0).unflatten(1, (2, -1)).shape == (3, 2, 0)


def test_unflatten_layer_takes_a_zero_size():
    layer = nn.Unflatten(1, (0, 2))
    assert layer(gg.ones(3, 0)).shape == (3, 0, 2) and repr(layer) == "Unflatten(dim=1, unflattened_size=(0, 2))"


@pytest.mark.parametrize("call, error, sentence", CASES)
def test_pytorch_says_the_same(call, error, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as e:
        eval(call.replace("gg.", "torch."), {"torch": torch, "nn": torch.nn, "F": torch.nn.functional})
    assert str(e.value).splitlines()[0].endswith(sentence)
