"""AccumulateGrad.variable is the leaf object itself, as in PyTorch, whose node holds the leaf:
the PyTorch handbook (zergtant/pytorch-handbook, chapter 2's autograd notebook) walks
z.grad_fn.next_functions down to the leaf's node and asserts id(node.variable) == id(x)."""
import glassgrad as gg
import glassgrad.nn as nn


def _leaf_node(node):
    while type(node).__name__ != "AccumulateGrad":
        node = node.next_functions[0][0]
    return node


def test_the_variable_is_the_tensor_the_script_holds():
    x = gg.rand(5, 5, requires_grad=True)
    y = gg.rand(5, 5, requires_grad=True)
    z = x ** 2 + y ** 3
    node = _leaf_node(z.grad_fn)
    assert id(node.variable) == id(x)
    assert z.grad_fn.next_functions[1][0].next_functions[0][0].variable is y


def test_a_parameter_is_found_as_the_parameter():
    layer = nn.Linear(2, 3)
    addmm = layer(gg.ones(1, 2)).sum().grad_fn.next_functions[0][0]
    bias, _, transposed = (node for node, _ in addmm.next_functions)
    assert bias.variable is layer.bias
    assert transposed.next_functions[0][0].variable is layer.weight
    assert isinstance(bias.variable, nn.Parameter)


def test_a_dropped_leaf_still_gives_its_values():
    z = gg.tensor([1.0, 2.0], requires_grad=True) * 3  # no name holds the leaf
    variable = _leaf_node(z.grad_fn).variable
    assert variable.tolist() == [1.0, 2.0] and variable.requires_grad and variable.is_leaf
