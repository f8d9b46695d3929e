"""A custom autograd.Function's backward node as PyTorch documents it (torch.autograd.Function,
'Extending torch.autograd'): Tensor.grad_fn of an output is the ctx forward filled, an instance of
the Function's node class '<Class>Backward' (a BackwardCFunction, a graph.Node) with the saved
tensors, needs_input_grad and the attributes forward set; node.apply(*grads) runs backward;
next_functions lists the tensor arguments. mark_dirty returns the input written in place (a leaf
refuses it), mark_non_differentiable outputs get zero gradients, set_materialize_grads(False)
passes None. Expected values written from PyTorch's behaviour (test_torch_autograd_function_node
compares with torch)."""
import glassgrad as gg
from autograd_function_script import run


def test_custom_function_node_as_pytorch_documents():
    out = run(gg)
    assert out["node"] == ("SqBackward", "SqBackward", True, True, True, True)
    assert out["node fields"] == ([[1.0, 2.0]], (True, False), 3.0, {})
    assert out["next"] == ["AccumulateGrad"]
    assert out["apply"] == ([6.0, 12.0], None)
    assert out["node below"] == "SqBackward"
    assert out["needs_input_grad"] == (True, False)
    assert out["dirty"] == (True, "DirtyBackward", [2.0, 4.0])
    assert out["dirty grad"] == [2.0, 2.0]
    assert out["dirty leaf"] == "a leaf Variable that requires grad has been used in an in-place operation."
    assert out["non-differentiable"] == (True, False, True)
    assert out["non-differentiable grad"] == (0, "int64")
    assert out["unmaterialized"] == (False, True)
    assert out["unmaterialized grad"] == [2.0]
