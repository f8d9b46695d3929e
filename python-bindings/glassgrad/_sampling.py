"""torch.poisson and torch.binomial: draws whose parameters are tensors, read from the data (they
compute pending work), drawn by glassgrad's generator (or the Generator passed) as a new tensor of
the rates' dtype and device. As PyTorch's, a draw has gradient zero to its parameters."""
from __future__ import annotations

import numpy as np

from . import _C
from ._factories import _random_leaf, _rng
from ._math import add, clamp, mul
from ._tensor import Tensor

__all__ = ["binomial", "poisson"]


def _floating(t, name: str, where: str) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise _C.InvalidArgumentError(f"{where}: {name} must be a glassgrad.Tensor, got {type(t).__name__}\n"
                                      f"  fix: {where}(torch.tensor([...]))")
    if not t.dtype.is_floating_point:
        raise _C.DTypeError(f"{where} only supports floating-point dtypes for {name}, got: {t.dtype}\n"
                            f"  fix: {where}({name}.float())")
    return np.asarray(t.detach().double().numpy(force=True))


def _zero_gradient(draw: Tensor, *params: Tensor) -> Tensor:
    """draw, joined to the params that require grad by a term of value 0 (an infinite parameter
    clamped to the largest finite value first): their gradient is zero, as PyTorch's
    PoissonBackward0/BinomialBackward0 give."""
    from ._type_info import finfo
    for p in params:
        if p.requires_grad:
            big = finfo(p.dtype).max
            draw = add(draw, mul(clamp(p, -big, big), 0))
    return draw


def poisson(input: Tensor, generator=None) -> Tensor:
    """torch.poisson(input, generator=None): a Poisson draw for each rate of input (rates >= 0)."""
    rates = _floating(input, "input", "poisson")
    if (rates < 0).any() or np.isnan(rates).any():
        raise _C.InvalidArgumentError(f"invalid Poisson rate, expected rate to be non-negative (found "
                                      f"{rates[~(rates >= 0)].ravel()[0]})\n  fix: rates >= 0, e.g. x.clamp(min=0)")
    out: Tensor = _random_leaf(lambda: np.asarray(_rng(generator).poisson(rates), dtype=np.float64), input.device)
    return _zero_gradient(out.astype(input.dtype), input)


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """torch.binomial(count, prob, generator=None): the number of successes of `count` trials of
    probability `prob` (broadcast together), in count's dtype."""
    n, p = _floating(count, "count", "binomial"), _floating(prob, "prob", "binomial")
    if (n < 0).any() or not ((p >= 0) & (p <= 1)).all():
        raise _C.InvalidArgumentError("binomial: counts must be >= 0 and probabilities in [0, 1]\n"
                                      "  fix: binomial(count.clamp(min=0), prob.clamp(0, 1))")
    shape = np.broadcast_shapes(n.shape, p.shape)
    trials = np.floor(np.broadcast_to(n, shape)).astype(np.int64)
    out: Tensor = _random_leaf(lambda: _rng(generator).binomial(trials, np.broadcast_to(p, shape)).astype(np.float64),
                       count.device)
    return _zero_gradient(out.astype(count.dtype), count, prob)
