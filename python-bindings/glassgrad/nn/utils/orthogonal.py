"""parametrizations.orthogonal (torch.nn.utils.parametrizations.orthogonal): a matrix (or a batch)
kept orthogonal (orthonormal columns or rows) by a map from unconstrained matrices, PyTorch's
maps and trivialization:

    matrix_exp / cayley:  A = X.tril() - X.tril()^T (zero-padded square),  Q = exp(A), or
                          (I - A/2)^-1 (I + A/2), first k columns
    householder:          Q = H_1 ... H_k (reflectors from X's strict lower triangle) times the
                          signs of X's diagonal (truncated to integers, as PyTorch's .int())
    use_trivialization:   the stored X starts at -I and Q is base @ Q, base the orthogonalized
                          weight (a buffer, state_dict key "parametrizations.weight.0.base"),
                          so the initial weight is the orthogonalized original.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ... import _C
from ..._factories import eye, zeros
from ..._spatial import cat
from ..._tensor import Tensor, tensor
from ... import linalg
from ..module import Module
from . import parametrize

_MAPS = ("matrix_exp", "cayley", "householder")


def _householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """linalg.householder_product for [..., n, k]: the first k columns of
    (I - tau_1 v_1 v_1^T) ... (I - tau_k v_k v_k^T), v_i column i of a below the diagonal, 1 on it."""
    n, k = a.shape[-2], a.shape[-1]
    v = a.tril(-1) + eye(n, k, dtype=a.dtype, device=a.device)
    h = eye(n, dtype=a.dtype, device=a.device)
    for i in range(k):
        vi = v[..., :, i:i + 1]
        h = h - (h @ vi) @ vi.mT * tau[..., i:i + 1].unsqueeze(-1)
    return h[..., :, :k]


def _make_orthogonal(q: np.ndarray) -> np.ndarray:
    """Q of the QR decomposition with R's diagonal made positive (PyTorch's geqrf + householder_product)."""
    qq, rr = np.linalg.qr(q)
    return qq * np.sign(np.diagonal(rr, axis1=-2, axis2=-1))[..., None, :]


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        self.use_trivialization = use_trivialization

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            x = x.tril()
            if n != k:
                x = cat([x, zeros(*x.shape[:-2], n, n - k, dtype=x.dtype, device=x.device)], dim=-1)
            a = x - x.mT
            if self.orthogonal_map == "matrix_exp":
                q = linalg.matrix_exp(a)
            else:
                ident = eye(n, dtype=x.dtype, device=x.device)
                q = linalg.solve(ident - a * 0.5, ident + a * 0.5)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).detach().trunc().unsqueeze(-2)
        if self.use_trivialization:
            q = self.base @ q
        return q.mT if transposed else q

    def right_inverse(self, q: Tensor) -> Tensor:
        if tuple(q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {list(self.shape)}. "
                             f"Got a tensor of shape {list(q.shape)}.")
        if not self.use_trivialization:
            raise _C.UnsupportedError("orthogonal(use_trivialization=False): assigning the weight is not supported "
                                      "here\n  fix: use_trivialization=True (the default)")
        arr: np.ndarray = q.numpy(force=True).astype(np.float64)
        n, k = arr.shape[-2], arr.shape[-1]
        if n < k:
            arr = np.swapaxes(arr, -1, -2)
            n, k = k, n
        if n == k:
            eps = 10.0 * n * np.finfo(q.numpy(force=True).dtype).eps
            gram = np.swapaxes(arr, -1, -2) @ arr
            if not np.allclose(gram, np.eye(k), atol=eps):
                arr = _make_orthogonal(arr)
        else:
            from ..._random import generator
            extra = generator().standard_normal(arr.shape[:-2] + (n, n - k))
            arr = _make_orthogonal(np.concatenate([arr, extra], axis=-1))
        self.__dict__.pop("base", None)
        self.register_buffer("base", tensor(arr.astype(q.numpy(force=True).dtype), device=q.device))
        neg_id = np.zeros(self.shape, dtype=q.numpy(force=True).dtype)
        idx = np.arange(min(self.shape[-2:]))
        neg_id[..., idx, idx] = -1.0
        return tensor(neg_id, device=q.device)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: Optional[str] = None, *,
               use_trivialization: bool = True) -> Module:
    """Keeps module.<name> orthogonal (Q^T Q = I for tall, Q Q^T = I for wide matrices; the last two
    dims). orthogonal_map: "matrix_exp" (default for square), "cayley" or "householder" (default
    otherwise). The weight starts at the orthogonalized original. Returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
