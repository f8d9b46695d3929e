"""A Tensor.grad_fn graph written as one line, for comparing graphs with PyTorch's: a node's
class name, its next_functions in parentheses, None for an entry without a node."""


def walk(node, depth: int = 3) -> str:
    """node's name and, `depth` levels down, its next_functions: 'MulBackward0(AccumulateGrad, None)'."""
    if node is None:
        return "None"
    name = type(node).__name__
    if depth and node.next_functions:
        name += "(" + ", ".join(walk(n, depth - 1) for n, _ in node.next_functions) + ")"
    return name
