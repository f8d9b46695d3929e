"""torch.func.rearrange: einops.rearrange's patterns ("b h w c -> b (c h w)") as a reshape, a
permute and a reshape.

A side of the pattern is a list of groups; a group is one axis name, "(a b ...)" (one dimension
that is the product of its axes, the first varying slowest, as a row-major reshape), "()" or "1"
(a dimension of size 1), or "..." (the dimensions the names do not cover). A list or tuple of
tensors is stacked along a new first dimension first, as einops does. Every name on one side is
on the other; one unknown size per input group is inferred, the others come from axes_lengths."""
from __future__ import annotations

import math
import re
from typing import Dict, List, NoReturn, Optional, Sequence, Tuple

from .._tensor import Tensor

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")
_ELLIPSIS = "..."


def _fail(pattern: str, why: str) -> NoReturn:
    raise ValueError(f"rearrange: {why} in pattern '{pattern}'\n  fix: names and groups as einops writes them, e.g. "
                     f"'b (h w) c -> b h w c' with h=... given")


def _parse_side(side: str, pattern: str) -> List[Tuple[List[str], bool]]:
    """The groups of one side: (atoms (names, "..." or "1"), whether it was parenthesized)."""
    groups: List[Tuple[List[str], bool]] = []
    current: Optional[List[str]] = None
    for token in _TOKEN.findall(side):
        if token == "(":
            if current is not None:
                _fail(pattern, "nested parentheses")
            current = []
        elif token == ")":
            if current is None:
                _fail(pattern, "an unmatched ')'")
            groups.append((current, True))
            current = None
        elif token == _ELLIPSIS or token.isidentifier() or token.isdigit():
            if token.isdigit() and token != "1":
                _fail(pattern, f"the number {token} (only 1 names a unit axis)")
            if current is None:
                groups.append(([token], False))
            else:
                current.append(token)
        else:
            _fail(pattern, f"the character {token!r}")
    if current is not None:
        _fail(pattern, "an unclosed '('")
    names = [a for g, _ in groups for a in g if a != "1"]
    if len(names) != len(set(names)):
        _fail(pattern, "a name used twice on one side")
    return groups


def _expand_ellipsis(groups: List[Tuple[List[str], bool]], n: int) -> List[List[str]]:
    """The groups' atoms with "..." replaced by n axes of its own names (a group of them where it
    is parenthesized)."""
    dots = [f"{_ELLIPSIS}{i}" for i in range(n)]
    out: List[List[str]] = []
    for g, grouped in groups:
        if g == [_ELLIPSIS] and not grouped:
            out += [[d] for d in dots]
        elif _ELLIPSIS in g:
            i = g.index(_ELLIPSIS)
            out.append(g[:i] + dots + g[i + 1:])
        else:
            out.append(g)
    return out


def _sizes(left: List[List[str]], shape: Sequence[int], known: Dict[str, int], pattern: str) -> Dict[str, int]:
    sizes = dict(known)
    for group, dim in zip(left, shape):
        names = [a for a in group if a != "1"]
        unknown = [a for a in names if a not in sizes]
        product = math.prod(sizes[a] for a in names if a in sizes)
        if len(unknown) > 1:
            _fail(pattern, f"more than one unknown size in the group ({' '.join(group)}): give "
                           f"{', '.join(unknown[1:])} as keyword arguments")
        if unknown:
            if product == 0 or dim % product:
                _fail(pattern, f"a dimension of size {dim} that the group ({' '.join(group)}) cannot split")
            sizes[unknown[0]] = dim // product
        elif product != dim:
            _fail(pattern, f"a dimension of size {dim} where the group ({' '.join(group)}) has {product}")
    return sizes


def rearrange(tensor, pattern: str, **axes_lengths: int) -> Tensor:
    """The tensor (or the stack of a list of tensors) rearranged as the einops pattern says."""
    if isinstance(tensor, (list, tuple)):
        from .._shapes import stack
        tensor = stack(list(tensor))
    if pattern.count("->") != 1:
        _fail(pattern, "no single '->'")
    left_text, right_text = pattern.split("->")
    left, right = _parse_side(left_text, pattern), _parse_side(right_text, pattern)
    if any(_ELLIPSIS in g and grouped for g, grouped in left):
        _fail(pattern, "'...' inside a group on the left")
    has_dots = any(_ELLIPSIS in g for g, _ in left)
    if has_dots != any(_ELLIPSIS in g for g, _ in right):
        _fail(pattern, "'...' on one side only")
    fixed = len([g for g, _ in left if g != [_ELLIPSIS]])
    n_dots = tensor.dim() - fixed if has_dots else 0
    if n_dots < 0 or (not has_dots and tensor.dim() != fixed):
        _fail(pattern, f"{fixed} input groups for a tensor of {tensor.dim()} dimensions")
    left_atoms, right_atoms = _expand_ellipsis(left, n_dots), _expand_ellipsis(right, n_dots)
    left_names = [a for g in left_atoms for a in g if a != "1"]
    right_names = [a for g in right_atoms for a in g if a != "1"]
    if set(left_names) != set(right_names):
        extra = sorted(set(left_names) ^ set(right_names))
        _fail(pattern, f"the names {extra} on one side only")
    sizes = _sizes(left_atoms, tuple(tensor.shape), axes_lengths, pattern)
    elementary = tensor.reshape(*[sizes[a] for a in left_names]) if left_names else tensor.reshape(())
    order: Tuple[int, ...] = tuple(left_names.index(a) for a in right_names)
    moved = elementary.permute(*order) if order else elementary
    return moved.reshape(*[math.prod(sizes[a] for a in g if a != "1") for g in right_atoms])
