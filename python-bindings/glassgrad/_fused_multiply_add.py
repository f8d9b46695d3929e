"""a * b + c rounded once (a fused multiply-add), in float64 NumPy arithmetic: what PyTorch's
CPU kernels compute where its compiler fuses a multiply and an add (linspace's start + i * step).

Error-free transformations give a * b + c exactly as uh + ul + pl (TwoSum, and TwoProduct through
Dekker's split); rounding ul + pl to odd and then uh + that to nearest is the correctly rounded
sum (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
rounding to odd", IEEE Trans. Computers 2008). Valid without overflow or underflow of the
products: |a * b| and |c| well inside float64's range, as linspace's values are."""
from __future__ import annotations

import numpy as np


def _two_sum(a: np.ndarray, b: np.ndarray):
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray):
    """a = hi + lo, each with at most 26 significant bits (Veltkamp: 2**27 + 1)."""
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: np.ndarray, b: np.ndarray):
    """(p, e) with p = fl(a * b) and a * b = p + e exactly (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fused_multiply_add(a, b, c) -> np.ndarray:
    """a * b + c with one rounding to float64 (elementwise, broadcast)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    ph, pl = _two_product(a, b)
    uh, ul = _two_sum(c, ph)
    th, tl = _two_sum(ul, pl)
    # th rounded to odd: one step toward the discarded tl when th's last bit is even
    even = (th.view(np.int64) & 1) == 0
    th = np.where((tl != 0) & even, np.nextafter(th, np.where(tl > 0, np.inf, -np.inf)), th)
    return uh + th
