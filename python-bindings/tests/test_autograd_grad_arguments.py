"""autograd.grad's arguments as PyTorch's: a dict of inputs gives a dict of gradients, other mappings
are refused; PyTorch's words for empty inputs, a grad_outputs count that differs from the outputs',
materialize_grads with allow_unused=False; only_inputs=False warns; materialized zeros are
differentiable under create_graph; backward(create_graph=True) without inputs warns once of the
reference cycle (docs/autograd.md, "grad")."""
import collections
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def _xy():
    return gg.tensor([1.0, 2.0], requires_grad=True), gg.tensor([3.0], requires_grad=True)


def test_a_dict_of_inputs_gives_a_dict_of_gradients():
    x, y = _xy()
    g = gg.autograd.grad((x * y).sum(), {"x": x, "y": y})
    assert type(g) is dict and list(g) == ["x", "y"]
    np.testing.assert_array_equal(g["x"].numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(g["y"].numpy(), [3.0])


def test_named_parameters_as_a_dict():
    gg.manual_seed(0)
    m = nn.Linear(2, 1)
    g = gg.autograd.grad(m(gg.ones(1, 2)).sum(), dict(m.named_parameters()))
    assert sorted(g) == ["bias", "weight"]
    np.testing.assert_array_equal(g["weight"].numpy(), [[1.0, 1.0]])


def test_a_dict_with_batched_gradients():
    x, _ = _xy()
    g = gg.autograd.grad(x * 2, {"x": x}, gg.eye(2), is_grads_batched=True)
    np.testing.assert_array_equal(g["x"].numpy(), [[2.0, 0.0], [0.0, 2.0]])


def test_another_mapping_is_refused():
    x, _ = _xy()
    with pytest.raises(TypeError) as e:
        gg.autograd.grad((x * 2).sum(), collections.OrderedDict(x=x))
    assert str(e.value).splitlines()[0] == ("`inputs` argument to `grad()` must be a dict, not OrderedDict. Other "
                                            "Mapping types are not supported.")


def test_empty_inputs_raise_torchs_words():
    x, _ = _xy()
    with pytest.raises(RuntimeError) as e:
        gg.autograd.grad((x * 2).sum(), [])
    assert str(e.value).splitlines()[0] == "`inputs` argument to `grad()` cannot be empty."


@pytest.mark.parametrize("call", ["grad", "backward"])
def test_a_gradient_count_other_than_the_outputs_raises_torchs_runtime_error(call):
    x, _ = _xy()
    outs = [(x * 2).sum(), (x * 3).sum()]
    with pytest.raises(RuntimeError) as e:
        if call == "grad":
            gg.autograd.grad(outs, x, [gg.tensor(1.0)])
        else:
            gg.autograd.backward(outs, [gg.tensor(1.0)])
    assert str(e.value).splitlines()[0] == "got 2 tensors and 1 gradients"


def test_materialize_grads_with_allow_unused_false():
    x, y = _xy()
    with pytest.raises(ValueError) as e:
        gg.autograd.grad((x * 2).sum(), [x, y], allow_unused=False, materialize_grads=True)
    assert str(e.value) == ("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                            "allow_unused=False.")


def test_only_inputs_false_warns_and_is_ignored():
    x, _ = _xy()
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now"):
        (g,) = gg.autograd.grad((x * 2).sum(), x, only_inputs=False)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    assert x.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gg.autograd.grad((x * 2).sum(), x)


def test_materialized_zeros_are_differentiable_under_create_graph():
    x, y = _xy()
    gx, gy = gg.autograd.grad((x ** 2).sum(), [x, y], materialize_grads=True, create_graph=True)
    assert gx.requires_grad and gy.requires_grad
    np.testing.assert_array_equal(gy.detach().numpy(), [0.0])
    _, gy = gg.autograd.grad((x ** 2).sum(), [x, y], materialize_grads=True)
    assert not gy.requires_grad


def test_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0], requires_grad=True)
        rows = []
        calls = [lambda: lib.autograd.grad((x * y).sum(), {"x": x, "y": y}),
                 lambda: lib.autograd.grad((x * 2).sum(), collections.OrderedDict(x=x)),
                 lambda: lib.autograd.grad((x * 2).sum(), []),
                 lambda: lib.autograd.grad([(x * 2).sum(), (x * 3).sum()], x, [lib.tensor(1.0)]),
                 lambda: lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=False, materialize_grads=True),
                 lambda: lib.autograd.grad((x ** 2).sum(), [x, y], materialize_grads=True, create_graph=True)]
        for call in calls:
            try:
                r = call()
            except (RuntimeError, TypeError, ValueError) as e:
                kinds = tuple(isinstance(e, k) for k in (RuntimeError, TypeError, ValueError))
                rows.append((kinds, str(e).splitlines()[0]))
                continue
            items = r.items() if isinstance(r, dict) else enumerate(r)
            rows.append([(k, v.tolist(), v.requires_grad) for k, v in items])
        return rows

    assert outcome(gg) == outcome(torch)


def test_backward_with_create_graph_and_no_inputs_warns_once_of_the_reference_cycle(monkeypatch):
    from glassgrad.autograd import gradients
    monkeypatch.setattr(gradients, "_CYCLE_WARNED", [False])  # once per process, as PyTorch's
    x, _ = _xy()
    words = r"^Using backward\(\) with create_graph=True will create a reference cycle between the parameter and its"
    with pytest.warns(UserWarning, match=words) as caught:
        (x * x).sum().backward(create_graph=True)
    assert caught[0].filename == __file__  # the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * x).sum().backward(create_graph=True)
        x.grad = None
        (x * x).sum().backward(create_graph=True, inputs=[x])
        gg.autograd.grad((x * x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(x.grad.detach().numpy(), [2.0, 4.0])
