"""grad_fn._saved_<name>: what PyTorch's backward node saved for its formula, read from the
recorded forward op (glassgrad's gradients are built from the forward values, docs/autograd.md).
A saved input is the tensor the script holds where one holds it (`y.grad_fn._saved_self is x`),
a saved output a tensor of the same value; a number operand saved as a tensor (x * 2's
_saved_other) is a 0-d tensor, a tensor PyTorch's node does not save (x * 2's _saved_self) None;
sizes and strides are tuples, dims tuples, flags bools. A node without such an entry raises
AttributeError, as PyTorch's."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Tuple

# One entry per saved attribute: (name, how), how one of
#   ("operand", k)        the k-th operand of PyTorch's node (its next_functions order)
#   ("operand_if", k, j)  the k-th operand, saved where operand j requires grad (mul saves other for self's gradient)
#   ("result",)           the node's output
#   ("sizes", k) / ("strides", k) / ("numel", k)   the k-th operand's shape, strides, element count
#   ("const", value)      a value PyTorch's node always has here (add's alpha of 1)
#   a callable(node) -> value
_Spec = List[Tuple[str, Any]]


def _binary(self_for: int, other_for: int) -> _Spec:
    return [("self", ("operand_if", 0, self_for)), ("other", ("operand_if", 1, other_for))]


def _attr(name: str, convert: Callable = lambda v: v) -> Callable:
    return lambda node: convert(node._h.producer_attr(name))


def _dims(node) -> tuple:
    return tuple(int(d) for d in node._h.producer_attr("dims") or ())


def _exponent(node):
    e = node._h.producer_attr("exponent")
    return int(e) if float(e).is_integer() else e


def _mse_reduction(node) -> int:
    return {"Mean": 1, "Sum": 2}.get(node._h.op, 0)  # PyTorch's Reduction enum: none 0, mean 1, sum 2


_MM = [("self", ("operand", 0)), ("self_sym_sizes", ("sizes", 0)), ("self_sym_strides", ("strides", 0)),
       ("mat2", ("operand", 1)), ("mat2_sym_sizes", ("sizes", 1)), ("mat2_sym_strides", ("strides", 1))]

SPECS: Dict[str, _Spec] = {
    "MulBackward0": _binary(1, 0),
    "DivBackward0": [("self", ("operand_if", 0, 1)), ("other", ("operand", 1))],
    "AddBackward0": [("alpha", ("const", 1))],
    "SubBackward0": [("alpha", ("const", 1))],
    "RsubBackward1": [("alpha", ("const", 1))],
    "PowBackward0": [("self", ("operand", 0)), ("exponent", _exponent)],
    "PowBackward1": [("self", ("operand", 0)), ("exponent", ("operand", 1)), ("result", ("result",))],
    "PowBackward2": [("exponent", ("operand", 0)), ("result", ("result",)), ("self", lambda node: _base(node))],
    "ExpBackward0": [("result", ("result",))],
    "TanhBackward0": [("result", ("result",))],
    "SigmoidBackward0": [("result", ("result",))],
    "ReluBackward0": [("result", ("result",))],
    "SqrtBackward0": [("result", ("result",))],
    "RsqrtBackward0": [("result", ("result",))],
    "LogBackward0": [("self", ("operand", 0))],
    "SinBackward0": [("self", ("operand", 0))],
    "CosBackward0": [("self", ("operand", 0))],
    "AbsBackward0": [("self", ("operand", 0))],
    "SiluBackward0": [("self", ("operand", 0))],
    "MmBackward0": _MM,
    "BmmBackward0": [("self", ("operand", 0)), ("mat2", ("operand", 1))],
    "AddmmBackward0": [("alpha", ("const", 1)), ("beta", ("const", 1)),
                       ("mat1", ("operand", 1)), ("mat1_sym_sizes", ("sizes", 1)), ("mat1_sym_strides", ("strides", 1)),
                       ("mat2", ("operand", 2)), ("mat2_sym_sizes", ("sizes", 2)), ("mat2_sym_strides", ("strides", 2))],
    "SumBackward0": [("self_sym_sizes", ("sizes", 0))],
    "SumBackward1": [("dim", _dims), ("keepdim", _attr("keepdim", bool)), ("self_sym_sizes", ("sizes", 0))],
    "MeanBackward0": [("self_sym_numel", ("numel", 0)), ("self_sym_sizes", ("sizes", 0))],
    "MeanBackward1": [("dim", _dims), ("keepdim", _attr("keepdim", bool)), ("self_sym_numel", ("numel", 0)),
                      ("self_sym_sizes", ("sizes", 0))],
    "ViewBackward0": [("self_sym_sizes", ("sizes", 0))],
    "SoftmaxBackward0": [("dim", _attr("dim", int)), ("result", ("result",))],
    "LogSoftmaxBackward0": [("dim", _attr("dim", int)), ("result", ("result",))],
    "PermuteBackward0": [("dims", _dims)],
    "MaxBackward1": [("self", ("operand", 0)), ("result", ("result",))],
    "MinBackward1": [("self", ("operand", 0)), ("result", ("result",))],
    "MseLossBackward0": [("reduction", _mse_reduction), ("self", ("operand", 0)), ("target", ("operand", 1))],
}


def names(node_name: str) -> List[str]:
    """The _saved_ attribute names of PyTorch's node (without the prefix), for dir()."""
    return [name for name, _ in SPECS.get(node_name, [])]


def tensor_names(node_name: str) -> List[str]:
    """The names among names(node_name) that hold a tensor (an operand or the result): those PyTorch
    also offers as _raw_saved_<name> (SavedTensor objects)."""
    return [name for name, how in SPECS.get(node_name, [])
            if not callable(how) and how[0] in ("operand", "operand_if", "result")]


def value(node, node_name: str, name: str, operands: list, tensor_of: Callable):
    """node's saved attribute `name`; operands: the runtime values PyTorch's node lists, in its
    order; tensor_of(handle): the tensor object for a value. KeyError where the node has none."""
    how = dict(SPECS.get(node_name, []))[name]
    if callable(how):
        return how(node)
    kind = how[0]
    if kind == "const":
        return how[1]
    if kind == "result":
        return tensor_of(node._h)
    k = how[1]
    h = operands[k] if k < len(operands) else None
    if kind == "operand_if":
        partner = operands[how[2]] if how[2] < len(operands) else None
        if partner is None or not partner.requires_grad:  # a number or a tensor that needs no gradient
            return None
    if kind in ("operand", "operand_if"):
        return _number_operand(node, k) if h is None else tensor_of(h)
    if h is None:
        return None
    if kind == "sizes":
        return tuple(int(s) for s in h.shape)
    if kind == "strides":
        return tuple(int(s) for s in h.layout[0])
    return int(math.prod(h.shape))  # numel


def _number_operand(node, k: int) -> Optional[Any]:
    """The number operand of a tensor-and-number op (x * 2, x / 2, 2 ** x) as PyTorch saves it: a
    0-d tensor of the number (x / 2 is recorded as x * 0.5), or the number for pow's base."""
    from ._tensor import tensor
    v = node._h.producer_attr("value")
    if v is None:
        return None
    op = node._h.op
    number = 1.0 / v if node.name() == "DivBackward0" and op == "MulScalar" and v else v
    # PyTorch wraps an int as an int64 tensor, a float as a float64 one (the recorded value is a float)
    return tensor(int(number), dtype="int64") if float(number).is_integer() else tensor(number, dtype="float64")


def _base(node):
    """2 ** x's base, the number pow's node saves as self."""
    b = node._h.producer_inputs[0].item()
    return int(b) if float(b).is_integer() else b
