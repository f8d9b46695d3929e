"""torch.einsum, composed of Sum, Permute, Reshape and MatMul.

Each operand's subscripts are first made distinct (a letter repeated within one operand takes
that diagonal) and letters that appear nowhere else are summed out. Then operands are combined
left to right, each pair as one batched MatMul:

    A [batch, left, contracted] @ B [batch, contracted, right] -> [batch, left, right]

where batch letters are shared and still needed (by the output or a later operand), contracted
letters are shared and no longer needed, and left / right letters belong to one side. '...'
stands for the same leading dims in every operand (broadcast from the right).
"""
from __future__ import annotations

import math
import string
from typing import List

import numpy as np

from . import _C, _autocast
from ._dtypes import DTYPES, plain, result_type
from ._inplace import _type_name
from ._shapes import bool_product, diagonal, int64_on_host, matmul, sums_pass_float64
from ._tensor import Tensor, _op


def _parse(equation: str, ranks: List[int]):
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise _C.InvalidArgumentError(f"einsum(): invalid subscript in the equation '{equation}': '->' may appear "
                                      f"once\n  fix: 'ij,jk->ik'")
    if "->" in eq:
        lhs, out = eq.split("->")
        explicit = True
    else:
        lhs, out, explicit = eq, "", False
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise _C.InvalidArgumentError(f"einsum: the equation '{equation}' names {len(terms)} operands, "
                                      f"{len(ranks)} were given")
    used = set(c for c in eq if c.isalpha())
    spare = [c for c in string.ascii_letters if c not in used]
    ell = max((r - (len(t) - 3) for t, r in zip(terms, ranks) if "..." in t), default=0)
    ell_letters = spare[:ell]
    subs = []
    for t, r in zip(terms, ranks):
        if "..." in t:
            head, tail = t.split("...")
            k = r - len(head) - len(tail)
            if k < 0:
                raise _C.ShapeError(f"einsum: operand '{t}' has more subscripts than its {r} dims")
            subs.append(list(head) + ell_letters[ell - k:] + list(tail))
        else:
            if len(t) != r:
                raise _C.ShapeError(f"einsum: operand '{t}' has {len(t)} subscripts but {r} dims\n"
                                    f"  fix: one letter per dim, or '...' for the leading ones")
            subs.append(list(t))
        bad = [c for c in subs[-1] if not c.isalpha()]
        if bad:
            raise _C.InvalidArgumentError(f"einsum: subscripts must be letters, got {bad[0]!r} in '{equation}'")
    if explicit:
        if "..." in out:
            head, tail = out.split("...")
            out_letters = list(head) + ell_letters + list(tail)
        else:
            out_letters = list(out)
    else:
        counts = {}
        for s in subs:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out_letters = ell_letters + sorted(c for c, n in counts.items() if n == 1 and c not in ell_letters)
    return subs, out_letters


def _beyond_float64(equation: str, operands, wide) -> bool:
    """Whether an integer einsum's sums may pass 2**53 (_shapes.sums_pass_float64), the count of
    summed terms being the sizes of the letters left out of the result."""
    if any(t.numel() == 0 for t in operands):
        return False
    subs, out = _parse(equation, [t.ndim for t in operands])
    size: dict = {}
    for t, letters in zip(operands, subs):
        for c, n in zip(letters, t.shape):
            size[c] = max(size.get(c, 1), n)
    return sums_pass_float64(wide, math.prod(n for c, n in size.items() if c not in out))


def _distinct(x: Tensor, letters: List[str]):
    """x with each repeated letter's diagonal taken, so every letter names one dim."""
    while len(set(letters)) != len(letters):
        c = next(ch for ch in letters if letters.count(ch) > 1)
        i = letters.index(c)
        j = letters.index(c, i + 1)
        x = diagonal(x, 0, i, j)  # removes dims i and j, appends the diagonal last
        letters = [ch for k, ch in enumerate(letters) if k not in (i, j)] + [c]
    return x, letters


