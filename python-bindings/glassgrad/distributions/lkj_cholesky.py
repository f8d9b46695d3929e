"""LKJCholesky(dim, concentration=1): the LKJ distribution over dim x dim correlation matrices,
expressed on their lower Cholesky factors (Lewandowski, Kurowicka and Joe, 2009). log_prob is
torch's: sum_i (2 (eta - 1) + dim - i) log L_ii over i = 2..dim, less the normalizer through
lgamma and mvlgamma, differentiable in the concentration. Draws by the onion method as the paper
gives it (__init__ says where torch's differs): row i is sqrt(y_i) times a uniform direction, y_i ~ Beta(i/2, eta + (dim - 1 - i)/2), the diagonal
completing each row to unit length; no rsample, as torch's."""
from __future__ import annotations

import math
from typing import Any

from .._factories import arange, randn
from .._runtime import no_grad
from .._size import Size
from .._special import lgamma, mvlgamma
from .._spatial import cat
from .._tensor import Tensor
from .._type_info import finfo
from ..functional import where
from .distribution import Distribution, broadcast_all
from .gamma import Beta


class LKJCholesky(Distribution):
    """dim >= 2; concentration (eta) > 0 broadcast as the batch; event_shape (dim, dim)."""

    def __init__(self, dim: int, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = int(dim)
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        steps = arange(self.dim - 1, dtype=c.dtype, device=c.device)
        offset: Any = cat([steps[:1] * 0, steps])  # Any: Distribution._value says why
        marginal = c + 0.5 * (self.dim - 2)
        # row i >= 1: y_i ~ Beta(i / 2, eta + (dim - 2) / 2 - (i - 1) / 2), the onion method's
        # (LKJ 2009, section 3.2). torch writes the first parameter as i - 1/2, which leaves rows 2 and
        # below with correlations wider than the LKJ marginal Beta(eta - 1 + dim / 2) on (-1, 1).
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset, validate_args=False)
        super().__init__(c.shape, (self.dim, self.dim), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "LKJCholesky":
        return LKJCholesky(self.dim, self.concentration.expand(*tuple(batch_shape)), validate_args=self._validate_args)

    def sample(self, sample_shape=Size()) -> Tensor:
        with no_grad():
            y: Any = self._beta.sample(sample_shape)
            y = y.unsqueeze(-1)
            u = randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            on_sphere = where(norm > 0, u / where(norm > 0, norm, 1.0), 0.0)  # row 0 has no direction
            w = y.sqrt() * on_sphere
            diag = (1 - (w * w).sum(-1)).clamp(min=finfo(w.dtype).tiny).sqrt()
            from .._shapes import diag_embed
            return w + diag_embed(diag)

    def log_prob(self, value) -> Tensor:
        v: Any = self._value(value)
        c = self.concentration
        diag = v.diagonal(0, -1, -2)[..., 1:]
        order = 2 * (c - 1).unsqueeze(-1) + self.dim - arange(2, self.dim + 1, dtype=c.dtype, device=c.device)
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = c + 0.5 * dm1
        log_gamma: Any = lgamma(alpha)
        log_mv_gamma: Any = mvlgamma(alpha - 0.5, dm1)
        normalizer = 0.5 * dm1 * math.log(math.pi) + log_mv_gamma - log_gamma * dm1
        return unnormalized - normalizer
