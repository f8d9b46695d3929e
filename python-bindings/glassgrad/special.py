"""glassgrad.special: torch.special's names for glassgrad's special functions
(docs/special-functions.md): each is the top-level function of the same meaning."""
from ._math import erf, exp2, expm1, log1p, logit, round, sigmoid as expit, sinc, xlog1py, xlogy
from ._reductions import logsumexp
from ._special import digamma, erfc, erfinv, igamma as gammainc, igammac as gammaincc, lgamma as gammaln
from ._special import mvlgamma as multigammaln, polygamma

psi = digamma

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "log1p", "logit", "logsumexp",
           "multigammaln", "polygamma", "psi", "round", "sinc", "xlog1py", "xlogy"]
