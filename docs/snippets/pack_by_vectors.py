"""The CPU GEMM's A packed by whole vectors in NumPy: a sliver of MR rows stored MR values a
column, each column written as one vector of L >= MR values whose overhang lands on the next
column's place and is overwritten by it, the sliver's last column at its own size. Row-major A
goes L columns at a time through an L x L transpose; column-major A loads one vector a column.
Checked against the plain packed form, with guard values around the sliver, and against
glassgrad's product. docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
MR, L = 6, 8                       # the AVX2 float32 loop nest's sliver rows, and a vector's lanes


# --8<-- [start:store]
def store_column(dst, at, v, last):
    """One column of the sliver: the whole vector (its last L - MR values fall on the next
    column's place), or for the sliver's last column only its MR values."""
    n = MR if last else L
    dst[at:at + n] = v[:n]


def pack_rows_sliver(a, i0, kc, dst, base):
    """Rows i0 .. i0 + MR of a row-major A, L columns at a time: the MR row vectors and
    L - MR zero vectors make an L x L block whose transpose holds a column per vector."""
    p = 0
    while p + L <= kc:
        block = np.zeros((L, L), a.dtype)
        block[:MR] = a[i0:i0 + MR, p:p + L]               # MR vector loads
        for t, v in enumerate(block.T):                    # transposed in registers
            store_column(dst, base + (p + t) * MR, v, p + t + 1 == kc)
        p += L
    for q in range(p, kc):                                 # the last kc % L columns, value by value
        dst[base + q * MR:base + (q + 1) * MR] = a[i0:i0 + MR, q]


def pack_cols_sliver(flat, cs, i0, kc, dst, base):
    """Rows i0 .. i0 + MR of a column-major A (element (i, q) at flat[i + q * cs]): one vector
    load a column, L values from row i0 on, past the sliver into the next column's first rows;
    the last column (after which A's storage may end) value by value."""
    for q in range(kc - 1):
        v = flat[i0 + q * cs:i0 + q * cs + L]
        store_column(dst, base + q * MR, v, False)
    dst[base + (kc - 1) * MR:base + kc * MR] = flat[i0 + (kc - 1) * cs:i0 + (kc - 1) * cs + MR]
# --8<-- [end:store]


# --8<-- [start:check]
m, kc = 3 * MR, 2 * L + 3                                  # three slivers, columns 2 L + 3
a = rng.standard_normal((m, kc))
plain = a.reshape(m // MR, MR, kc).transpose(0, 2, 1).ravel()  # the packed form, value by value
guard = 4
for form in ("row-major", "column-major"):
    packed = np.full(m * kc + guard, np.nan)
    for s in (2, 0, 1):                                    # slivers in any order (threads)
        base = s * MR * kc
        if form == "row-major":
            pack_rows_sliver(a, s * MR, kc, packed, base)
        else:
            pack_cols_sliver(a.T.ravel(), m, s * MR, kc, packed, base)
    assert np.array_equal(packed[:m * kc], plain), form       # every overhang was overwritten
    assert np.isnan(packed[m * kc:]).all(), form              # nothing past the form
a32, b32 = a.astype(np.float32), rng.standard_normal((kc, 40)).astype(np.float32)
(glassgrad_c,) = K.run_numpy("MatMul", a32, b32)            # float32: packed by vectors on AVX2
assert np.allclose(glassgrad_c, a32.astype(np.float64) @ b32, rtol=1e-5, atol=1e-5)
print(f"{m // MR} slivers of {MR} rows x {kc} columns packed by {L}-wide vectors, both layouts")
# --8<-- [end:check]