def _sum_out(x: Tensor, letters: List[str], keep) -> tuple:
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if gone:
        x = _op("Sum", [x], {"dims": gone, "keepdim": False})
        letters = [c for c in letters if c in keep]
    return x, letters


def _permute(x: Tensor, letters: List[str], order: List[str]) -> Tensor:
    perm = [letters.index(c) for c in order]
    return x if perm == list(range(len(perm))) else x.permute(perm)


def _matmul(a: Tensor, b: Tensor) -> Tensor:
    return _op("MatMul", [a, b])


def _broadcast(operands, subs: List[List[str]]) -> list:
    """The operands with each dim of size 1 stretched to its letter's size elsewhere (PyTorch's
    einsum broadcasts a subscript's sizes, ellipsis or not); a letter repeated within one operand
    needs equal sizes, and sizes that are not 1 must match, as PyTorch checks."""
    size: dict = {}
    for k, (x, letters) in enumerate(zip(operands, subs)):
        mine: dict = {}
        for c, n in zip(letters, x.shape):
            if c in mine and mine[c] != n:
                raise _C.InvalidArgumentError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes "
                                              f"don't match, {n} != {mine[c]}\n  fix: a repeated subscript takes a "
                                              f"diagonal, of equal dims")
            mine[c] = n
            if c in size and size[c] != n and 1 not in (size[c], n):
                raise _C.ShapeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not broadcast "
                                    f"with previously seen size {size[c]}\n  fix: sizes of one subscript must match "
                                    f"or be 1")
            if size.get(c, 1) == 1:
                size[c] = n
    out = []
    for x, letters in zip(operands, subs):
        want = [size[c] for c in letters]
        out.append(x if list(x.shape) == want else x.expand(*want))
    return out


@_autocast.op("einsum")
def _sublist_equation(args: tuple):
    """(equation, operands) of PyTorch's sublist form einsum(op0, sub0, op1, sub1, ..., [out]):
    each sublist holds ints in [0, 52) (0-25 the letters A-Z, 26-51 a-z, as PyTorch's parse_subscript)
    and Ellipsis."""
    def letters(sub) -> str:
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            elif isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 52:
                out += (string.ascii_uppercase + string.ascii_lowercase)[s]
            else:
                raise _C.InvalidArgumentError(f"einsum(): subscript in subscript list is not within the valid range "
                                              f"[0, 52), got {s!r}\n  fix: sublists of ints 0..51 or Ellipsis")
        return out
    pairs, rest = args[:len(args) - len(args) % 2], args[len(args) - len(args) % 2:]
    operands = pairs[0::2]
    equation = ",".join(letters(sub) for sub in pairs[1::2])
    return (equation + "->" + letters(rest[0]) if rest else equation), operands


def _refuse_mixed_contraction(equation: str, operands) -> None:
    """Operands of several dtypes with a letter summed away: PyTorch's contraction (a batched
    product) refuses them, as its bmm does, with a RuntimeError; a product without one
    ('ij,ij->ij', 'i,j->ij') promotes."""
    subs, out = _parse(equation, [t.ndim for t in operands])
    if set().union(*map(set, subs)) - set(out):
        first = next(t for t in operands if t.dtype != operands[0].dtype)
        raise _C.DTypeError(f"expected scalar type {_type_name(operands[0].dtype)} but found "
                            f"{_type_name(first.dtype)}\n  einsum('{equation}'): the operands are "
                            f"{', '.join(str(t.dtype) for t in operands)} and a letter is summed away\n  fix: "
                            f"convert them to one dtype first, e.g. b.to(a.dtype)")


