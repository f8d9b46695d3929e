"""Layer constructors refuse bad sizes with PyTorch's own sentence first (after the layer's call)
and glassgrad's cause and fix after it, keeping PyTorch's exception types: recurrent layers'
sizes, MultiheadAttention's embed_dim and num_heads, convolutions' groups and padding strings,
GroupNorm's num_groups."""
import pytest

import glassgrad as gg

nn = gg.nn

CASES = [
    ("nn.LSTM(0, 3)", ValueError, "input_size must be greater than zero"),
    ("nn.GRU(3, 0)", ValueError, "hidden_size must be greater than zero"),
    ("nn.RNN(3, -1)", ValueError, "hidden_size must be greater than zero"),
    ("nn.LSTM(3, 2.5)", TypeError, "hidden_size should be of type int, got: float"),
    ("nn.LSTM(3.0, 2)", TypeError, "input_size should be of type int, got: float"),
    ("nn.GRU(3, 4, num_layers=0)", ValueError, "num_layers must be greater than zero"),
    ("nn.LSTM(3, 4, proj_size=-1)", ValueError,
     "proj_size should be a positive integer or zero to disable projections"),
    ("nn.MultiheadAttention(0, 1)", ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=1 instead"),
    ("nn.MultiheadAttention(8, 0)", ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=8 and num_heads=0 instead"),
    ("nn.Conv2d(4, 4, 3, groups=0)", ValueError, "groups must be a positive integer"),
    ("nn.Conv1d(4, 4, 3, groups=-2)", ValueError, "groups must be a positive integer"),
    ("nn.ConvTranspose2d(4, 4, 3, groups=0)", ValueError, "groups must be a positive integer"),
    ("nn.Conv2d(3, 4, 3, groups=2)", ValueError, "in_channels must be divisible by groups"),
    ("nn.Conv2d(4, 3, 3, groups=2)", ValueError, "out_channels must be divisible by groups"),
    ("nn.Conv2d(3, 4, 3, padding='bad')", ValueError, "Invalid padding string 'bad', should be one of"),
    ("nn.Conv1d(3, 4, 3, padding='full')", ValueError, "Invalid padding string 'full', should be one of"),
    ("nn.GroupNorm(3, 4)", ValueError, "num_channels (4) must be divisible by num_groups (3)"),
    ("nn.Bilinear(0, 2, 3)", ValueError, "in1_features must be > 0, but got (in1_features=0)"),
]


@pytest.mark.parametrize("call, error, sentence", CASES)
def test_the_first_line_carries_pytorchs_sentence(call, error, sentence):
    with pytest.raises(error) as e:
        eval(call, {"nn": nn})
    first = str(e.value).splitlines()[0]
    assert sentence in first
    assert "fix:" in str(e.value) or "cause:" in str(e.value)  # glassgrad's cause and fix follow


def test_valid_sizes_still_build():
    assert nn.LSTM(3, 4, num_layers=2, proj_size=2).proj_size == 2
    assert nn.MultiheadAttention(8, 2).head_dim == 4
    assert nn.Conv2d(4, 6, 3, groups=2, padding="same").groups == 2
    assert nn.GroupNorm(2, 4).num_groups == 2


@pytest.mark.parametrize("call, error, sentence", CASES)
def test_pytorch_says_the_same(call, error, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as e:
        eval(call, {"nn": torch.nn})
    assert sentence in str(e.value)
