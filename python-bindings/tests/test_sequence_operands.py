"""A Python list or tuple is no tensor operand, as in PyTorch: x + [1, 2] and torch.add(x, [1, 2])
are TypeErrors, x == [1, 2] is False (Python's identity fallback), x += [1, 2] leaves x as it was.
NumPy arrays and numbers still take part."""
import numpy as np
import pytest

import glassgrad as gg

OPERATORS = {
    "x + l": lambda x, v: x + v, "l + x": lambda x, v: v + x, "x - l": lambda x, v: x - v,
    "l - x": lambda x, v: v - x, "x * l": lambda x, v: x * v, "l * x": lambda x, v: v * x,
    "x / l": lambda x, v: x / v, "l / x": lambda x, v: v / x, "x // l": lambda x, v: x // v,
    "x % l": lambda x, v: x % v, "x ** l": lambda x, v: x ** v, "l ** x": lambda x, v: v ** x,
    "x @ l": lambda x, v: x @ v, "x < l": lambda x, v: x < v, "x >= l": lambda x, v: x >= v,
}
FUNCTIONS = {
    "add": lambda fw, x, v: fw.add(x, v), "mul": lambda fw, x, v: fw.mul(x, v),
    "sub": lambda fw, x, v: fw.sub(x, v), "div": lambda fw, x, v: fw.div(x, v),
    "eq": lambda fw, x, v: fw.eq(x, v), "lt": lambda fw, x, v: fw.lt(x, v),
    "where": lambda fw, x, v: fw.where(x > 1, x, v), "Tensor.add": lambda fw, x, v: x.add(v),
    "Tensor.mul": lambda fw, x, v: x.mul(v), "Tensor.eq": lambda fw, x, v: x.eq(v),
}
SEQUENCES = [[1.0, 2.0], (2, 3)]


@pytest.mark.parametrize("seq", SEQUENCES)
@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_an_operator_with_a_sequence_is_a_type_error(name, seq):
    x = gg.tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        OPERATORS[name](x, seq)


@pytest.mark.parametrize("seq", SEQUENCES)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_function_with_a_sequence_is_a_type_error(name, seq):
    with pytest.raises(TypeError, match="list|tuple"):
        FUNCTIONS[name](gg, gg.tensor([1.0, 2.0]), seq)


def test_equality_with_a_sequence_is_identity():
    x = gg.tensor([1.0, 2.0])
    assert (x == [1.0, 2.0]) is False and (x != [1.0, 2.0]) is True
    assert (x == (1.0, 2.0)) is False and ([1.0, 2.0] == x) is False


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_an_augmented_assignment_with_a_list_leaves_the_tensor(op):
    x = gg.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"\+=|-=|\*=|/="):
        exec(f"x {op} [5.0, 7.0]", {}, {"x": x})
    assert x.tolist() == [1.0, 2.0] and x._version == 0


def test_arrays_and_numbers_still_take_part():
    x = gg.tensor([1.0, 2.0])
    assert (x + np.array([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert (x * np.float64(2.0)).tolist() == [2.0, 4.0]
    assert gg.add(x, 1).tolist() == [2.0, 3.0]


@pytest.mark.parametrize("seq", SEQUENCES)
def test_sequence_operands_as_torch(seq):
    torch = pytest.importorskip("torch")

    def outcome(fw, fn):
        try:
            r = fn(fw, fw.tensor([1.0, 2.0]))
        except TypeError:
            return "TypeError"
        return r if isinstance(r, bool) else r.tolist()

    for name, op in OPERATORS.items():
        assert outcome(gg, lambda fw, x: op(x, seq)) == outcome(torch, lambda fw, x: op(x, seq)), name
    for name, fn in FUNCTIONS.items():
        assert outcome(gg, lambda fw, x: fn(fw, x, seq)) == outcome(torch, lambda fw, x: fn(fw, x, seq)), name
    for fw in (torch, gg):
        assert (fw.tensor([1.0, 2.0]) == seq) is False
