"""torch.* functions that take only Tensors refuse a number, a list or None with PyTorch's
TypeError ("exp(): argument 'input' (position 1) must be Tensor, not float"), where PyTorch's own
overloads taking numbers (torch.add(2, x), torch.where(c, x, 0.)) keep working."""
import re

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _tensor_arguments


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value).splitlines()[0]


@pytest.mark.parametrize("call, headline", [
    (lambda: gg.exp(2.0), "exp(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda: gg.sum(3), "sum(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda: gg.sin([1.0]), "sin(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda: gg.mean(None), "mean(): argument 'input' (position 1) must be Tensor, not NoneType"),
    (lambda: gg.abs(np.float64(-1.0)), "abs(): argument 'input' (position 1) must be Tensor, not numpy.float64"),
    (lambda: gg.maximum(gg.ones(2), 2), "maximum(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda: gg.maximum(gg.ones(2), other=2), "maximum(): argument 'other' must be Tensor, not int"),
    (lambda: gg.sin(input=2.0), "sin(): argument 'input' must be Tensor, not float"),
    (lambda: gg.addmm(gg.ones(2, 2), gg.ones(2, 2), 1.0), "addmm(): argument 'mat2' (position 3) must be Tensor, "
                                                          "not float"),
    (lambda: gg.ones(2).maximum(2), "maximum(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda: gg.ones(2, 2).mm(1.0), "mm(): argument 'mat2' (position 1) must be Tensor, not float"),
    (lambda: gg.clamp(1.0, 0.0, 2.0), "clamp(): argument 'input' (position 1) must be Tensor, not float"),
])
def test_a_non_tensor_raises_torchs_type_error(call, headline):
    assert _message(call) == headline


def test_the_error_names_a_fix_and_is_a_glassgrad_error():
    with pytest.raises(gg.InvalidArgumentError) as info:
        gg.exp(2.0)
    assert "fix: pass a tensor" in str(info.value)


@pytest.mark.parametrize("call, expected", [
    (lambda: gg.add(gg.ones(2), 2), [3.0, 3.0]),
    (lambda: gg.add(2, gg.ones(2)), [3.0, 3.0]),
    (lambda: gg.mul(gg.ones(2), 3.0), [3.0, 3.0]),
    (lambda: gg.pow(2, gg.ones(2)), [2.0, 2.0]),
    (lambda: gg.where(gg.tensor([True, False]), gg.ones(2), 0.0), [1.0, 0.0]),
    (lambda: gg.clamp(gg.tensor([-1.0, 3.0]), min=0.0, max=2.0), [0.0, 2.0]),
    (lambda: gg.eq(gg.tensor([1.0, 2.0]), 2), [False, True]),
    (lambda: gg.exp(input=gg.zeros(2)), [1.0, 1.0]),
    (lambda: gg.conv_transpose1d(gg.ones(1, 1, 2), gg.ones(1, 1, 1), None), [[[1.0, 1.0]]]),
])
def test_numbers_stay_accepted_where_torch_takes_them(call, expected):
    assert call().tolist() == expected


def test_a_sparse_tensor_is_a_tensor_argument():
    s = gg.sparse_coo_tensor(gg.tensor([[0, 1], [1, 0]]), gg.tensor([2.0, 3.0]), (2, 2))
    assert gg.mm(s, gg.ones(2, 1)).tolist() == [[2.0], [3.0]]


def test_signatures_are_kept():
    import inspect
    assert list(inspect.signature(gg.maximum).parameters)[:2] == ["input", "other"]
    assert gg.exp.__name__ == "exp"


def test_every_listed_function_is_wrapped_and_refuses_a_number():
    for name, params in _tensor_arguments._table().items():
        fn = getattr(gg, name, None)
        if fn is None:
            continue
        i, param, _ = params[0]
        args = [gg.ones(2, 2)] * i + [2.5]
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument '{param}' \(position {i + 1}\) must be Tensor"):
            fn(*args)


def test_torch_refuses_the_same_arguments():
    torch = pytest.importorskip("torch")
    checked = 0
    for name, params in _tensor_arguments._table().items():
        if not hasattr(torch, name) or not hasattr(gg, name):
            continue
        for i, param, _ in params:
            args = [torch.ones(2, 2)] * i + [2.5]
            with pytest.raises(TypeError):
                getattr(torch, name)(*args)
            checked += 1
    assert checked > 400


def test_the_fast_paths_still_check_every_listed_argument():
    # One or two listed parameters given by position are decided by isinstance alone; a keyword,
    # a missing argument or an optional one go through the full check (docs/performance.md).
    x = gg.ones(2)
    assert gg.addcdiv(x, x, x).tolist() == [2.0, 2.0]
    assert _message(lambda: gg.addcdiv(x, x, 2.0)) == \
        "addcdiv(): argument 'tensor2' (position 3) must be Tensor, not float"
    assert _message(lambda: gg.addcdiv(2.0, x, x)) == \
        "addcdiv(): argument 'input' (position 1) must be Tensor, not float"
    assert _message(lambda: gg.maximum(x, other=[1.0])) == "maximum(): argument 'other' must be Tensor, not list"
    assert _message(lambda: x.addcmul(x, 1.0)) == "addcmul(): argument 'tensor2' (position 2) must be Tensor, not float"
    with pytest.raises(TypeError, match="other"):
        gg.maximum(x)  # the function's own error for a missing argument
    assert gg.maximum(x, gg.zeros(2)).tolist() == [1.0, 1.0]
    assert gg.maximum(input=x, other=gg.zeros(2)).tolist() == [1.0, 1.0]
    # an optional tensor parameter: None accepted, a number refused
    w = gg.ones(1, 1, 1)
    assert gg.conv_transpose1d(gg.ones(1, 1, 2), w, None).tolist() == [[[1.0, 1.0]]]
    assert _message(lambda: gg.conv_transpose1d(gg.ones(1, 1, 2), w, 1.0)) == \
        "conv_transpose1d(): argument 'bias' (position 3) must be Tensor, not float"


@pytest.mark.parametrize("keyword, position, value, kind", [
    ("pos_weight", 4, np.float64(2.0), "numpy.float64"), ("pos_weight", 4, 2.0, "float"),
    ("pos_weight", 4, [2.0, 2.0, 2.0], "list"), ("weight", 3, 2.0, "float"),
    ("weight", 3, np.ones(3), "numpy.ndarray")])
def test_bce_with_logits_weights_are_tensors_in_f_and_torch(keyword, position, value, kind):
    # a graph autoencoder passes pos_weight=<a NumPy float>: PyTorch's argument parser refuses it
    import glassgrad.nn.functional as F
    x, y = gg.zeros(3), gg.ones(3)
    headline = (f"binary_cross_entropy_with_logits(): argument '{keyword}' (position {position}) must be "
                f"Tensor, not {kind}")
    with pytest.raises(TypeError, match=re.escape(headline)):
        F.binary_cross_entropy_with_logits(x, y, **{keyword: value})
    with pytest.raises(TypeError, match=re.escape(headline)):
        gg.binary_cross_entropy_with_logits(x, y, *([None, value] if keyword == "pos_weight" else [value]))
    np.testing.assert_allclose(float(F.binary_cross_entropy_with_logits(x, y, **{keyword: gg.full((3,), 2.0)})),
                               2 * np.log(2), rtol=1e-6)


def _library_frames(fn) -> list:
    """The frames of glassgrad's package in the traceback of fn()'s TypeError."""
    import os
    import traceback
    with pytest.raises(TypeError) as info:
        fn()
    package = os.path.dirname(gg.__file__)
    return [f.name for f in traceback.extract_tb(info.value.__traceback__) if f.filename.startswith(package)]


@pytest.mark.parametrize("call", [lambda: gg.relu("a"), lambda: gg.exp(2.0), lambda: gg.mm(gg.ones(2, 2), 1.0),
                                  lambda: gg.maximum(gg.ones(2), other=2), lambda: gg.ones(2).maximum(2),
                                  lambda: gg.dot(gg.ones(2), None)])
def test_a_refusal_shows_one_frame_of_the_library(call):
    # PyTorch's check is compiled and shows none; the wrapper raises the refusal itself
    assert len(_library_frames(call)) == 1


@pytest.mark.parametrize("value", [None, "a", object()])
def test_the_fix_of_a_value_no_tensor_can_hold_shows_no_tensor_of_it(value):
    with pytest.raises(TypeError) as info:
        gg.exp(value)
    fix = str(info.value).splitlines()[-1]
    assert "fix: pass a tensor" in fix and "glassgrad.tensor(" not in fix
