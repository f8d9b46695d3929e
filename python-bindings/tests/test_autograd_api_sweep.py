"""Autograd API details as PyTorch documents and raises them: grad-mode decorators on generator
functions (the mode holds inside each step), autograd.functional's checks of v and of the
function's outputs (a constant output has a zero Jacobian unless strict), detect_anomaly's
warning, PyTorch's words for requires_grad on integer tensors and computed tensors, for a hook
returning another size or type, and backward(inputs=[computed]) filling .grad without a warning.
Expected texts and values are PyTorch's."""
import warnings

import pytest

import glassgrad as gg

F = gg.autograd.functional


@pytest.mark.parametrize("make", ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"])
def test_grad_mode_decorators_hold_inside_generators(make):
    # (set_grad_enabled(False) called as a function sets the mode at once, as PyTorch's: made only when used)
    deco = {"no_grad": gg.no_grad, "enable_grad": gg.enable_grad, "set_grad_enabled": lambda: gg.set_grad_enabled(False),
            "inference_mode": gg.inference_mode}[make]()
    expected = make == "enable_grad"

    @deco
    def steps():
        got = yield gg.is_grad_enabled()
        yield gg.is_grad_enabled(), got

    outside = gg.is_grad_enabled()
    gen = steps()
    first = next(gen)
    assert gg.is_grad_enabled() == outside  # not while the consumer runs
    second = gen.send(7)
    assert (first, second) == (expected, (expected, 7))
    assert steps.__name__ == "steps"


def test_decorated_function_keeps_its_metadata():
    @gg.no_grad()
    def f(x):
        """doc"""
        return x
    assert f.__name__ == "f" and f.__doc__ == "doc" and f.__wrapped__(3) == 3


_T = gg.tensor
# name -> (call, exact first line of the RuntimeError) or (call, None: the value to compare)
_FUNCTIONAL_ERRORS = {
    "jacobian strict constant": (lambda: F.jacobian(lambda t: _T([1.0, 1.0]), _T([1.0, 2.0]), strict=True),
                                 "Output 0 of the user-provided function does not require gradients. The outputs "
                                 "must be computed in a differentiable manner from the input when running in strict "
                                 "mode."),
    "vjp v=None, output of two": (lambda: F.vjp(lambda t: t * 2, _T([1.0, 2.0])),
                                  "The vector v can only be None if the user-provided function returns a single "
                                  "Tensor with a single element."),
    "vjp v of another size": (lambda: F.vjp(lambda t: t * 2, _T([1.0, 2.0]), _T([1.0, 1.0, 1.0])),
                              "v has invalid size: should be glassgrad.Size([2]) but got glassgrad.Size([3])."),
    "vjp v tuple length": (lambda: F.vjp(lambda t: (t * 2, t), _T([1.0, 2.0]), (_T([1.0, 1.0]),)),
                           "v is a tuple of invalid length: should be 2 but got 1."),
    "vjp two v for one output": (lambda: F.vjp(lambda t: t * 2, _T([1.0, 2.0]), (_T([1.0, 1.0]), _T([1.0, 1.0]))),
                                 "The given v should contain a single Tensor."),
    "vjp entry of another size": (lambda: F.vjp(lambda t: (t * 2, t * 3), _T([1.0, 2.0]), (_T([1.0, 1.0]), _T([1.0]))),
                                  "Entry 1 in v has invalid size: should be glassgrad.Size([2]) but got "
                                  "glassgrad.Size([1])."),
    "vjp strict, unused input": (lambda: F.vjp(lambda a, b: a * 2, (_T([1.0, 2.0]), _T([1.0])), _T([1.0, 1.0]),
                                               strict=True),
                                 "The output of the user-provided function is independent of input 1. This is not "
                                 "allowed in strict mode."),
    "hessian of a vector": (lambda: F.hessian(lambda t: t ** 3, _T([1.0, 2.0])),
                            "The Tensor returned by the function given to hessian should contain a single element"),
    "hessian of a tuple": (lambda: F.hessian(lambda t: (t.sum(),), _T([1.0, 2.0])),
                           "The function given to hessian should return a single Tensor"),
    "hvp of a vector": (lambda: F.hvp(lambda t: t ** 3, _T([1.0, 2.0]), _T([1.0, 1.0])),
                        "The Tensor returned by the function given to hvp should contain a single element"),
    "vhp of a vector": (lambda: F.vhp(lambda t: t ** 3, _T([1.0, 2.0]), _T([1.0, 1.0])),
                        "The Tensor returned by the function given to vhp should contain a single element"),
    "jvp v of another size": (lambda: F.jvp(lambda t: t ** 3, _T([1.0, 2.0]), _T([1.0])),
                              "v has invalid size: should be glassgrad.Size([2]) but got glassgrad.Size([1])."),
}


@pytest.mark.parametrize("name", list(_FUNCTIONAL_ERRORS))
def test_functional_errors(name):
    call, message = _FUNCTIONAL_ERRORS[name]
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value).splitlines()[0] == message


