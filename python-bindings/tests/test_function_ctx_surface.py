"""autograd.Function's ctx members PyTorch documents on its backward node (name(), metadata,
requires_grad, next_functions, the deprecated saved_variables) and torch.func.functionalize /
debug_unwrap. Expected values follow PyTorch's behaviour; the last test replays them on PyTorch."""
import warnings

import pytest

import glassgrad as gg


def _ctx_script(lib):
    out = {}

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x)
            out["forward"] = (repr(ctx.metadata), ctx.requires_grad, ctx.name())
            return x * 2

        @staticmethod
        def backward(ctx, g):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out["saved"] = [t.tolist() for t in ctx.saved_variables]
            out["warning"] = (caught[0].category.__name__, str(caught[0].message))
            out["next"] = [None if n is None else type(n).__name__ for n, _ in ctx.next_functions]
            ctx.metadata["seen"] = True
            out["metadata"] = dict(ctx.metadata)
            return g * 2, None

    x = lib.ones(1, requires_grad=True)
    Double.apply(x * 1, lib.ones(1)).sum().backward()
    Double.apply(x, 3.0).sum().backward()
    out["leaf_next"] = out["next"]
    return out


def test_ctx_members():
    out = _ctx_script(gg)
    assert out["forward"] == ("{}", True, "DoubleBackward")
    assert out["saved"] == [[1.0]]
    assert out["warning"] == ("DeprecationWarning", "'saved_variables' is deprecated; use 'saved_tensors'")
    assert out["leaf_next"] == ["AccumulateGrad"] and out["metadata"] == {"seen": True}


def test_functionalize_keeps_the_semantics():
    def f(a):
        a.add_(1)
        return a * 2

    x = gg.ones(2)
    y = gg.func.functionalize(f)(x)
    assert y.tolist() == [4.0, 4.0] and x.tolist() == [2.0, 2.0]  # the input mutation is written back
    g = gg.func.functionalize(lambda t: t.view(2, 1) + 1, remove="mutations_and_views")
    assert g(gg.ones(2)).tolist() == [[2.0], [2.0]]
    assert gg.func.functionalize(f).__name__ == "f"
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        gg.func.functionalize(f, remove="views")
    t = gg.ones(3)
    assert gg.func.debug_unwrap(t) is t


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _ctx_script(gg) == _ctx_script(torch)
    assert not set(torch.func.__all__) - set(gg.func.__all__)
