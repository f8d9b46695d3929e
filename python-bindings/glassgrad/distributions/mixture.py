"""MixtureSameFamily(mixture_distribution, component_distribution): a Categorical over the
components' rightmost batch axis picks one component per draw. log_prob is a logsumexp over
the components (differentiable in every parameter); draws carry no gradient, as torch's."""
from __future__ import annotations

from typing import Any

from .._runtime import no_grad
from .._size import Size
from .._tensor import Tensor
from .discrete import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    """mixture_distribution: Categorical with batch_shape B and K categories; component_distribution:
    batch_shape B + (K,), any event_shape E. The mixture has batch_shape B and event_shape E."""

    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape)[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({list(mdbs)}) is not compatible with "
                                 f"`component_distribution.batch_shape`({list(cdbs)})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(Size(cdbs), component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def expand(self, batch_shape, _instance=None) -> Distribution:
        b = tuple(batch_shape)
        return MixtureSameFamily(self._mixture_distribution.expand(b),  # type: ignore[arg-type]
                                 self._component_distribution.expand(b + (self._num_component,)),
                                 self._validate_args)

    def _pad(self, x: Any) -> Any:
        """x with an axis for the components, before the event axes."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _mixture_probs(self) -> Any:
        p: Any = self._mixture_distribution.probs
        for _ in range(self._event_ndims):
            p = p.unsqueeze(-1)
        return p

    @property
    def mean(self) -> Tensor:
        comp: Any = self._component_distribution.mean
        return (self._mixture_probs() * comp).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        probs = self._mixture_probs()
        axis = -1 - self._event_ndims
        comp_mean: Any = self._component_distribution.mean
        mean_cond_var = (probs * self._component_distribution.variance).sum(axis)
        var_cond_mean = (probs * (comp_mean - self._pad(self.mean)) ** 2).sum(axis)
        return mean_cond_var + var_cond_mean

    def log_prob(self, value) -> Tensor:
        from .._reductions import logsumexp
        from ..nn.functional import log_softmax
        lp: Any = self._component_distribution.log_prob(self._pad(self._value(value)))
        return logsumexp(lp + log_softmax(self._mixture_distribution.logits, -1), -1)

    def cdf(self, value) -> Tensor:
        cdf_x: Any = self._component_distribution.cdf(self._pad(self._value(value)))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=Size()) -> Tensor:
        """Every component drawn, then the mixture's pick gathered along the component axis."""
        with no_grad():
            shape = (sample_shape,) if isinstance(sample_shape, int) else tuple(sample_shape)
            pick: Any = self._mixture_distribution.sample(shape)  # shape + B
            comp: Any = self._component_distribution.sample(shape)  # shape + B + (K,) + E
            es = tuple(self.event_shape)
            index = pick.reshape(*pick.shape, 1, *([1] * len(es)))
            index = index.expand(*comp.shape[:len(comp.shape) - len(es) - 1], 1, *es)
            return comp.gather(len(comp.shape) - len(es) - 1, index).squeeze(len(comp.shape) - len(es) - 1)
