"""einops' layers as glassgrad modules: Rearrange, Reduce and EinMix, which einops.layers.torch
builds on PyTorch's nn.Module, built here from the same einops mixins on glassgrad.nn.Module
(docs/porting.md, "einops"). tools/port_script.py rewrites `from einops.layers.torch import ...`
to this module, so a ported script's `nn.Sequential(Rearrange(...), nn.Linear(...))` holds a
glassgrad layer. Needs the einops package (importing glassgrad does not import this module).

The mixins parse the pattern and keep einops' repr and pickling (the pattern and axes lengths);
the forward passes run the recipe through glassgrad's einops backend (_einops_backend.py), so
shapes, dtypes and gradients are those einops.rearrange / einops.reduce give the same tensor."""
from __future__ import annotations

from typing import Dict, Optional

from einops.layers import RearrangeMixin, ReduceMixin
from einops.layers._einmix import _EinmixMixin

import glassgrad as gg
from glassgrad import nn

__all__ = ["Rearrange", "Reduce", "EinMix"]


class Rearrange(RearrangeMixin, nn.Module):
    """einops.rearrange with the pattern and axis lengths given once, as a layer:
    Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=8, p2=8)."""

    def forward(self, input):
        return self._apply_recipe(input)


class Reduce(ReduceMixin, nn.Module):
    """einops.reduce with the pattern, reduction and axis lengths given once, as a layer:
    Reduce('b c h w -> b c', 'mean')."""

    def forward(self, input):
        return self._apply_recipe(input)


class EinMix(_EinmixMixin, nn.Module):
    """An einsum of the input with a weight the layer holds (and a bias added), with einops
    rearranges before and after: EinMix('t b cin -> t b cout', weight_shape='cin cout',
    bias_shape='cout', cin=10, cout=20). Weight and bias start uniform within the bounds the
    mixin computes (He's, from the axes mixed), as einops.layers.torch's."""

    def _create_parameters(self, weight_shape, weight_bound, bias_shape, bias_bound):
        self.weight = nn.Parameter(gg.zeros(weight_shape).uniform_(-weight_bound, weight_bound))
        if bias_shape is not None:
            self.bias = nn.Parameter(gg.zeros(bias_shape).uniform_(-bias_bound, bias_bound))
        else:
            self.bias = None

    # (mypy reads Rearrange's __init__ as nn.Module's: einops' mixin, whose __init__ takes the pattern,
    # comes first in its bases, but einops carries no types)
    def _create_rearrange_layers(self, pre_reshape_pattern: Optional[str], pre_reshape_lengths: Optional[Dict],
                                 post_reshape_pattern: Optional[str], post_reshape_lengths: Optional[Dict]):
        self.pre_rearrange = None
        if pre_reshape_pattern is not None:
            self.pre_rearrange = Rearrange(pre_reshape_pattern, **(pre_reshape_lengths or {}))  # type: ignore[call-arg]
        self.post_rearrange = None
        if post_reshape_pattern is not None:
            self.post_rearrange = Rearrange(post_reshape_pattern, **(post_reshape_lengths or {}))  # type: ignore[call-arg]

    def forward(self, input):
        if self.pre_rearrange is not None:
            input = self.pre_rearrange(input)
        result = gg.einsum(self.einsum_pattern, input, self.weight)
        if self.bias is not None:
            result = result + self.bias
        if self.post_rearrange is not None:
            result = self.post_rearrange(result)
        return result
