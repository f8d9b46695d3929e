"""torch.nn.utils.memory_format: convert_conv2d_weight_memory_format and
convert_conv3d_weight_memory_format. glassgrad keeps parameters row-major and its planner picks
the convolutions' layouts (docs/porting.md, "Memory formats"; Module.to(memory_format=) too), so
the format is checked and the module, with the same values, returned, as PyTorch returns it."""
from __future__ import annotations

from ..._memory_formats import checked

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module, memory_format):
    """The module, its Conv2d / ConvTranspose2d weights (recursively) in memory_format."""
    checked(memory_format, "convert_conv2d_weight_memory_format")
    return module


def convert_conv3d_weight_memory_format(module, memory_format):
    """The module, its Conv3d / ConvTranspose3d weights (recursively) in memory_format."""
    checked(memory_format, "convert_conv3d_weight_memory_format")
    return module
