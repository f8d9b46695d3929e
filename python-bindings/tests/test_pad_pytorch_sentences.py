"""F.pad's refusals start with PyTorch's sentence (after 'pad: '), glassgrad's cause and fix after
it, keeping their exception types (RuntimeError; NotImplementedError for an unsupported rank or
mode)."""
import numpy as np
import pytest

import glassgrad as gg

F = gg.nn.functional

CASES = [
    ((2, 3, 5), (1, 1, 1), "constant", RuntimeError, "Padding length must be divisible by 2"),
    ((2, 3), (1, 1, 1, 1, 1, 1), "constant", RuntimeError, "Padding length should be less than or equal to two "
     "times the input dimension but got padding length 6 and input of dimension 2"),
    ((2, 3, 6), (6, 1), "reflect", RuntimeError, "Argument #4: Padding size should be less than the corresponding "
     "input dimension, but got: padding (6, 1) at dimension 2 of input [2, 3, 6]"),
    ((2, 3, 5), (6, 0), "circular", RuntimeError, "Padding value causes wrapping around more than once."),
    ((5,), (1, 1), "reflect", NotImplementedError, "Padding size 2 is not supported for 1D input tensor."),
    ((2, 3, 4, 5), (1, 1), "replicate", NotImplementedError, "Padding size 2 is not supported for 4D input tensor."),
    ((2, 3, 5), (1, 1), "edge", NotImplementedError, "Unrecognised padding mode edge"),
]


@pytest.mark.parametrize("shape, pad, mode, error, sentence", CASES)
def test_first_line_is_pytorchs_sentence(shape, pad, mode, error, sentence):
    with pytest.raises(error) as e:
        F.pad(gg.zeros(*shape), pad, mode)
    lines = str(e.value).splitlines()
    assert lines[0] == "pad: " + sentence and "fix:" in lines[-1]


def test_value_with_a_non_constant_mode():
    with pytest.raises(RuntimeError) as e:
        F.pad(gg.zeros(1, 2, 3), (1, 1), "reflect", value=1.0)
    assert str(e.value).splitlines()[0] == 'pad: Padding mode "reflect" doesn\'t take in value argument'


def test_padding_still_pads():
    assert F.pad(gg.arange(3.0).reshape(1, 1, 3), (1, 1), "reflect").tolist() == [[[1.0, 0.0, 1.0, 2.0, 1.0]]]


@pytest.mark.parametrize("shape, pad, mode, error, sentence", CASES)
def test_pytorch_says_the_same(shape, pad, mode, error, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(error) as e:
        torch.nn.functional.pad(torch.tensor(np.zeros(shape)), pad, mode)
    assert str(e.value).splitlines()[0] == sentence
