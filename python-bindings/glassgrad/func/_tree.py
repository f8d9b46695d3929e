"""The nested containers torch.func's transforms take and return (PyTorch's pytrees): tuples,
lists, dicts and named tuples of leaves (tensors, numbers, None)."""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

Spec = Tuple[Any, ...]  # ("leaf",) or (kind, type, keys, children specs)


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(tree) -> Tuple[List[Any], Spec]:
    """(the leaves in order, the structure to rebuild it with unflatten)."""
    leaves: List[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: List[Any]) -> Spec:
    if isinstance(tree, dict):
        keys = list(tree)
        return ("dict", type(tree), keys, [_flatten(tree[k], leaves) for k in keys])
    if isinstance(tree, (tuple, list)):
        kind = "namedtuple" if _is_namedtuple(tree) else "seq"
        return (kind, type(tree), None, [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return ("leaf",)


def unflatten(leaves: List[Any], spec: Spec):
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec: Spec):
    if spec[0] == "leaf":
        return next(it)
    kind, typ, keys, children = spec
    values = [_unflatten(it, c) for c in children]
    if kind == "dict":
        return typ(zip(keys, values))
    if kind == "namedtuple":
        return typ(*values)
    return typ(values)


def tree_map(fn: Callable, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree, what: str) -> List[Any]:
    """One entry of `prefix` (in_dims, out_dims: an int or None stands for a whole subtree) per
    leaf of `tree`, as torch.func matches them."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * len(flatten(tree)[0])
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            raise ValueError(f"vmap: {what} is a dict whose keys do not match the input's\n  fix: give {what} the "
                             f"input's structure, or one int / None for the whole input")
        return [d for k in tree for d in broadcast_prefix(prefix[k], tree[k], what)]
    if not isinstance(tree, (tuple, list)) or len(prefix) != len(tree):
        n = len(tree) if isinstance(tree, (tuple, list)) else "not a sequence"
        raise ValueError(f"vmap: {what} has {len(prefix)} entries, the input it describes has {n}\n"
                         f"  fix: one entry of {what} per input (an int to map that dimension, None to pass it "
                         f"as it is)")
    return [d for p, t in zip(prefix, tree) for d in broadcast_prefix(p, t, what)]
