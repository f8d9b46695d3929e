"""glassgrad.special: torch.special's names for glassgrad's special functions
(docs/special-functions.md): each is the top-level function of the same meaning."""
from ._math import erf, exp2, expm1, log1p, logit, round as _round, sigmoid as expit, sinc, xlog1py, xlogy
from ._reductions import logsumexp
from ._special import digamma, erfc, erfinv, igamma as gammainc, igammac as gammaincc, lgamma as gammaln
from ._special import mvlgamma as multigammaln, polygamma
from ._special_more import entr, erfcx, i0, i0e, i1, i1e, log_ndtr, modified_bessel_i0, modified_bessel_i1, ndtr, ndtri
from ._special_more import bessel_j0, bessel_j1, spherical_bessel_j0, zeta
from ._special_bessel import airy_ai, bessel_y0, bessel_y1, modified_bessel_k0, modified_bessel_k1
from ._special_bessel import scaled_modified_bessel_k0, scaled_modified_bessel_k1
from ._special_polynomials import chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v
from ._special_polynomials import chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he
from ._special_polynomials import laguerre_polynomial_l, legendre_polynomial_p, shifted_chebyshev_polynomial_t
from ._special_polynomials import shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v
from ._special_polynomials import shifted_chebyshev_polynomial_w
from . import functional as _functional
from ._namespace_out import SPECIAL_NAMES as _SPECIAL_NAMES, add_out as _add_out

psi = digamma


def round(input, *, decimals: int = 0):
    """torch.special.round: round(input, decimals=decimals), PyTorch's overload with decimals (an
    integer or bool input is its NotImplementedError, decimals=0 too)."""
    return _round(input, decimals=decimals)


def softmax(input, dim: int, dtype=None):
    """torch.special.softmax: softmax over dim (needed, as in PyTorch), in dtype when given."""
    return _functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim: int, *, dtype=None):
    """torch.special.log_softmax: log_softmax over dim (needed, as in PyTorch), in dtype when given."""
    return _functional.log_softmax(input, dim, dtype=dtype)


_add_out(globals(), _SPECIAL_NAMES)  # torch.special's out= (the top-level functions keep their own)
del _add_out, _SPECIAL_NAMES

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
