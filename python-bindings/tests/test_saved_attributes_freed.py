"""grad_fn._saved_<name> after a backward() without retain_graph: a saved tensor is freed, and
reading it raises PyTorch's RuntimeError ('Trying to backward through the graph a second time (or
directly access saved tensors after they have already been freed)...'); with retain_graph=True it
stays; a saved number or size stays readable, as PyTorch's (docs/autograd.md)."""
import pytest

import glassgrad as gg

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they have "
          "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
          "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
          "if you need to access saved tensors after calling backward.")


def _first_line(read):
    with pytest.raises(RuntimeError) as e:
        read()
    return str(e.value).splitlines()[0]


def _mul(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return a * b


@pytest.mark.parametrize("name", ["_saved_self", "_saved_other"])
def test_saved_inputs_after_backward_raise(name):
    c = _mul(gg)
    c.sum().backward()
    assert _first_line(lambda: getattr(c.grad_fn, name)) == _FREED


def test_a_saved_result_after_backward_raises():
    x = gg.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    assert _first_line(lambda: y.grad_fn._saved_result) == _FREED


def test_the_message_names_the_node_and_a_fix():
    c = _mul(gg)
    c.sum().backward()
    with pytest.raises(RuntimeError) as e:
        c.grad_fn._saved_self
    rest = str(e.value).splitlines()[1:]
    assert rest[0].strip() == "MulBackward0._saved_self: a backward() without retain_graph=True has run this node"
    assert rest[1].strip().startswith("fix: loss.backward(retain_graph=True)")


def test_retain_graph_keeps_them_and_numbers_stay():
    c = _mul(gg)
    c.sum().backward(retain_graph=True)
    assert c.grad_fn._saved_self.tolist() == [1.0, 2.0, 3.0]
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    p = x.pow(2)
    p.sum().backward()
    assert p.grad_fn._saved_exponent == 2  # a number: not freed
    assert _first_line(lambda: p.grad_fn._saved_self) == _FREED


def test_a_second_backward_gives_the_same_sentence_first():
    c = _mul(gg)
    c.sum().backward(retain_graph=False)
    assert _first_line(lambda: c.sum().backward()) == _FREED


def test_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (gg, torch):
        c = _mul(lib)
        c.sum().backward()
        assert _first_line(lambda: c.grad_fn._saved_self) == _FREED
        assert _first_line(lambda: c.grad_fn._saved_other) == _FREED