def einsum(equation: str, *operands) -> Tensor:
    """torch.einsum: 'ij,jk->ik', batch dims ('bij,bjk->bik'), the implicit output (the letters
    used once, in alphabetical order), '...' for leading dims, and a letter repeated within one
    operand for its diagonal ('ii->i'). Computed pairwise, left to right, as batched MatMuls."""
    if not isinstance(equation, str) and not operands:  # one tensor alone: neither form (PyTorch's ValueError)
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list\n  fix: einsum('ij->i', x) or einsum(x, [0, 1], [0])")
    if not isinstance(equation, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    kinds = {plain(t.dtype) for t in operands}
    if len(kinds) > 1:  # PyTorch's products without a contraction promote (it refuses the others)
        _refuse_mixed_contraction(equation, operands)
        common = result_type(*operands)
        operands = tuple(t if t.dtype == common else t.to(common) for t in operands)
        kinds = {plain(common)}
    if len(operands) == 1 and kinds <= {"int32", "uint8", "int8", "int16", "bool"}:
        # one operand: PyTorch's einsum is a sum over the letters left out, int64 for integers and
        # bool, as sum's; with none left out, a view in the operand's dtype
        subs, out = _parse(equation, [operands[0].ndim])
        y = einsum(equation, operands[0].astype(DTYPES["int64"]))
        return y.astype(operands[0].dtype) if set(subs[0]) <= set(out) else y
    if len(kinds) == 1 and kinds <= {"int64", "int32", "uint8", "int8", "int16"}:
        # integers in their dtype, as PyTorch's: through float64 (exact up to 2**53), back through
        # int64; beyond 2**53 by NumPy's int64 einsum on the host (_shapes.int64_on_host)
        float64, int64 = DTYPES["float64"], DTYPES["int64"]
        wide = [t.astype(float64) for t in operands]
        if _beyond_float64(equation, operands, wide):
            return int64_on_host(np.einsum, operands, equation)
        return einsum(equation, *wide).astype(int64).astype(operands[0].dtype)
    subs, out = _parse(equation, [t.ndim for t in operands])
    operands = tuple(_broadcast(operands, subs))
    items = []
    for k, (x, letters) in enumerate(zip(operands, subs)):
        x, letters = _distinct(x, letters)
        others = set(out).union(*[set(s) for j, s in enumerate(subs) if j != k])
        items.append(_sum_out(x, letters, others))
    a, la = items[0]
    for idx in range(1, len(items)):
        b, lb = items[idx]
        later = set(out).union(*[set(s) for s in subs[idx + 1:]])
        size = {}
        for t, ls in ((a, la), (b, lb)):
            for c, n in zip(ls, t.shape):
                size[c] = n if size.get(c, 1) == 1 else size[c]  # broadcast: 1 gives way, 0 stays
        batch = [c for c in la if c in lb and c in later]
        contracted = [c for c in la if c in lb and c not in later]
        left = [c for c in la if c not in lb]
        right = [c for c in lb if c not in la]
        a2 = _permute(a, la, batch + left + contracted)
        b2 = _permute(b, lb, batch + contracted + right)
        bs_a = list(a2.shape[:len(batch)])
        bs_b = list(b2.shape[:len(batch)])
        ksize = math.prod(size[c] for c in contracted)
        a2 = a2.reshape(bs_a + [math.prod(size[c] for c in left), ksize])
        b2 = b2.reshape(bs_b + [ksize, math.prod(size[c] for c in right)])
        # PyTorch's einsum multiplies a pair without contracted letters and views a bmm's result
        # otherwise: its node, for Tensor.grad_fn, and the bmm is what its CPU autocast casts
        if a2.dtype == "bool":
            prod = bool_product(matmul, a2, b2, "bmm", "einsum", sums=ksize > 1)
        else:
            prod = _autocast.call("bmm", _matmul, a2, b2) if contracted else _matmul(a2, b2)
        node = "ViewBackward0" if contracted else "MulBackward0"
        shape = list(prod.shape[:len(batch)]) + [size[c] for c in left] + [size[c] for c in right]
        a = _op("Reshape", [prod], {"shape": shape, "torch_node": node})
        la = batch + left + right
    a, la = _sum_out(a, la, set(out))
    missing = [c for c in out if c not in la]
    if missing:
        raise _C.InvalidArgumentError(f"einsum: output subscript {missing[0]!r} appears in no operand of "
                                      f"'{equation}'")
    return _permute(a, la, out)

__all__ = ["einsum"]
