"""Python numbers beside tensors as PyTorch converts them (docs/porting.md, "Python numbers beside
tensors"): torch.where's numbers convert checked to the result's dtype (int8's 300 and int64's
2**63 are refused, uint8's -1 wraps), the refusal's first line is PyTorch's sentence naming the C
type of a Scalar (int8_t, int for int32) as fill_, full, clamp and pow give it, or the dtype for
torch.tensor's data; torch.add / sub / mul / rsub read an int of [2**63, 2**64) as the int64
PyTorch reads (2**64 - 1 is -1) for integer tensors, as x + n does; where's condition of
another dtype is refused naming PyTorch's type name. The expected values are PyTorch 2.14's;
the last test compares with torch when it is installed."""
import numpy as np
import pytest

import glassgrad as gg

COND = [True, False, True]


def _where(dtype, value):
    return gg.where(gg.tensor(COND), gg.tensor([1, 2, 3], dtype=dtype), value)


@pytest.mark.parametrize("dtype,value,name", [
    ("int8", 300, "int8_t"), ("int8", -300, "int8_t"), ("uint8", 2 ** 40, "uint8_t"), ("int16", 2 ** 40, "int16_t"),
    ("int32", 2 ** 40, "int"), ("int64", 2 ** 63, "int64_t"), ("int64", 2 ** 64 - 1, "int64_t"),
    ("float32", 1e40, "float"), ("int64", 1e40, "float")])
def test_where_refuses_a_number_the_result_cannot_hold(dtype, value, name):
    with pytest.raises(RuntimeError) as info:
        _where(getattr(gg, dtype), value)
    assert str(info.value).splitlines()[0] == f"value cannot be converted to type {name} without overflow"
    assert "where:" in str(info.value) and "fix:" in str(info.value)


@pytest.mark.parametrize("dtype,value,expected,result", [
    ("uint8", -1, [1, 255, 3], "uint8"), ("int8", 127, [1, 127, 3], "int8"), ("int64", 2 ** 63 - 1, [1, 2 ** 63 - 1, 3],
                                                                          "int64"),
    ("int64", 2.5, [1.0, 2.5, 3.0], "float32"), ("float16", 1e10, [1.0, np.inf, 3.0], "float16")])
def test_where_takes_a_number_the_result_holds(dtype, value, expected, result):
    out = _where(getattr(gg, dtype), value)
    assert out.dtype == getattr(gg, result)
    assert out.tolist() == expected


@pytest.mark.parametrize("make,name", [
    (lambda: gg.zeros(2, dtype=gg.int8).fill_(300), "int8_t"),
    (lambda: gg.full((2,), 2 ** 40, dtype=gg.int32), "int"),
    (lambda: gg.zeros(2, dtype=gg.uint8).clamp(max=2 ** 40), "uint8_t"),
    (lambda: gg.full((2,), 2 ** 63), "int64_t"),
    (lambda: gg.tensor([300], dtype=gg.uint8), "uint8"),
    (lambda: gg.tensor([2 ** 40], dtype=gg.int32), "int32")])
def test_the_refusal_names_the_type_as_pytorch(make, name):
    with pytest.raises(RuntimeError) as info:
        make()
    assert str(info.value).splitlines()[0] == f"value cannot be converted to type {name} without overflow"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_where_refuses_a_condition_of_another_dtype(dtype):
    name = {"float32": "Float", "float64": "Double", "int64": "Long"}.get(dtype)
    cond = gg.tensor([1, 0, 1], dtype=getattr(gg, dtype))
    if name is None:  # uint8 is taken, with PyTorch's deprecation warning
        with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
            assert gg.where(cond, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]
        return
    with pytest.raises(RuntimeError) as info:
        gg.where(cond, 1.0, 0.0)
    assert str(info.value).splitlines()[0] == \
        f"where expected condition to be a boolean tensor, but got a tensor with dtype {name}"


ONES = [1, 2]


@pytest.mark.parametrize("fn,expected", [
    (lambda x, n: gg.add(x, n), [0, 1]), (lambda x, n: gg.add(n, x), [0, 1]), (lambda x, n: gg.sub(x, n), [2, 3]),
    (lambda x, n: gg.subtract(x, n), [2, 3]), (lambda x, n: gg.mul(x, n), [-1, -2]),
    (lambda x, n: gg.multiply(n, x), [-1, -2]), (lambda x, n: gg.rsub(x, n), [-2, -3]),
    (lambda x, n: gg.sub(n, x), [-2, -3]), (lambda x, n: x.add(n), [0, 1]), (lambda x, n: x + n, [0, 1])])
def test_an_int_from_2_63_reads_as_int64_in_the_function_forms(fn, expected):
    assert fn(gg.tensor(ONES), 2 ** 64 - 1).tolist() == expected


def test_a_float_tensor_takes_the_int_as_it_is():
    assert gg.add(gg.tensor([1.0], dtype=gg.float64), 2 ** 64 - 1).tolist() == [float(2 ** 64)]
    np.testing.assert_allclose(gg.div(gg.tensor(ONES), 2 ** 64 - 1).numpy(), np.array(ONES) / 2.0 ** 64, rtol=1e-6)


@pytest.mark.parametrize("cond,x,y,sentence", [
    ((2,), (3,), (3,), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((3,), (2,), (3,), "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    ((2, 3), (3,), (4,), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ((2, 1), (4, 1, 3), (5,), "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 2"),
    ((4, 1), (3, 2), (1,), "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((2, 3), (2, 3), (4, 3), "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0")])
def test_where_broadcast_failure_is_pytorchs_sentence(cond, x, y, sentence):
    with pytest.raises(RuntimeError) as info:
        gg.where(gg.ones(*cond, dtype=gg.bool), gg.zeros(*x), gg.ones(*y))
    first, *rest = str(info.value).splitlines()
    assert first.endswith(sentence)
    shapes = f"{list(cond)}, {list(x)} and {list(y)}"
    assert any(f"shapes {shapes} cannot be broadcast together" in line for line in rest)


def test_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib, f):
        try:
            return f(lib).tolist()
        except RuntimeError as e:
            return str(e).splitlines()[0].split(": ")[-1]
    cases = [lambda m: m.where(m.tensor(COND), m.tensor([1, 2, 3], dtype=m.int8), 300),
             lambda m: m.where(m.tensor(COND), m.tensor([1, 2, 3]), 2 ** 63),
             lambda m: m.where(m.tensor(COND), m.tensor([1, 2, 3], dtype=m.uint8), -1),
             lambda m: m.where(m.ones(2, 3, dtype=m.bool), m.zeros(4), 1.0),
             lambda m: m.where(m.tensor([1.0, 0.0]), 1.0, 0.0),
             lambda m: m.mul(m.tensor(ONES), 2 ** 64 - 1), lambda m: m.rsub(m.tensor(ONES), 2 ** 64 - 1),
             lambda m: m.full((2,), 300, dtype=m.uint8)]
    for f in cases:
        assert outcome(gg, f) == outcome(torch, f)
