"""Sizes that follow the dynamic axes of an export: integer polynomials in the axes' sizes.

A glassgrad graph is static: every shape and every size-valued attribute (a Reshape's target, a
Slice's end) is a plain integer of the traced call. To learn which of them follow a dynamic axis,
the exporter traces the model at several sizes of the dynamic axes (docs/export.md, "Dynamic
axes") and fits each integer that changes as a multilinear polynomial of the axes' sizes:

    q(s_1, ..., s_k) = sum over subsets c of {1..k} of  a_c * prod_{i in c} s_i

The 2^k traces at the corners (each s_i at its base value v0_i or at v1_i) determine the a_c
exactly: in the variables t_i = (s_i - v0_i) / (v1_i - v0_i), which are 0 or 1 at the corners,
q = sum_c b_c prod_{i in c} t_i with b_c = sum_{d subset of c} (-1)^{|c| - |d|} q(corner d)
(inclusion-exclusion), and substituting t_i back gives the a_c. One more trace, with every s_i at
a third value, checks the fit: a size such as B // 2 or B * B is refused there instead of being
exported wrong.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Union

Monomial = FrozenSet[str]


class Sym:
    """An integer polynomial in named sizes: {monomial (a set of size names): coefficient}."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Monomial, int]):
        self.terms: Dict[Monomial, int] = {m: int(c) for m, c in terms.items() if c != 0}

    @staticmethod
    def of(name: str) -> "Sym":
        return Sym({frozenset([name]): 1})

    @property
    def constant(self) -> int:
        return self.terms.get(frozenset(), 0)

    @property
    def symbols(self) -> List[str]:
        return sorted({s for m in self.terms for s in m})

    def is_symbol(self) -> Optional[str]:
        """The size's name when this is exactly one dynamic axis' size (coefficient 1, nothing
        added), else None."""
        if len(self.terms) == 1:
            (m, c), = self.terms.items()
            if c == 1 and len(m) == 1:
                return next(iter(m))
        return None

    def evaluate(self, values: Mapping[str, int]) -> int:
        total = 0
        for m, c in self.terms.items():
            p = c
            for s in m:
                p *= values[s]
            total += p
        return total

    def __eq__(self, other) -> bool:
        return isinstance(other, Sym) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __str__(self) -> str:
        """'batch', '35*batch', 'batch*seq+1': the dim_param an ONNX file shows for it."""
        parts = []
        for m, c in sorted(self.terms.items(), key=lambda mc: (len(mc[0]), sorted(mc[0]))):
            names = "*".join(sorted(m))
            if not names:
                parts.append(str(c))
            elif c == 1:
                parts.append(names)
            else:
                parts.append(f"{c}*{names}")
        return "+".join(parts).replace("+-", "-") or "0"

    __repr__ = __str__


Dim = Union[int, Sym]


class NotPolynomial(Exception):
    """The values an integer took in the traces fit no integer multilinear polynomial."""


class Corners:
    """The sizes each trace used: the base values, the corner values and the check values of every
    dynamic axis. Trace 0 is the base; trace j for j in 1..2^k - 1 moves the axes of bit set j;
    the last trace moves every axis to its check value."""

    def __init__(self, base: Mapping[str, int], moved: Mapping[str, int], check: Mapping[str, int]):
        self.names = sorted(base)
        self.base, self.moved, self.check = dict(base), dict(moved), dict(check)

    def traces(self) -> List[Dict[str, int]]:
        out = []
        k = len(self.names)
        for bits in range(1 << k):
            out.append({n: (self.moved[n] if bits >> i & 1 else self.base[n]) for i, n in enumerate(self.names)})
        out.append(dict(self.check))
        return out

    def fit(self, values: Sequence[int]) -> Dim:
        """The polynomial taking values[j] at trace j's sizes (an int when it does not vary)."""
        k = len(self.names)
        corner = list(values[:1 << k])
        if all(v == corner[0] for v in values):
            return int(corner[0])
        # b_c in the t variables, by inclusion-exclusion over the subsets of c.
        b: Dict[int, int] = {}
        for c in range(1 << k):
            total = 0
            d = c
            while True:  # every subset d of c
                total += (-1) ** (bin(c).count("1") - bin(d).count("1")) * corner[d]
                if d == 0:
                    break
                d = (d - 1) & c
            b[c] = total
        # t_i = (s_i - v0_i) / h_i: expand prod_{i in c} t_i into monomials of the s_i.
        terms: Dict[Monomial, Fraction] = {}
        for c, bc in b.items():
            if bc == 0:
                continue
            members = [i for i in range(k) if c >> i & 1]
            for chosen in itertools.product((True, False), repeat=len(members)):
                coeff = Fraction(bc)
                mono = []
                for i, take in zip(members, chosen):
                    n = self.names[i]
                    h = self.moved[n] - self.base[n]
                    coeff /= h
                    if take:
                        mono.append(n)
                    else:
                        coeff *= -self.base[n]
                key = frozenset(mono)
                terms[key] = terms.get(key, Fraction(0)) + coeff
        if any(c.denominator != 1 for c in terms.values()):
            raise NotPolynomial(values)
        sym = Sym({m: int(c) for m, c in terms.items()})
        if sym.evaluate(self.check) != values[-1]:
            raise NotPolynomial(values)
        return sym.constant if not sym.symbols else sym


def shape_str(shape: Sequence[Dim]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"

