"""torchvision.models' MNASNet (Tan et al. 2018, "MnasNet: Platform-Aware Neural Architecture Search
for Mobile"): mnasnet0_5, mnasnet0_75, mnasnet1_0, mnasnet1_3, with torchvision's arguments (alpha,
num_classes, dropout), submodule names and order (layers, classifier) and initialization, so
state_dicts load both ways (torchvision's current layout, version 2)."""
from __future__ import annotations

from typing import Any, List

from ... import _C
from ... import nn
from ..._reductions import mean
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["MNASNet", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]

# The norms' momentum of the TensorFlow reference (decay 0.9997).
_BN_MOMENTUM = 1 - 0.9997


class _InvertedResidual(nn.Module):
    """1x1 expand, kxk depthwise (stride), 1x1 linear projection, each with a norm (ReLU after the
    first two); the input is added when the shape is kept."""

    def __init__(self, in_ch: int, out_ch: int, kernel_size: int, stride: int, expansion_factor: int,
                 bn_momentum: float = 0.1) -> None:
        super().__init__()
        if stride not in (1, 2) or kernel_size not in (3, 5):
            raise _C.InvalidArgumentError(f"MNASNet block: stride should be 1 or 2 and kernel_size 3 or 5, got "
                                          f"{stride} and {kernel_size}\n  fix: stride in (1, 2), kernel_size in (3, 5)")
        mid_ch = in_ch * expansion_factor
        self.apply_residual = in_ch == out_ch and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(in_ch, mid_ch, 1, bias=False), nn.BatchNorm2d(mid_ch, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, mid_ch, kernel_size, padding=kernel_size // 2, stride=stride, groups=mid_ch, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum), nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, out_ch, 1, bias=False), nn.BatchNorm2d(out_ch, momentum=bn_momentum))

    def forward(self, x: Tensor) -> Tensor:
        return self.layers(x) + x if self.apply_residual else self.layers(x)


def _stack(in_ch: int, out_ch: int, kernel_size: int, stride: int, exp_factor: int, repeats: int,
           bn_momentum: float) -> nn.Sequential:
    """repeats blocks; only the first changes the width and resolution."""
    blocks: List[nn.Module] = [_InvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor, bn_momentum)]
    blocks += [_InvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor, bn_momentum) for _ in range(repeats - 1)]
    return nn.Sequential(*blocks)


def _round_to_multiple_of(val: float, divisor: int, round_up_bias: float = 0.9) -> int:
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


class MNASNet(nn.Module):
    """torchvision.models.MNASNet(alpha, num_classes=1000, dropout=0.2): the widths [32, 16, 24, 40,
    80, 96, 192, 320] times alpha (multiples of 8), a 1280-channel head, classifier = [Dropout,
    Linear]. Convolutions start as kaiming_normal_(mode="fan_out", nonlinearity="relu"), norms as
    1 and 0, the linear as kaiming_uniform_(mode="fan_out", nonlinearity="sigmoid"); biases 0."""

    _version = 2

    def __init__(self, alpha: float, num_classes: int = 1000, dropout: float = 0.2) -> None:
        super().__init__()
        if alpha <= 0.0:
            raise _C.InvalidArgumentError(f"alpha should be greater than 0.0 instead of {alpha}\n"
                                          f"  fix: e.g. MNASNet(1.0)")
        self.alpha = alpha
        self.num_classes = num_classes
        d = [_round_to_multiple_of(depth * alpha, 8) for depth in [32, 16, 24, 40, 80, 96, 192, 320]]
        m = _BN_MOMENTUM
        self.layers = nn.Sequential(
            nn.Conv2d(3, d[0], 3, padding=1, stride=2, bias=False), nn.BatchNorm2d(d[0], momentum=m),
            nn.ReLU(inplace=True),
            nn.Conv2d(d[0], d[0], 3, padding=1, stride=1, groups=d[0], bias=False), nn.BatchNorm2d(d[0], momentum=m),
            nn.ReLU(inplace=True),
            nn.Conv2d(d[0], d[1], 1, padding=0, stride=1, bias=False), nn.BatchNorm2d(d[1], momentum=m),
            _stack(d[1], d[2], 3, 2, 3, 3, m), _stack(d[2], d[3], 5, 2, 3, 3, m), _stack(d[3], d[4], 5, 2, 6, 3, m),
            _stack(d[4], d[5], 3, 1, 6, 2, m), _stack(d[5], d[6], 5, 2, 6, 4, m), _stack(d[6], d[7], 3, 1, 6, 1, m),
            nn.Conv2d(d[7], 1280, 1, padding=0, stride=1, bias=False), nn.BatchNorm2d(1280, momentum=m),
            nn.ReLU(inplace=True))
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(1280, num_classes))
        for mod in self.modules():
            if isinstance(mod, nn.Conv2d):
                nn.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
                if mod.bias is not None:
                    nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.BatchNorm2d) and mod.weight is not None and mod.bias is not None:
                nn.init.ones_(mod.weight)
                nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.Linear):
                nn.init.kaiming_uniform_(mod.weight, mode="fan_out", nonlinearity="sigmoid")
                if mod.bias is not None:
                    nn.init.zeros_(mod.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(mean(self.layers(x), [2, 3]))


def _mnasnet(name: str, alpha: float, weights: Any, kwargs: Any) -> MNASNet:
    refuse_pretrained(name, weights, kwargs)
    return MNASNet(alpha, **kwargs)


def mnasnet0_5(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MNASNet:
    """MNASNet with depth multiplier 0.5."""
    return _mnasnet("mnasnet0_5", 0.5, weights, kwargs)


def mnasnet0_75(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MNASNet:
    """MNASNet with depth multiplier 0.75."""
    return _mnasnet("mnasnet0_75", 0.75, weights, kwargs)


def mnasnet1_0(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MNASNet:
    """MNASNet with depth multiplier 1.0."""
    return _mnasnet("mnasnet1_0", 1.0, weights, kwargs)


def mnasnet1_3(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MNASNet:
    """MNASNet with depth multiplier 1.3."""
    return _mnasnet("mnasnet1_3", 1.3, weights, kwargs)
