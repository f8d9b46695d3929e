"""nn.init's errors begin with PyTorch's own text (scripts and tests match on it) and are
ValueErrors, as PyTorch's; glassgrad's detail follows. The last test compares with PyTorch."""
import pytest

import glassgrad as gg

I = gg.nn.init

CASES = [
    (lambda lib: lib.nn.init.dirac_(lib.empty(4, 2)), "Only tensors with 3, 4, or 5 dimensions are supported"),
    (lambda lib: lib.nn.init.orthogonal_(lib.empty(3)), "Only tensors with 2 or more dimensions are supported"),
    (lambda lib: lib.nn.init.sparse_(lib.empty(3, 3, 3), 0.1), "Only tensors with 2 dimensions are supported"),
    (lambda lib: lib.nn.init.eye_(lib.empty(2, 3, 4)), "Only tensors with 2 dimensions are supported"),
    (lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"), "negative_slope x not a valid number"),
    (lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="fan_x"),
     "Mode fan_x not supported, please use one of ['fan_in', 'fan_out']"),
    (lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
     "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_messages_start_with_pytorchs(i):
    call, text = CASES[i]
    with pytest.raises(ValueError) as caught:
        call(gg)
    assert str(caught.value).startswith(text)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_against_pytorch(i):
    torch = pytest.importorskip("torch")
    call, _ = CASES[i]
    with pytest.raises(ValueError) as theirs:
        call(torch)
    with pytest.raises(ValueError) as ours:
        call(gg)
    assert str(ours.value).startswith(str(theirs.value))