def test_functional_constant_outputs_give_zeros():
    assert F.jacobian(lambda t: gg.ones(2), _T([1.0, 2.0])).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    out, g = F.vjp(lambda t: gg.ones(2), _T([1.0, 2.0]), _T([1.0, 1.0]))
    assert out.tolist() == [1.0, 1.0] and g.tolist() == [0.0, 0.0]
    out, g = F.vjp(lambda a, b: a * 2, (_T([1.0, 2.0]), _T([1.0])), _T([1.0, 1.0]))
    assert [t.tolist() for t in g] == [[2.0, 2.0], [0.0]]


@pytest.mark.parametrize("name", [n for n in _FUNCTIONAL_ERRORS if "Size" not in _FUNCTIONAL_ERRORS[n][1]])
def test_functional_errors_as_torch(name):
    torch = pytest.importorskip("torch")
    call, message = _FUNCTIONAL_ERRORS[name]
    global F, _T
    saved = F, _T
    F, _T = torch.autograd.functional, torch.tensor
    try:
        with pytest.raises(RuntimeError) as e:
            call()
    finally:
        F, _T = saved
    assert str(e.value).splitlines()[0] == message


def test_detect_anomaly_warns_as_pytorch():
    with pytest.warns(UserWarning, match="^Anomaly Detection has been enabled. This mode will increase the runtime "
                                         "and should only be enabled for debugging.$"):
        with gg.autograd.detect_anomaly():
            pass


def test_requires_grad_words():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients"):
        gg.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients"):
        gg.tensor([1, 2]).requires_grad = True
    for make in (lambda: gg.tensor([1, 2], requires_grad=True), lambda: gg.ones(2, dtype=gg.int64, requires_grad=True),
                 lambda: gg.full((2,), 1, requires_grad=True), lambda: gg.arange(3, requires_grad=True)):
        with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require "
                                               "gradients"):
            make()
    y = gg.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError) as e:
        y.requires_grad_(False)
    assert str(e.value).splitlines()[0] == (
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
        "subgraph that doesn't require differentiation use var_no_grad = var.detach().")


def test_hook_changing_size_or_type():
    def half(g):
        return g[:1]
    a = gg.ones(3, requires_grad=True)
    a.register_hook(half)
    with pytest.raises(RuntimeError, match="(?m)^hook 'half' has changed the size of value$"):
        (a * 2).sum().backward()
    b = gg.ones(3, requires_grad=True)
    b.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match=r"(?m)^hook '<lambda>' has changed the type of value \(was glassgrad.FloatTensor "
                                           r"got glassgrad.DoubleTensor\)$"):
        (b * 2).sum().backward()


def test_backward_inputs():
    a = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.sum().backward(inputs=[b])
        assert b.grad.tolist() == [1.0, 1.0, 1.0] and a.grad is None
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        (a * 2).sum().backward(inputs=[])


class _Twice(gg.autograd.Function):
    @staticmethod
    def forward(ctx, a, n):
        return a * n

    @staticmethod
    def backward(ctx, g):
        return g * 2, gg.tensor(1.0)  # a gradient for the number n: PyTorch refuses it


class _NoJvp(gg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_custom_function_gradient_for_a_non_tensor_argument_is_refused():
    a = gg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        _Twice.apply(a, 2).sum().backward()
    assert str(e.value).splitlines()[0] == ("function _TwiceBackward returned a gradient different than None at "
                                            "position 2, but the corresponding forward input was not a Variable")


def test_custom_function_without_jvp_refuses_dual_tensors():
    fwad = gg.autograd.forward_ad
    with fwad.dual_level():
        dual = fwad.make_dual(gg.tensor([1.0, 2.0]), gg.tensor([1.0, 1.0]))
        for arg in (dual, dual * 3):
            with pytest.raises(NotImplementedError) as e:
                _NoJvp.apply(arg)
            assert str(e.value).splitlines()[0] == ("You must implement the jvp function for custom autograd.Function "
                                                    "to use it with forward mode AD.")
        assert _NoJvp.apply(gg.tensor([1.0], requires_grad=True)).requires_grad  # no tangent: runs


def test_module_paths():
    from glassgrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
    assert detect_anomaly is gg.autograd.detect_anomaly and set_detect_anomaly is gg.autograd.set_detect_anomaly
    node = (gg.ones(2, requires_grad=True) * 2).grad_fn
    assert isinstance(node, gg.autograd.graph.Node)
    assert callable(gg.autograd.graph.Node.register_hook) and callable(gg.autograd.graph.Node.register_prehook)


def test_set_multithreading_enabled_as_pytorchs():
    from glassgrad.autograd import grad_mode
    with gg.autograd.set_multithreading_enabled(False):
        assert not grad_mode.is_multithreading_enabled()
    assert grad_mode.is_multithreading_enabled()
    gg.autograd.set_multithreading_enabled(False)
    assert not grad_mode.is_multithreading_enabled()  # a call sets it, as PyTorch's
    gg.autograd.set_multithreading_enabled(True)
    assert grad_mode.is_multithreading_enabled()
