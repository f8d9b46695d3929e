"""x + y of two tensors of one dtype recorded by the runtime in one call (docs/performance.md,
"tenth round"): the residual adds of a training step. The result is the one PyTorch documents for
torch.add of two tensors (broadcast shapes, the common dtype, AddBackward0, both gradients), and
the cases it does not take (views, bool, mixed dtypes, inference mode, saved-tensor hooks) keep
the operator's general path. Expected values are NumPy's."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C


def _calls(monkeypatch) -> dict:
    """How often each recording call runs from now on."""
    seen = {"sum": 0, "op": 0}
    for attr, key in (("lazy_record_sum", "sum"), ("lazy_record_op", "op")):
        real = getattr(_C, attr)

        def counting(*args, _real=real, _key=key, **kwargs):
            seen[_key] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(_C, attr, counting)
    return seen


def _pair(shape_a=(2, 3, 4), shape_b=(2, 3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape_a).astype(np.float32), rng.standard_normal(shape_b).astype(np.float32)


def test_sum_of_one_dtype_is_one_runtime_call(monkeypatch):
    an, bn = _pair()
    a, b = gg.tensor(an), gg.tensor(bn)
    seen = _calls(monkeypatch)
    y = a + b
    assert seen == {"sum": 1, "op": 0}
    monkeypatch.undo()
    np.testing.assert_array_equal(y.numpy(), an + bn)


def test_values_gradients_and_node():
    an, bn = _pair((2, 3, 4), (3, 4), seed=1)
    a = gg.tensor(an, requires_grad=True)
    b = gg.tensor(bn, requires_grad=True)
    y = a + b
    assert y.shape == (2, 3, 4) and y.dtype == gg.float32 and y.requires_grad
    assert type(y.grad_fn).__name__ == "AddBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), an + bn)
    g = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    y.backward(gg.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), g, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(axis=0), rtol=1e-5, atol=1e-6)


def _block_step(add):
    """relu(bn(conv(x)) + x), the add of every ResNet block, through backward: (y, dx, dweight)."""
    x = np.random.default_rng(3).standard_normal((2, 2, 4, 4)).astype(np.float32)
    gg.manual_seed(0)
    conv, bn = gg.nn.Conv2d(2, 2, 3, padding=1, bias=False), gg.nn.BatchNorm2d(2)
    xt = gg.tensor(x, requires_grad=True)
    y = gg.relu(add(bn(conv(xt)), xt))
    y.sum().backward()
    return y.detach().numpy(), xt.grad.numpy(), conv.weight.grad.numpy()


def test_residual_block_as_torch_add():
    # The operator's result and gradients are those of gg.add (the general path) to the bit.
    for ours, general in zip(_block_step(lambda a, b: a + b), _block_step(gg.add)):
        np.testing.assert_array_equal(ours, general)


@pytest.mark.parametrize("dtype, np_dtype", [(gg.int64, np.int64), (gg.int32, np.int32), (gg.float64, np.float64),
                                             (gg.float16, np.float16), (gg.uint8, np.uint8)])
def test_other_dtypes_keep_their_dtype(dtype, np_dtype):
    an = np.arange(6).reshape(2, 3).astype(np_dtype)
    bn = (np.arange(6).reshape(2, 3) * 3 % 5).astype(np_dtype)
    y = gg.tensor(an) + gg.tensor(bn)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.numpy(), an + bn)


def test_bool_sum_is_a_logical_or():
    a, b = gg.tensor([True, False, False]), gg.tensor([True, True, False])
    y = a + b
    assert y.dtype == gg.bool and y.tolist() == [True, True, False]


def test_mixed_dtypes_promote():
    a = gg.tensor(np.ones((2, 2), np.float32))
    b = gg.tensor(np.full((2, 2), 0.5, np.float64))
    y = a + b
    assert y.dtype == gg.float64 and y.tolist() == [[1.5, 1.5], [1.5, 1.5]]
    z = gg.tensor(np.ones(3, np.int64)) + gg.tensor(np.ones(3, np.float32))
    assert z.dtype == gg.float32 and z.tolist() == [2.0, 2.0, 2.0]


def test_views_keep_their_layout():
    # Transposed inputs: the result is laid out as they are (PyTorch's strides (1, 2)).
    an, bn = _pair((3, 2), (3, 2), seed=4)
    a, b = gg.tensor(an).t(), gg.tensor(bn).t()
    y = a + b
    assert y.stride() == (1, 2)
    np.testing.assert_array_equal(y.numpy(), an.T + bn.T)
    c = gg.tensor(an).t() + gg.tensor(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(c.numpy(), an.T + 1)


def test_a_slice_and_a_tensor():
    an, bn = _pair((4, 3), (2, 3), seed=5)
    a = gg.tensor(an)
    y = a[1:3] + gg.tensor(bn)
    np.testing.assert_array_equal(y.numpy(), an[1:3] + bn)
    a.add_(1.0)  # the sum is a new tensor: writing an input later does not change it
    np.testing.assert_array_equal(y.numpy(), an[1:3] + bn)


def test_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) "
                                         r"at non-singleton dimension 1"):
        gg.ones(2, 3) + gg.ones(2, 4)


def test_inference_mode_result_is_an_inference_tensor():
    a, b = gg.ones(2), gg.ones(2)
    with gg.inference_mode():
        y = a + b
    assert y.is_inference() and y.tolist() == [2.0, 2.0]
    assert not (a + b).is_inference()


def test_under_saved_tensor_hooks(monkeypatch):
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = gg.tensor([3.0, 4.0], requires_grad=True)
    with gg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        seen = _calls(monkeypatch)
        y = a + b
        assert seen["sum"] == 0
    monkeypatch.undo()
    y.sum().backward()
    assert y.tolist() == [4.0, 6.0] and a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [1.0, 1.0]


def test_inplace_add_and_radd_unchanged():
    a = gg.tensor([1.0, 2.0])
    a += gg.tensor([0.5, 0.5])
    assert a.tolist() == [1.5, 2.5]
    assert (2 + a).tolist() == [3.5, 4.5] and (a + 1).tolist() == [2.5, 3.5]


@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_matches_pytorch(np_dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    an = (rng.standard_normal((3, 4)) * 4).astype(np_dtype)
    bn = (rng.standard_normal((4,)) * 4).astype(np_dtype)
    ours = gg.tensor(an) + gg.tensor(bn)
    theirs = torch.from_numpy(an) + torch.from_numpy(bn)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
