"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve: A = P L D L^T P^T for a symmetric A, with
Bunch-Kaufman diagonal pivoting (D of 1x1 and 2x2 blocks), in LAPACK sytrf's compact form (L's
multipliers below D in LD, pivots 1-based int32, negative on both rows of a 2x2 block), as
PyTorch returns it. The unblocked algorithm (LAPACK's sytf2 and sytrs, lower triangle: PyTorch's
choice) runs on the host in float64 NumPy for each matrix of the batch. Neither function is
differentiated (PyTorch's are not either). docs/linalg.md."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._return_types import torch_name
from .. import _C
from .._dtypes import plain
from .._tensor import Tensor, tensor
from ._checks import LinAlgError, batch_prefix, check_float, check_matrix, check_same_dtype, into, into_each

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's growth bound


@torch_name("linalg_ldl_factor")
class LDLFactor(NamedTuple):
    LD: Tensor
    pivots: Tensor


@torch_name("linalg_ldl_factor_ex")
class LDLFactorEx(NamedTuple):
    LD: Tensor
    pivots: Tensor
    info: Tensor


def _first_max(v: np.ndarray) -> int:
    return int(np.argmax(np.abs(v)))  # idamax: the first of equal magnitudes


def _sytf2(a: np.ndarray):
    """(LD, pivots, info) of one symmetric matrix, its lower triangle read: LAPACK sytf2's steps
    (0-based k). The trailing matrix is kept whole and symmetric (its lower triangle mirrored after
    each update), so the interchanges read either half; the computed columns of L are not swapped
    (sytrf's compact form)."""
    a = np.tril(a).astype(np.float64)
    a = a + np.tril(a, -1).T
    n = a.shape[0]
    ipiv = np.zeros(n, np.int64)
    info, k = 0, 0
    while k < n:
        kstep = 1
        absakk = float(abs(a[k, k]))
        imax, colmax = k, 0.0
        if k < n - 1:
            imax = k + 1 + _first_max(a[k + 1:, k])
            colmax = float(abs(a[imax, k]))
        if max(absakk, colmax) == 0.0 or math.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + _first_max(a[imax, k:imax])
                rowmax = abs(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + _first_max(a[imax + 1:, imax])
                    rowmax = max(rowmax, abs(a[jmax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:  # interchange rows and columns kk and kp of the trailing matrix a[k:, k:]
                a[[kk, kp], k:] = a[[kp, kk], k:]
                a[k:, [kk, kp]] = a[k:, [kp, kk]]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= np.outer(x, x * d11)  # syr: A(i, j) + x(i) * (-d11 x(j))
                    a[k + 1:, k] = x * d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                wk = d21 * (d11 * a[k + 2:, k] - a[k + 2:, k + 1])
                wkp1 = d21 * (d22 * a[k + 2:, k + 1] - a[k + 2:, k])
                a[k + 2:, k + 2:] = a[k + 2:, k + 2:] - np.outer(a[k + 2:, k], wk) - np.outer(a[k + 2:, k + 1], wkp1)
                a[k + 2:, k], a[k + 2:, k + 1] = wk, wkp1
            trail = a[k + kstep:, k + kstep:]
            a[k + kstep:, k + kstep:] = np.tril(trail) + np.tril(trail, -1).T
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(a), ipiv, info


def _check_hermitian(hermitian, fn: str) -> None:
    if not isinstance(hermitian, bool):
        raise _C.InvalidArgumentError(f"linalg.{fn}: hermitian must be a bool, got {hermitian!r}")


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None) -> LDLFactorEx:
    """torch.linalg.ldl_factor_ex: (LD, pivots, info) for a symmetric A [..., n, n] (its lower
    triangle is read); info > 0 where D has an exact zero (the factorization is complete, D singular)."""
    check_matrix(A, "ldl_factor_ex")
    _check_hermitian(hermitian, "ldl_factor_ex")
    values: np.ndarray = A.numpy(force=True).astype(np.float64)
    # the batch count spelled out: reshape cannot infer -1 beside a 0 (a 0x0 matrix is one matrix)
    flat = values.reshape((int(np.prod(values.shape[:-2])),) + values.shape[-2:])
    parts = [_sytf2(m) for m in flat]
    LD = np.stack([p[0] for p in parts]).reshape(values.shape) if parts else np.zeros(values.shape)
    piv = np.stack([p[1] for p in parts]).reshape(values.shape[:-1]) if parts else np.zeros(values.shape[:-1], np.int64)
    info = np.array([p[2] for p in parts], np.int64).reshape(values.shape[:-2])
    if check_errors and (info > 0).any():
        b = int(np.argmax(info.reshape(-1) > 0))
        raise LinAlgError(f"torch.linalg.ldl_factor_ex: {batch_prefix(A, b)}The factorization could not be completed "
                          f"because the input is not invertible: D[{int(info.reshape(-1)[b])}] is zero\n"
                          "  fix: the matrix is singular; add a multiple of the identity, or use lstsq")
    dt, dev = A.dtype, A.device
    result = LDLFactorEx(tensor(LD.astype(np.dtype(plain(dt))), device=dev),
                         tensor(piv.astype(np.int32), device=dev), tensor(info.astype(np.int32), device=dev))
    return into_each(out, result, "linalg.ldl_factor_ex")


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None) -> LDLFactor:
    """torch.linalg.ldl_factor: (LD, pivots) of a symmetric A [..., n, n]; LinAlgError for a
    singular one."""
    check_matrix(A, "ldl_factor")
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    bad = info.numpy().reshape(-1)
    if (bad > 0).any():
        b = int(np.argmax(bad > 0))
        raise LinAlgError(f"torch.linalg.ldl_factor: {batch_prefix(A, b)}The factorization could not be completed "
                          f"because the input is not invertible: D[{int(bad[b])}] is zero\n"
                          "  fix: the matrix is singular; add a multiple of the identity, or use lstsq")
    return into_each(out, LDLFactor(LD, pivots), "linalg.ldl_factor")


def _sytrs(ld: np.ndarray, ipiv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """X with A X = B from sytf2's (LD, 1-based pivots): LAPACK's sytrs, lower."""
    n = ld.shape[0]
    b = b.copy()
    k = 0
    while k < n:  # L D Y = P^T B
        if ipiv[k] > 0:
            kp = int(ipiv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] /= ld[k, k]
            k += 1
        else:
            kp = -int(ipiv[k]) - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T X = Y
        if ipiv[k] > 0:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            kp = int(ipiv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= ld[k + 1:, k - 1] @ b[k + 1:]
            kp = -int(ipiv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None) -> Tensor:
    """torch.linalg.ldl_solve: X with A X = B, from ldl_factor's (LD, pivots); B [..., n, k]."""
    check_matrix(LD, "ldl_solve")
    _check_hermitian(hermitian, "ldl_solve")
    check_float(B, "ldl_solve", "B")
    check_same_dtype(LD, B, "torch.linalg.ldl_solve: LD and B must have the same dtype, but got {a} and {b}")
    if pivots.dtype != "int32":
        raise _C.DTypeError(f"linalg.ldl_solve: pivots must be int32, got {pivots.dtype}\n  fix: pass ldl_factor's "
                            "pivots unchanged")
    if B.ndim < 2 or B.shape[-2] != LD.shape[-1] or tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise _C.ShapeError(f"linalg.ldl_solve: LD {list(LD.shape)}, pivots {list(pivots.shape)} and B "
                            f"{list(B.shape)} do not fit: pivots [..., n] and B [..., n, k] for LD [..., n, n]\n"
                            "  fix: a vector b as B = b.unsqueeze(-1)")
    ld: np.ndarray = LD.numpy(force=True).astype(np.float64)
    piv: np.ndarray = pivots.numpy(force=True).astype(np.int64)
    batch = np.broadcast_shapes(ld.shape[:-2], B.shape[:-2])
    count = int(np.prod(batch))
    ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((count,) + ld.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((count,) + piv.shape[-1:])
    b: np.ndarray = B.numpy(force=True).astype(np.float64)
    b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((count,) + b.shape[-2:])
    x = np.stack([_sytrs(l_, p_, b_) for l_, p_, b_ in zip(ld, piv, b)]) if len(b) else np.zeros(b.shape)
    y = tensor(x.reshape(batch + B.shape[-2:]).astype(np.dtype(plain(B.dtype))), device=B.device)
    return into(out, y, "linalg.ldl_solve")
