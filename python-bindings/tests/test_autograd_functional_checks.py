"""autograd.functional's argument checks and strict mode, as PyTorch's: inputs, outputs and v must be a
Tensor or a tuple of Tensors (TypeError naming which), strict mode's errors name the stage that found an
input unused or a derivative constant (hessian's inner Jacobian of a linear function), and func is
called once per jvp (docs/autograd.md)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.autograd import functional as AF

_A, _B = [1.0, 2.0], [3.0]
_SCALAR = ("hessian", "hvp", "vhp")


def _call(lib, fn, f, inputs, **kw):
    """fn of lib's autograd.functional on f, with a v of ones where fn takes one."""
    F = getattr(lib.autograd.functional, fn)
    if fn in ("jacobian", "hessian"):
        return F(f, inputs, **kw)
    if fn == "vjp":
        out = f(*inputs) if isinstance(inputs, (tuple, list)) else f(inputs)
        return F(f, inputs, _ones(lib, out), **kw)
    return F(f, inputs, _ones(lib, inputs), **kw)


def _ones(lib, like):
    """A v of ones shaped as `like` (a tensor, or a tuple or list holding tensors and others)."""
    if isinstance(like, (tuple, list)):
        return tuple(lib.ones_like(x) if isinstance(x, lib.Tensor) else lib.ones(1) for x in like)
    return lib.ones_like(like)


def _functions(fn):
    """(name, f of two inputs): one that ignores its second input, one linear in it, one using both."""
    if fn in _SCALAR:
        return [("unused", lambda x, y: (x ** 3).sum()), ("linear", lambda x, y: (x ** 3).sum() + y.sum()),
                ("full", lambda x, y: (x ** 3).sum() * y.sum() ** 2)]
    return [("unused", lambda x, y: x ** 3), ("linear", lambda x, y: x ** 3 + y),
            ("full", lambda x, y: x ** 3 * y ** 2)]


_ALL = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")


@pytest.mark.parametrize("fn", _ALL)
def test_a_list_of_inputs_is_refused_as_torch(fn):
    f = _functions(fn)[0][1]
    with pytest.raises(TypeError) as e:
        _call(gg, fn, f, [gg.tensor(_A), gg.tensor(_B)])
    assert str(e.value).splitlines()[0] == (f"The inputs given to {fn} must be either a Tensor or a tuple of Tensors "
                                            "but the given inputs has type <class 'list'>.")


@pytest.mark.parametrize("fn", _ALL)
def test_a_non_tensor_in_the_inputs_is_refused_as_torch(fn):
    with pytest.raises(TypeError) as e:
        _call(gg, fn, lambda x, y: (x ** 3).sum(), (gg.tensor(_A), 3))
    assert str(e.value).splitlines()[0] == (f"The inputs given to {fn} must be either a Tensor or a tuple of Tensors "
                                            "but the value at index 1 has type <class 'int'>.")


@pytest.mark.parametrize("fn", ("jacobian", "hessian", "jvp", "hvp", "vhp"))
def test_a_list_returned_by_func_is_refused_as_torch(fn):
    with pytest.raises(TypeError) as e:
        _call(gg, fn, lambda x, y: [x ** 3, y], (gg.tensor(_A), gg.tensor(_B)))
    assert str(e.value).splitlines()[0] == (
        f"The outputs of the user-provided function given to {fn} must be either a Tensor or a tuple of Tensors but "
        "the given outputs of the user-provided function has type <class 'list'>.")


def test_a_number_returned_by_func_is_refused():
    with pytest.raises(TypeError, match="but the given outputs of the user-provided function has type <class 'int'>"):
        AF.jacobian(lambda x: 3, gg.tensor(_A))


_HESSIAN_LINEAR = ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                   "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                   "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                   "would be violated by a linear function for example).")
_UNUSED = "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."

# (fn, function name, create_graph) -> PyTorch's first line with strict=True
_STRICT = {
    ("hessian", "unused", False): _HESSIAN_LINEAR.format(i=1),
    ("hessian", "linear", True): _HESSIAN_LINEAR.format(i=1),
    ("hvp", "linear", False): _HESSIAN_LINEAR.format(i=1),
    ("vhp", "linear", True): _HESSIAN_LINEAR.format(i=1),
    ("hvp", "unused", True): _UNUSED,
    ("vhp", "unused", False): _UNUSED,
    ("jvp", "unused", False): _UNUSED,
    ("jacobian", "unused", True): "Output 0 of the user-provided function is independent of input 1. This is not "
                                  "allowed in strict mode.",
    ("jacobian", "linear", True): "The jacobian of the user-provided function is independent of input 0. This is not "
                                  "allowed in strict mode when create_graph=True.",
}


@pytest.mark.parametrize("key", list(_STRICT), ids=["-".join(map(str, k)) for k in _STRICT])
def test_strict_errors_name_what_torch_names(key):
    fn, name, create_graph = key
    f = dict(_functions(fn))[name]
    with pytest.raises(RuntimeError) as e:
        _call(gg, fn, f, (gg.tensor(_A), gg.tensor(_B)), create_graph=create_graph, strict=True)
    assert str(e.value).splitlines()[0] == _STRICT[key]


def test_jvp_strict_allows_an_input_that_one_output_of_several_reads():
    a, b = gg.tensor(_A), gg.tensor(_B)
    out, (ja, jb) = AF.jvp(lambda x, y: (x * 2, x * y), (a, b), (gg.ones(2), gg.ones(1)), strict=True)
    np.testing.assert_array_equal(ja.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(jb.numpy(), [4.0, 5.0])  # y + x


def test_jvp_calls_func_once():
    calls = []

    def f(x):
        calls.append(1)
        return x ** 2
    out, j = AF.jvp(f, gg.tensor(_A), gg.ones(2))
    assert len(calls) == 1
    np.testing.assert_array_equal(j.numpy(), [2.0, 4.0])


def test_hessian_of_several_inputs_is_nested_as_torch():
    h = AF.hessian(lambda x, y: (x ** 2).sum() * y.sum(), (gg.tensor(_A), gg.tensor(_B)))
    assert [[tuple(b.shape) for b in row] for row in h] == [[(2, 2), (2, 1)], [(1, 2), (1, 1)]]
    np.testing.assert_array_equal(h[0][0].numpy(), [[6.0, 0.0], [0.0, 6.0]])  # 2 * y
    np.testing.assert_array_equal(h[0][1].numpy(), [[2.0], [4.0]])  # 2 * x
    np.testing.assert_array_equal(h[1][1].numpy(), [[0.0]])


@pytest.mark.parametrize("fn", _ALL)
def test_strict_and_create_graph_combinations_as_torch(fn):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        rows = []
        for name, f in _functions(fn):
            for create_graph in (False, True):
                for strict in (False, True):
                    try:
                        r = _call(lib, fn, f, (lib.tensor(_A), lib.tensor(_B)), create_graph=create_graph,
                                  strict=strict)
                    except (RuntimeError, TypeError) as e:
                        rows.append((name, create_graph, strict, type(e).__name__, str(e).splitlines()[0]))
                        continue
                    flat = []
                    stack = [r]
                    while stack:
                        t = stack.pop()
                        if isinstance(t, tuple):
                            stack.extend(reversed(t))
                        else:
                            flat.append((tuple(t.shape), t.detach().double().reshape(-1).tolist(), t.requires_grad))
                    rows.append((name, create_graph, strict, flat))
        return rows

    assert outcome(gg) == outcome(torch)
