"""Gamma, Chi2, Beta, Dirichlet, StudentT: densities and entropies through lgamma and digamma
(docs/special-functions.md), so log_prob and entropy carry gradients to the parameters. rsample
differentiates a Gamma draw implicitly, as PyTorch's does: x is held at its quantile u = P(a, x),
so dx/da = -(dP/da)(a, x) / p(x; a), P the regularized incomplete gamma function, whose
derivative comes from its series (docs/distributions.md); Beta, Dirichlet, Chi2 and StudentT
draws are built from Gamma draws and inherit it."""
from __future__ import annotations

import math

from .. import _C
from .._factories import arange, rand, randn
from .._math import xlogy
from .._runtime import no_grad, records_grad
from .._size import Size
from .._special import digamma, lgamma
from .._tensor import Tensor
from ..functional import where
from .continuous import _all
from .distribution import Distribution, broadcast_all
from .exp_family import ExponentialFamily


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws of alpha's shape, no gradient: Marsaglia and Tsang's squeeze for
    alpha + 1 (accepting over 95% of proposals, repeated until every element is accepted), times
    U^(1/alpha) to come down to alpha."""
    with no_grad():
        a = alpha.detach()
        d = (a + 1) - 1 / 3
        c = 1 / (9 * d).sqrt()
        out = a * 0
        done = a != a  # all False
        while not _all(done):
            x = randn(a.shape, dtype=a.dtype, device=a.device)
            u = rand(a.shape, dtype=a.dtype, device=a.device)
            v = (1 + c * x) ** 3
            safe_v = where(v > 0, v, 1.0)
            ok = (v > 0) & (u.log() < 0.5 * x * x + d - d * safe_v + d * safe_v.log())
            take = ok & ~done
            out = where(take, d * safe_v, out)
            done = done | ok
        boost = rand(a.shape, dtype=a.dtype, device=a.device) ** (1 / a)
        return out * boost


_MAX_SERIES = 20000


def _dx_dalpha(x: Tensor, a: Tensor) -> Tensor:
    """dx/da of Gamma(a, 1) draws x at fixed quantile: -(dP/da) / p(x; a), with the series
    P(a, x) = sum_n t_n, t_n = exp((a + n) log x - x - lgamma(a + n + 1)), dP/da = sum_n t_n
    (log x - digamma(a + n + 1)), summed in the ratio t_n / p(x; a) (no underflow); n runs to
    x + 12 sqrt(x) + 40, past every term that counts in float64."""
    with no_grad():
        top = float(x.max().item()) if x.numel() else 0.0
        terms = int(top + 12 * math.sqrt(top) + 40)
        if terms > _MAX_SERIES:
            raise _C.UnsupportedError(f"Gamma.rsample: a draw of {top:.4g} needs {terms} series terms for its "
                                      f"gradient (at most {_MAX_SERIES})\n  fix: sample() (no gradient), or rescale "
                                      "the distribution so that draws stay below ~18000")
        xs = where(x > 0, x, 1.0)
        logx = xs.log().unsqueeze(-1)
        an = a.unsqueeze(-1) + arange(terms, dtype=x.dtype, device=x.device) + 1
        log_pdf = ((a - 1) * xs.log() - xs - lgamma(a)).unsqueeze(-1)
        log_ratio = (an - 1) * logx - xs.unsqueeze(-1) - lgamma(an) - log_pdf
        d = -(log_ratio.exp() * (logx - digamma(an))).sum(-1)
        return where(x > 0, d, 0.0)


def gamma_rsample(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws of alpha's shape whose gradient to alpha is the implicit one."""
    g = standard_gamma(alpha)
    if alpha.requires_grad and records_grad():
        a = alpha.detach()
        g = g + (alpha - a) * _dx_dalpha(g, a)  # the value is g exactly; the gradient dx/da
    return g


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^a x^(a-1) e^(-rate x) / Gamma(a) on x > 0."""

    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * (-1 / y).log()

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)
        self._check(_all(self.concentration > 0), "concentration must be positive")
        self._check(_all(self.rate > 0), "rate must be positive")

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate ** 2

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return gamma_rsample(self.concentration.expand(*shape)) / self.rate.expand(*shape)

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        a, r = self.concentration, self.rate
        return xlogy(a, r) + xlogy(a - 1, v) - r * v - lgamma(a)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + lgamma(a) + (1 - a) * digamma(a)

    def cdf(self, value) -> Tensor:
        from .._special import igamma
        return igamma(self.concentration, self.rate * self._value(value))


class Chi2(Gamma):
    """Chi2(df): Gamma(df / 2, 1 / 2)."""

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, df * 0 + 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration [..., k]): a draw is a probability vector over the last axis."""

    has_rsample = True

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))

    def __init__(self, concentration, validate_args=None):
        (c,) = broadcast_all(concentration)
        if c.ndim < 1:
            raise ValueError("Dirichlet: concentration must be at least one-dimensional\n  fix: pass [..., k]")
        self.concentration = c
        super().__init__(c.shape[:-1], c.shape[-1:], validate_args=validate_args)
        self._check(_all(c > 0), "concentration must be positive")

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """torch's: (c - 1)+ normalized; where every c < 1 the mode is the first vertex."""
        from ..functional import one_hot
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        corner = self.concentration * 0 + one_hot(self.concentration[..., 0].long() * 0,
                                                  self.concentration.shape[-1]).to(mode.dtype)
        return where((self.concentration < 1).all(-1, keepdim=True), corner, mode)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0 ** 2 * (c0 + 1))

    def rsample(self, sample_shape=Size()) -> Tensor:
        g = gamma_rsample(self.concentration.expand(*self._extended_shape(sample_shape)))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        c = self.concentration
        return xlogy(c - 1, v).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.shape[-1]
        c0 = c.sum(-1)
        return lgamma(c).sum(-1) - lgamma(c0) - (k - c0) * digamma(c0) - ((c - 1) * digamma(c)).sum(-1)


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0) on (0, 1): density x^(a-1) (1-x)^(b-1) / B(a, b)."""

    has_rsample = True

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)
        self._check(_all(self.concentration1 > 0) and _all(self.concentration0 > 0),
                    "concentration1 and concentration0 must be positive")

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """Dirichlet([a, b]).mode's first entry, as torch's: 0 or 1 where a concentration is below 1."""
        a, b = (self.concentration1 - 1).clamp(min=0.0), (self.concentration0 - 1).clamp(min=0.0)
        both_below = (self.concentration1 < 1) & (self.concentration0 < 1)
        return where(both_below, 1.0, a / (a + b))

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        t = a + b
        return a * b / (t ** 2 * (t + 1))

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = gamma_rsample(self.concentration1.expand(*shape))
        y = gamma_rsample(self.concentration0.expand(*shape))
        return x / (x + y)

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        a, b = self.concentration1, self.concentration0
        return xlogy(a - 1, v) + xlogy(b - 1, 1 - v) + lgamma(a + b) - lgamma(a) - lgamma(b)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        t = a + b
        return (lgamma(a) + lgamma(b) - lgamma(t) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (t - 2) * digamma(t))


class StudentT(Distribution):
    """StudentT(df, loc=0, scale=1): loc + scale * T_df."""

    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)
        self._check(_all(self.df > 0), "df must be positive")
        self._check(_all(self.scale > 0), "scale must be positive")

    @property
    def mean(self) -> Tensor:
        return where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        v = self.scale ** 2 * df / where(df > 2, df - 2, 1.0)
        return where(df > 2, v, where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        df = self.df.expand(*shape)
        z = randn(shape, dtype=df.dtype, device=df.device)
        chi2 = gamma_rsample(0.5 * df) * 2
        return self.loc + self.scale * z * (df / chi2).sqrt()

    def log_prob(self, value) -> Tensor:
        y = (self._value(value) - self.loc) / self.scale
        df = self.df
        z = self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) + lgamma(0.5 * df) - lgamma(0.5 * (df + 1))
        return -0.5 * (df + 1) * (y * y / df).log1p() - z

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (digamma(0.5 * (df + 1)) - digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
