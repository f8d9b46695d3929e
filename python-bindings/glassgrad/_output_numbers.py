"""Tensor.output_nr: which output of its grad_fn a tensor is, PyTorch numbering a node's outputs
from 0. Functions whose PyTorch node has several outputs number theirs here: the views split,
split_with_sizes, chunk and unbind return (their unsafe_ spellings too), and the results of the
functions returning a named tuple from one node (aminmax, var_mean, linalg.qr, linalg.svd, ...).
Every other tensor is output 0, leaves and tensors that require no gradient included (PyTorch's
output_nr of a tensor outside autograd), and so is a numbered tensor once an in-place op has
given it another grad_fn."""
from __future__ import annotations

import weakref
from typing import Dict, Tuple

# id(tensor) -> (a weak reference to it, its output number, its producer's op when numbered)
_NUMBERS: Dict[int, Tuple[weakref.ref, int, str]] = {}


def number(outputs):
    """outputs (one node's, in PyTorch's order: a tuple or named tuple) numbered as PyTorch's node
    numbers them, counting only those that require grad (linalg.lu's P, max's indices are not
    outputs of the node); returns outputs."""
    i = 0
    for t in outputs:
        h = getattr(t, "_h", None)
        if h is None or not h.requires_grad or h.is_leaf:
            continue
        number_at(t, i)
        i += 1
    return outputs


def number_at(t, i: int) -> None:
    """t is output i of its node (slogdet's logabsdet is 1: PyTorch counts the sign there)."""
    if i:
        key = id(t)
        _NUMBERS[key] = (weakref.ref(t, _forget(key)), i, t._h.op)


def _forget(key: int):
    def forget(_ref) -> None:
        _NUMBERS.pop(key, None)
    return forget


def output_nr(t) -> int:
    entry = _NUMBERS.get(id(t))
    if entry is None:
        return 0
    ref, i, op = entry
    h = t._h
    return i if h.requires_grad and h.op == op and ref() is t else 0  # is t: not a collected one's id
