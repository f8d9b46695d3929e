"""torchvision.models' ShuffleNetV2 (Ma et al. 2018, "ShuffleNet V2: Practical Guidelines for
Efficient CNN Architecture Design"): shufflenet_v2_x0_5, x1_0, x1_5, x2_0, with torchvision's
arguments, submodule names and order (conv1, maxpool, stage2..stage4 of InvertedResidual blocks
with branch1/branch2, conv5, fc), so state_dicts load both ways. Layers keep PyTorch's default
initialization, as torchvision's do."""
from __future__ import annotations

from typing import Any, Callable, List

from ... import _C
from ... import nn
from ..._reductions import mean
from ..._shapes import chunk
from ..._spatial import cat
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    """Interleaves the channels of `groups` equal groups: [N, g * k, H, W] -> channel i * g + j
    holds group j's channel i."""
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).contiguous().view(n, -1, h, w)


def _depthwise(i: int, o: int, kernel_size: int, stride: int = 1, padding: int = 0) -> nn.Conv2d:
    return nn.Conv2d(i, o, kernel_size, stride, padding, bias=False, groups=i)


class InvertedResidual(nn.Module):
    """Stride 1: half the channels pass through, the other half go through branch2 (1x1, 3x3
    depthwise, 1x1); stride 2: branch1 (3x3 depthwise stride 2, 1x1) and branch2 both see the whole
    input. The halves are concatenated and shuffled."""

    def __init__(self, inp: int, oup: int, stride: int) -> None:
        super().__init__()
        if not 1 <= stride <= 3:
            raise _C.InvalidArgumentError(f"InvertedResidual: illegal stride value {stride}\n  fix: stride 1 or 2")
        self.stride = stride
        branch_features = oup // 2
        if self.stride == 1 and inp != branch_features << 1:
            raise _C.InvalidArgumentError(
                f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. If stride == 1 then inp "
                f"should be equal to oup // 2 << 1.\n  fix: inp == oup for stride 1 blocks")
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                _depthwise(inp, inp, kernel_size=3, stride=self.stride, padding=1), nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch_features), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if self.stride > 1 else branch_features, branch_features, kernel_size=1, stride=1, padding=0,
                      bias=False),
            nn.BatchNorm2d(branch_features), nn.ReLU(inplace=True),
            _depthwise(branch_features, branch_features, kernel_size=3, stride=self.stride, padding=1),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch_features), nn.ReLU(inplace=True))

    def forward(self, x: Tensor) -> Tensor:
        if self.stride == 1:
            x1, x2 = chunk(x, 2, dim=1)
            out = cat([x1, self.branch2(x2)], 1)
        else:
            out = cat([self.branch1(x), self.branch2(x)], 1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """torchvision.models.ShuffleNetV2(stages_repeats, stages_out_channels, num_classes=1000,
    inverted_residual=InvertedResidual): stages_repeats has 3 entries, stages_out_channels 5."""

    def __init__(self, stages_repeats: List[int], stages_out_channels: List[int], num_classes: int = 1000,
                 inverted_residual: Callable[..., nn.Module] = InvertedResidual) -> None:
        super().__init__()
        if len(stages_repeats) != 3:
            raise _C.InvalidArgumentError("expected stages_repeats as list of 3 positive ints\n"
                                          "  fix: e.g. [4, 8, 4]")
        if len(stages_out_channels) != 5:
            raise _C.InvalidArgumentError("expected stages_out_channels as list of 5 positive ints\n"
                                          "  fix: e.g. [24, 116, 232, 464, 1024]")
        self._stage_out_channels = stages_out_channels
        input_channels = stages_out_channels[0]
        self.conv1 = nn.Sequential(nn.Conv2d(3, input_channels, 3, 2, 1, bias=False), nn.BatchNorm2d(input_channels),
                                   nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for name, repeats, output_channels in zip(("stage2", "stage3", "stage4"), stages_repeats,
                                                  stages_out_channels[1:]):
            seq = [inverted_residual(input_channels, output_channels, 2)]
            seq += [inverted_residual(output_channels, output_channels, 1) for _ in range(repeats - 1)]
            setattr(self, name, nn.Sequential(*seq))
            input_channels = output_channels
        output_channels = stages_out_channels[-1]
        self.conv5 = nn.Sequential(nn.Conv2d(input_channels, output_channels, 1, 1, 0, bias=False),
                                   nn.BatchNorm2d(output_channels), nn.ReLU(inplace=True))
        self.fc = nn.Linear(output_channels, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(mean(x, [2, 3]))


def _shufflenetv2(name: str, weights: Any, kwargs: Any, channels: List[int]) -> ShuffleNetV2:
    refuse_pretrained(name, weights, kwargs)
    return ShuffleNetV2([4, 8, 4], channels, **kwargs)


def shufflenet_v2_x0_5(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.5x output channels."""
    return _shufflenetv2("shufflenet_v2_x0_5", weights, kwargs, [24, 48, 96, 192, 1024])


def shufflenet_v2_x1_0(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.0x output channels."""
    return _shufflenetv2("shufflenet_v2_x1_0", weights, kwargs, [24, 116, 232, 464, 1024])


def shufflenet_v2_x1_5(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.5x output channels."""
    return _shufflenetv2("shufflenet_v2_x1_5", weights, kwargs, [24, 176, 352, 704, 1024])


def shufflenet_v2_x2_0(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 with 2.0x output channels."""
    return _shufflenetv2("shufflenet_v2_x2_0", weights, kwargs, [24, 244, 488, 976, 2048])
