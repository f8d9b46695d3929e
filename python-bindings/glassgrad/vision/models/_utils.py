"""torchvision.models._utils: IntermediateLayerGetter, the backbone wrapper detection and
segmentation code builds on (`IntermediateLayerGetter(resnet50(), {"layer4": "0"})`), and
_make_divisible (_layers.make_divisible), which mobile-network code imports from here.

An IntermediateLayerGetter is a ModuleDict of the model's direct children, in order, up to the
last one return_layers names (later children, such as a classifier, are dropped), so its
state_dict keys are the model's own ("layer1.0.conv1.weight") and a backbone's saved weights load
into it with strict=False. Its forward runs the children in turn and returns an OrderedDict of the
named children's outputs under the names return_layers gives them, as torchvision's does."""
from __future__ import annotations

from collections import OrderedDict
from typing import Dict

from ... import _C, nn
from ..._tensor import Tensor
from ._layers import make_divisible as _make_divisible

__all__ = ["IntermediateLayerGetter", "_make_divisible"]


class IntermediateLayerGetter(nn.ModuleDict):
    """The children of model up to the last of return_layers ({child name: output name}); forward
    returns {output name: that child's output} in the children's order."""

    _version = 2

    def __init__(self, model: nn.Module, return_layers: Dict[str, str]) -> None:
        children = [name for name, _ in model.named_children()]
        missing = [name for name in return_layers if name not in children]
        if missing:
            raise _C.InvalidArgumentError(
                f"return_layers are not present in model\n  IntermediateLayerGetter: {missing} are not direct "
                f"children of {type(model).__name__}, whose children are {children}\n  fix: name children "
                f"from that list (a deeper module is reached through its child: wrap the child, or use its "
                f"outputs in the model's forward)")
        wanted = {str(k): str(v) for k, v in return_layers.items()}
        layers: "OrderedDict[str, nn.Module]" = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            wanted.pop(name, None)
            if not wanted:
                break
        super().__init__(layers)
        # kept as given, as torchvision keeps it (forward looks names up in it)
        self.return_layers = return_layers

    def forward(self, x: Tensor) -> "OrderedDict[str, Tensor]":
        out: "OrderedDict[str, Tensor]" = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
