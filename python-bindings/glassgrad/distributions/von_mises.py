"""VonMises(loc, concentration): the circular normal, density exp(k cos(x - loc)) / (2 pi I0(k)).
log I0 and log I1 use the polynomial approximations of Abramowitz and Stegun 9.8.1-9.8.4 (as
torch's, so values agree), composed of differentiable ops: log_prob carries gradients to both
parameters. Draws by Best and Fisher's rejection sampler (1979), computed in float64, no gradient
(has_rsample is False, as torch's); they lie in [-pi, pi)."""
from __future__ import annotations

import math
from typing import Any

from .._factories import rand
from .._runtime import no_grad
from .._size import Size
from .._tensor import Tensor, float64
from ..functional import where
from .distribution import LocCentred, broadcast_all

# (small-argument coefficients in (x / 3.75)^2, large-argument ones in 3.75 / x), for I0 and I1
_I0 = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
       [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
        -0.1647633e-1, 0.392377e-2])
_I1 = ([0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3],
       [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
        0.1787654e-1, -0.420059e-2])


def _horner(y: Any, coef) -> Any:
    result = y * 0 + coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def log_modified_bessel(x: Any, order: int = 0) -> Any:
    """log I_order(x), order 0 or 1, x > 0: the series below x = 3.75, the asymptotic form above."""
    small_coef, large_coef = (_I0, _I1)[order]
    small = _horner((x / 3.75) ** 2, small_coef)
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, large_coef).log()
    return where(x < 3.75, small.log(), large)


class VonMises(LocCentred):
    """VonMises(loc, concentration > 0): mean = mode = loc; variance = 1 - I1(k) / I0(k) (circular)."""

    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        return (self.concentration * (v - self.loc).cos() - math.log(2 * math.pi)
                - log_modified_bessel(self.concentration, 0))

    @property
    def variance(self) -> Tensor:
        k = self.concentration
        return 1 - (log_modified_bessel(k, 1) - log_modified_bessel(k, 0)).exp()

    def _proposal_r(self, kappa: Any) -> Any:
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=Size()) -> Tensor:
        """Best-Fisher: propose f from the wrapped Cauchy envelope, accept by the two squeezes."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            loc = self.loc.detach().to(float64)
            kappa = self.concentration.detach().to(float64)
            r = self._proposal_r(kappa)
            x = loc.expand(*shape) * 0
            done = x != x  # all False
            while not bool(done.all().item()):
                u1, u2, u3 = (rand(shape, dtype=float64, device=x.device) for _ in range(3))
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None) -> "VonMises":
        b = tuple(batch_shape)
        return VonMises(self.loc.expand(*b), self.concentration.expand(*b), validate_args=self._validate_args)
