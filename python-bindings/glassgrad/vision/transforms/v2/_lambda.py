"""v2.Lambda(lambd, *types): lambd applied to the entries of a sample that are instances of
`types` (any object by default), as torchvision.transforms.v2.Lambda: of the plain tensors, only
the first is given to it, and none where the sample holds a PIL image or tv_tensors Image or
Video (v2's rule for which plain tensor is the image); numbers, masks and boxes are given too."""
from __future__ import annotations

from typing import Any, Callable

from ...._tensor import Tensor
from ... import tv_tensors as tv
from .. import _image as I
from ..transforms import ModuleMade
from ._transform import flatten, unflatten

__all__ = ["Lambda"]


class Lambda(ModuleMade):
    def __init__(self, lambd: Callable[[Any], Any], *types: type):
        self.lambd = lambd
        self.types = types or (object,)

    def __call__(self, *inputs: Any) -> Any:
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        plain_left = not any(I.is_pil(x) or isinstance(x, (tv.Image, tv.Video)) for x in flat)
        out = []
        for x in flat:
            given = True
            if isinstance(x, Tensor) and not isinstance(x, tv.TVTensor):
                given, plain_left = plain_left, False
            out.append(self.lambd(x) if given and isinstance(x, self.types) else x)
        return unflatten(out, spec)

    forward = __call__

    def extra_repr(self) -> str:
        name = getattr(self.lambd, "__name__", None)
        return ", ".join(([name] if name else []) + [f"types={[t.__name__ for t in self.types]}"])
