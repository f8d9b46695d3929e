"""grad_fn._raw_saved_<name>: PyTorch's SavedTensor objects. register_hooks(pack_hook, unpack_hook)
packs the saved tensor at once and unpacks it when a backward reaches the node: _saved_<name>
gives the unpacked value and the gradient is computed from it (for the ops whose unpacked values
glassgrad substitutes, _unpacked_gradients); a second pair raises PyTorch's RuntimeError, a
non-callable its TypeError. Expected values are PyTorch's."""
import pytest

import glassgrad as gg


def _exp(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    y = x.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t * 2, lambda t: t + 1)
    saved = y.grad_fn._saved_result.tolist()
    y.sum().backward()
    return [round(v, 10) for v in saved], [round(v, 10) for v in x.grad.tolist()]


def test_exp_result_hooks_change_the_saved_value_and_the_gradient():
    # ExpBackward0 saves its result r: grad = g * unpack(pack(r)) = 2 exp(x) + 1
    assert _exp(gg) == ([6.4365636569, 15.7781121979], [6.4365636569, 15.7781121979])


def _mul(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    z = x * w
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t * 0)  # x, saved for w's gradient
    z.sum().backward()
    return x.grad.tolist(), w.grad.tolist()


def test_mul_saved_self_hooks_reach_the_other_operands_gradient():
    assert _mul(gg) == ([4.0, 5.0, 6.0], [0.0, 0.0, 0.0])


def test_one_pair_of_hooks_and_callables_only():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    z = x * x
    saved = z.grad_fn._raw_saved_self
    with pytest.raises(TypeError, match="incompatible function arguments"):
        saved.register_hooks(1, lambda t: t)
    saved.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError) as e:
        z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value).splitlines()[0] == ("Calling register_hooks on a saved tensor whose hooks have already been "
                                            "set. Hint: only one pair of hooks is allowed at a time.")
    assert type(saved).__name__ == "SavedTensor"


def test_only_saved_tensors_have_raw_attributes():
    s = gg.tensor([1.0, 2.0], requires_grad=True).sum()
    assert "_raw_saved_self_sym_sizes" not in dir(s.grad_fn) and "_saved_self_sym_sizes" in dir(s.grad_fn)
    with pytest.raises(AttributeError):
        s.grad_fn._raw_saved_self_sym_sizes


@pytest.mark.parametrize("f", [_exp, _mul])
def test_as_torch(f):
    torch = pytest.importorskip("torch")
    assert f(gg) == f(torch)
