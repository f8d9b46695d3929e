"""grid_sample with a grid whose last size is not the input's spatial rank, unfold / fold of an
input of another rank and gelu with an unknown approximate string raise PyTorch's sentence on
the first line (after glassgrad's call name where the project prefixes one), glassgrad's cause and
fix after it."""
import pytest

import glassgrad as gg

F = gg.nn.functional

CASES = [
    ("F.grid_sample(gg.ones(1, 2, 3, 4), gg.ones(1, 2, 3, 3), align_corners=False)", RuntimeError, "",
     "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [1, 2, 3, 3]"),
    ("F.grid_sample(gg.ones(1, 2, 3, 4, 5), gg.ones(1, 2, 3, 4, 2), align_corners=False)", RuntimeError, "",
     "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with sizes [1, 2, 3, 4, 2]"),
    ("F.unfold(gg.ones(1, 2, 3, 4, 5), 2)", RuntimeError, "unfold: ",
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [1, 2, 3, 4, 5]"),
    ("F.fold(gg.ones(1, 2, 3, 4), (4, 4), 2)", RuntimeError, "fold: ",
     "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
     "input, but got: [1, 2, 3, 4]"),
    ("F.gelu(gg.ones(2), approximate='fast')", RuntimeError, "gelu: ", "approximate argument must be either none or tanh."),
]


@pytest.mark.parametrize("call, error, prefix, sentence", CASES)
def test_first_line_carries_pytorchs_sentence(call, error, prefix, sentence):
    with pytest.raises(error) as e:
        eval(call, {"gg": gg, "F": F})
    lines = str(e.value).splitlines()
    assert lines[0] == prefix + sentence and "fix:" in lines[-1]


def test_valid_calls_still_work():
    assert F.gelu(gg.zeros(2), approximate="tanh").tolist() == [0.0, 0.0]
    assert tuple(F.unfold(gg.ones(1, 2, 3, 3), 2).shape) == (1, 8, 4)
    assert tuple(F.grid_sample(gg.ones(1, 2, 3, 4), gg.zeros(1, 5, 6, 2), align_corners=False).shape) == (1, 2, 5, 6)


@pytest.mark.parametrize("call, error, prefix, sentence", CASES)
def test_pytorch_says_the_same(call, error, prefix, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as e:
        eval(call.replace("gg.", "torch."), {"torch": torch, "F": torch.nn.functional})
    assert str(e.value).splitlines()[0] == sentence
