"""torchvision.ops.feature_pyramid_network (Lin et al. 2017, "Feature Pyramid Networks for Object
Detection"): FeaturePyramidNetwork, ExtraFPNBlock, LastLevelMaxPool and LastLevelP6P7 with
torchvision's arguments, submodule names (inner_blocks.i.0, layer_blocks.i.0: a 1x1 lateral and a
3x3 output Conv2dNormActivation per level, convolutions kaiming_uniform_(a=1) with zero bias) and
state_dict version (2; version-1 files, whose blocks were bare convolutions, load too).

forward({name: [N, C_i, H_i, W_i]}, finest first) -> OrderedDict {name: [N, out_channels, H_i, W_i]}:
the coarsest level's lateral is the first top-down map; each finer level adds its lateral to the
map above resized to its size (nearest), and every level's map goes through its 3x3 block. The
extra block then appends levels (LastLevelMaxPool: "pool", the last map subsampled by 2;
LastLevelP6P7: "p6" and "p7", RetinaNet's strided convolutions)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Dict, List, Optional, Tuple

from ... import _C, nn
from ...nn import functional as F
from ..._tensor import Tensor
from ..models._layers import Conv2dNormActivation

__all__ = ["ExtraFPNBlock", "FeaturePyramidNetwork", "LastLevelMaxPool", "LastLevelP6P7"]


class ExtraFPNBlock(nn.Module):
    """Base of the FPN's extra levels: forward(results, x, names) -> (results, names) extended."""

    def forward(self, results: List[Tensor], x: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
        raise NotImplementedError(f"{type(self).__name__}.forward: an ExtraFPNBlock subclass defines forward("
                                  f"results, x, names) returning the extended (results, names)")


class FeaturePyramidNetwork(nn.Module):
    """FeaturePyramidNetwork(in_channels_list, out_channels, extra_blocks=None, norm_layer=None)."""

    _version = 2

    def __init__(self, in_channels_list: List[int], out_channels: int, extra_blocks: Optional[ExtraFPNBlock] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise _C.InvalidArgumentError(
                    "in_channels=0 is currently not supported\n  FeaturePyramidNetwork: in_channels_list="
                    f"{list(in_channels_list)}\n  fix: list only the levels that have channels")
            self.inner_blocks.append(Conv2dNormActivation(in_channels, out_channels, kernel_size=1, padding=0,
                                                          norm_layer=norm_layer, activation_layer=None))
            self.layer_blocks.append(Conv2dNormActivation(out_channels, out_channels, kernel_size=3,
                                                          norm_layer=norm_layer, activation_layer=None))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(f"extra_blocks should be of type ExtraFPNBlock not {type(extra_blocks)}")
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        if (local_metadata.get("version") or 1) < 2:  # version 1: the blocks were bare convolutions
            for block in ("inner_blocks", "layer_blocks"):
                for i in range(len(self.inner_blocks)):
                    for kind in ("weight", "bias"):
                        old = f"{prefix}{block}.{i}.{kind}"
                        if old in state_dict:
                            state_dict[f"{prefix}{block}.{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def get_result_from_inner_blocks(self, x: Tensor, idx: int) -> Tensor:
        """inner_blocks[idx](x) (torchvision's name for it)."""
        return self.inner_blocks[idx](x)

    def get_result_from_layer_blocks(self, x: Tensor, idx: int) -> Tensor:
        """layer_blocks[idx](x) (torchvision's name for it)."""
        return self.layer_blocks[idx](x)

    def forward(self, x: Dict[str, Tensor]) -> Dict[str, Tensor]:
        names = list(x.keys())
        features = list(x.values())
        if len(features) != len(self.inner_blocks):
            raise _C.InvalidArgumentError(
                f"FeaturePyramidNetwork: {len(features)} feature maps ({names}) for {len(self.inner_blocks)} "
                f"levels\n  fix: pass one map per entry of in_channels_list, finest first")
        last_inner = self.get_result_from_inner_blocks(features[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(features) - 2, -1, -1):
            lateral = self.get_result_from_inner_blocks(features[idx], idx)
            last_inner = lateral + F.interpolate(last_inner, size=lateral.shape[-2:], mode="nearest")  # type: ignore[operator]  # Tensor's operators are attached at import
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, features, names)
        return OrderedDict(zip(names, results))


class LastLevelMaxPool(ExtraFPNBlock):
    """Appends "pool": the last map subsampled by 2 (max_pool2d of kernel 1, stride 2)."""

    # torchvision's parameter names (x, y), not the base's
    def forward(self, x: List[Tensor], y: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:  # type: ignore[override]
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


class LastLevelP6P7(ExtraFPNBlock):
    """LastLevelP6P7(in_channels, out_channels): RetinaNet's P6 = conv3x3/2(P5, or C5 where the
    channel counts differ) and P7 = conv3x3/2(relu(P6)), appended as "p6" and "p7"."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for module in (self.p6, self.p7):
            nn.init.kaiming_uniform_(module.weight, a=1)
            nn.init.constant_(module.bias, 0)
        self.use_P5 = in_channels == out_channels

    # torchvision's parameter names (p, c), not the base's
    def forward(self, p: List[Tensor], c: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:  # type: ignore[override]
        p6 = self.p6(p[-1] if self.use_P5 else c[-1])
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names
