"""Binary elementwise ops on shapes that do not broadcast raise with PyTorch's sentence first
(docs/porting.md): the rightmost mismatching dimension, counted in the broadcast result."""
import re

import pytest

import glassgrad as gg

CASES = [
    ((2, 2), (1, 3), 2, 3, 1),
    ((2, 3), (4, 5), 3, 5, 1),
    ((4, 2, 3), (5, 3), 2, 5, 1),
    ((3,), (4,), 3, 4, 0),
    ((2, 1, 3), (4, 2), 3, 2, 2),
    ((2, 2), (3, 1, 3), 2, 3, 2),
]


@pytest.mark.parametrize("a, b, sa, sb, dim", CASES)
def test_the_first_line_is_pytorchs_sentence(a, b, sa, sb, dim):
    sentence = f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {dim}"
    with pytest.raises(RuntimeError, match=re.escape(sentence)) as info:
        gg.ones(*a) * gg.ones(*b)
    assert isinstance(info.value, gg.ShapeError)
    first, *rest = str(info.value).splitlines()
    assert first.endswith(sentence)
    assert any(f"shapes {list(a)} and {list(b)} cannot be broadcast together" in line for line in rest)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "pow", "eq"])
def test_every_binary_op_says_it(op):
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        getattr(gg, op)(gg.ones(2, 2), gg.ones(2, 3))
