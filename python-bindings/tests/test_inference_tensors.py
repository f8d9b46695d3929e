"""Tensors made inside inference_mode(), used outside it, as PyTorch documents them: an op autograd
records may not save one for its gradient ("Inference tensors cannot be saved for backward"), one
that saves none of its inputs (add, sub, cat) takes it; an in-place update of one raises with or
without grad mode; a view of one is one too; a clone is a normal tensor."""
import numpy as np
import pytest

import glassgrad as gg

_SAVED = "Inference tensors cannot be saved for backward"
_INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed"


def _inference(*shape):
    with gg.inference_mode():
        return gg.ones(*shape)


@pytest.mark.parametrize("name,fn", [
    ("mul", lambda t, p: t * p),
    ("div", lambda t, p: p / t),
    ("matmul", lambda t, p: t @ p),
    ("linear layer", lambda t, p: gg.nn.functional.linear(t[None], p[None])),
])
def test_an_op_that_saves_the_inference_tensor_for_backward_raises(name, fn):
    t, p = _inference(3), gg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=_SAVED):
        fn(t, p)


def test_a_layer_fed_an_inference_tensor_outside_inference_mode_raises():
    with gg.inference_mode():
        x = gg.randn(4, 3)
    with pytest.raises(RuntimeError, match=f"(?s){_SAVED}.*fix: x = x.clone"):
        gg.nn.Linear(3, 2)(x)
    out = gg.nn.Linear(3, 2)(x.clone())  # a clone is a normal tensor
    out.sum().backward()


@pytest.mark.parametrize("name,fn", [
    ("add", lambda t, p: t + p), ("sub", lambda t, p: p - t), ("cat", lambda t, p: gg.cat([t, p])),
])
def test_an_op_that_saves_no_input_takes_an_inference_tensor(name, fn):
    t, p = _inference(3), gg.ones(3, requires_grad=True)
    fn(t, p).sum().backward()
    assert p.grad is not None


def test_without_autograd_recording_inference_tensors_mix_freely():
    t, p = _inference(3), gg.ones(3, requires_grad=True)
    with gg.no_grad():
        np.testing.assert_array_equal((t * p).numpy(), [1.0, 1.0, 1.0])
    assert (t * gg.ones(3)).tolist() == [1.0, 1.0, 1.0]  # nothing requires grad: nothing is recorded
    assert not (t * 2).is_inference()


@pytest.mark.parametrize("name,update", [
    ("add_", lambda t: t.add_(1)), ("mul_", lambda t: t.mul_(2)), ("zero_", lambda t: t.zero_()),
    ("fill_", lambda t: t.fill_(3)), ("copy_", lambda t: t.copy_(gg.zeros(3))),
    ("setitem", lambda t: t.__setitem__(0, 5.0)),
])
def test_an_in_place_update_of_an_inference_tensor_outside_inference_mode_raises(name, update):
    t = _inference(3)
    with pytest.raises(RuntimeError, match=f"(?s){_INPLACE}.*fix: x = x.clone"):
        update(t)
    with gg.no_grad(), pytest.raises(RuntimeError, match=_INPLACE):
        update(t)
    with gg.inference_mode():
        update(t)  # inside inference mode it is allowed


def test_a_view_of_an_inference_tensor_is_one_and_a_computed_tensor_is_not():
    t = _inference(2, 3)
    assert t.is_inference() and t.view(6).is_inference() and t[0].is_inference() and t.t().is_inference()
    assert t.detach().is_inference()
    assert not (t + 1).is_inference() and not t.clone().is_inference()
    with pytest.raises(RuntimeError, match=_INPLACE):
        t.view(6).add_(1)


def test_an_in_place_update_of_a_normal_tensor_from_an_inference_one_is_allowed():
    t, x = _inference(3), gg.zeros(3)
    x.add_(t)
    assert x.tolist() == [1.0, 1.0, 1.0]
