"""glassgrad.special: torch.special's names for glassgrad's special functions
(docs/special-functions.md): each is the top-level function of the same meaning."""
from ._math import erf, exp2, expm1, log1p, logit, round, sigmoid as expit, sinc, xlog1py, xlogy
from ._reductions import logsumexp
from ._special import digamma, erfc, erfinv, igamma as gammainc, igammac as gammaincc, lgamma as gammaln
from ._special import mvlgamma as multigammaln, polygamma
from ._special_more import entr, erfcx, i0, i0e, i1, i1e, log_ndtr, modified_bessel_i0, modified_bessel_i1, ndtr, ndtri
from ._special_more import bessel_j0, bessel_j1, spherical_bessel_j0, zeta
from . import functional as _functional
from ._namespace_out import SPECIAL_NAMES as _SPECIAL_NAMES, add_out as _add_out

psi = digamma


def softmax(input, dim: int, dtype=None):
    """torch.special.softmax: softmax over dim (needed, as in PyTorch), in dtype when given."""
    return _functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim: int, *, dtype=None):
    """torch.special.log_softmax: log_softmax over dim (needed, as in PyTorch), in dtype when given."""
    return _functional.log_softmax(input, dim, dtype=dtype)


_add_out(globals(), _SPECIAL_NAMES)  # torch.special's out= (the top-level functions keep their own)
del _add_out, _SPECIAL_NAMES

__all__ = ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
