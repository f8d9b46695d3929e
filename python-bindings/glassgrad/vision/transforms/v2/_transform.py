"""torchvision.transforms.v2.Transform: the base class users subclass (torchvision 0.29's
protocol). Calling a transform flattens its input(s) (tuples, lists and dicts, depth first),
picks the entries to transform, draws the parameters once with make_params(those entries) and
calls transform(entry, params) on each, so every image of a sample gets the same random choice;
the structure comes back as it went in.

Which entries are transformed (torchvision's rule): every PIL image, tv_tensors.Image and
tv_tensors.Video; a plain tensor only when the sample holds none of those, and then only the
first one met (the image of `(image, label)`); everything else passes through. A sample's
tv_tensors.Mask and tv_tensors.BoundingBoxes follow the image: glassgrad's own transforms record
the geometric calls they make on the (first) image and replay them on the masks and boxes
(_follow.py); a user's subclass gets them in transform(), as torchvision's."""
from __future__ import annotations

import enum
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from .... import nn
from ...._tensor import Tensor
from ... import tv_tensors as tv
from .. import _image as I
from . import _fills
from ..functional import v2_kernels

__all__ = ["Transform"]


def flatten(sample) -> Tuple[List[Any], Any]:
    """The leaves of nested tuples, lists and dicts, depth first, and the spec to rebuild them."""
    if isinstance(sample, (tuple, list)):
        leaves: List[Any] = []
        specs = []
        for item in sample:
            sub, spec = flatten(item)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (type(sample), specs)
    if isinstance(sample, dict):
        leaves, keyed = [], []
        for key, item in sample.items():
            sub, spec = flatten(item)
            leaves += sub
            keyed.append((key, len(sub), spec))
        return leaves, (dict, keyed)
    return [sample], None


def unflatten(leaves: List[Any], spec) -> Any:
    if spec is None:
        return leaves[0]
    kind, specs = spec
    out, at = [], 0
    if kind is dict:
        result = {}
        for key, n, sub in specs:
            result[key] = unflatten(leaves[at:at + n], sub)
            at += n
        return result
    for n, sub in specs:
        out.append(unflatten(leaves[at:at + n], sub))
        at += n
    return kind(*out) if hasattr(kind, "_fields") else kind(out)


def follows(x) -> bool:
    """Whether x is a Mask or BoundingBoxes, which follow the image's geometry."""
    return isinstance(x, (tv.Mask, tv.BoundingBoxes))


def needs_transform(flat: List[Any], types: tuple) -> List[bool]:
    """torchvision's heuristic for plain tensors (module docstring); NumPy arrays, where `types`
    holds them (ToImage, Compose), count as plain tensors. Masks and boxes are not picked here
    (follows())."""
    tensor_left = not any(I.is_pil(x) or isinstance(x, (tv.Image, tv.Video)) for x in flat)
    out = []
    for x in flat:
        if isinstance(x, tv.TVTensor):
            out.append(isinstance(x, (tv.Image, tv.Video)) and isinstance(x, types))
            continue
        needed = isinstance(x, types) or I.is_pil(x)
        if needed and isinstance(x, (Tensor, np.ndarray)):
            needed, tensor_left = tensor_left and getattr(x, "ndim", 0) >= 2, False
        out.append(needed)
    return out


def rewrapped(before, after):
    """after (a transformed image, or the tuple or list of them FiveCrop and TenCrop make) as the
    tv_tensor type `before` had."""
    if isinstance(before, (tv.Image, tv.Video)) and isinstance(after, (tuple, list)):
        return type(after)(rewrapped(before, a) for a in after)
    if isinstance(before, (tv.Image, tv.Video)) and isinstance(after, Tensor) and not isinstance(after, tv.TVTensor):
        return type(before)._from(after)
    return after


def run_sample(fn: Callable, flat: List[Any], needed: List[bool]) -> List[Any]:
    """fn on the picked entries, each from the same state of glassgrad's generator (one random
    choice for the whole sample); the masks and boxes replay the first image's geometric calls."""
    from ...._random import generator
    from .._geometry_log import recording
    from ._follow import follow
    followers = [follows(x) for x in flat]
    if any(followers) and not any(needed):
        # Masks or boxes alone (v2.Resize(...)(boxes)): torchvision transforms them by their own
        # size, so the calls are recorded on a blank one-channel image of that size.
        flat, needed = flat + [_stand_in(next(x for x in flat if follows(x)))], needed + [True]
        return run_sample(fn, flat, needed)[:-1]
    start = generator().bit_generator.state
    out, calls = list(flat), None
    for k, (x, n) in enumerate(zip(flat, needed)):
        if not n:
            continue
        generator().bit_generator.state = start
        if calls is None and any(followers):
            with recording() as calls:
                out[k] = rewrapped(x, fn(x))
        else:
            out[k] = rewrapped(x, fn(x))
    if any(followers):  # an image was transformed (a stand-in one above), so calls holds its geometry
        out = [follow(x, calls) if f else x for x, f in zip(out, followers)]
    return out


def _stand_in(x) -> Tensor:
    """A blank uint8 image (1, H, W) of a mask's or boxes' canvas size."""
    from ...._tensor import tensor
    h, w = x.canvas_size if isinstance(x, tv.BoundingBoxes) else x.shape[-2:]
    return tensor(np.zeros((1, int(h), int(w)), np.uint8))


def apply_shared(fn: Callable, inputs: tuple, types: tuple = (Tensor, np.ndarray)) -> Any:
    """fn (a one-image transform, or a chain of them) on the entries of the sample that
    needs_transform picks, every one starting from the same state of glassgrad's generator, so
    a random transform makes the same choice for the image and its mask; the structure kept."""
    flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
    return apply_flat(fn, flat, spec, types)


def apply_flat(fn: Callable, flat: List[Any], spec, types: tuple = (Tensor, np.ndarray)) -> Any:
    """apply_shared on a sample already flattened (flatten's leaves and spec)."""
    needed = needs_transform(flat, types)
    if sum(needed) <= 1 and not any(follows(x) for x in flat):
        return unflatten([rewrapped(x, fn(x)) if n else x for x, n in zip(flat, needed)], spec)
    return unflatten(run_sample(fn, flat, needed), spec)


def query_size(flat: List[Any]) -> Tuple[int, int]:
    """(height, width) of the images among the entries; they must agree."""
    sizes = {tuple(x.canvas_size) if isinstance(x, tv.BoundingBoxes) else tuple(I.dimensions(x)[1:])
             for x in flat if I.is_pil(x) or isinstance(x, Tensor)}
    if not sizes:
        raise TypeError("v2 transform: no image (PIL image or tensor) in the sample\n  fix: pass the image with it")
    if len(sizes) > 1:
        raise ValueError(f"v2 transform: the images of a sample must have one size, found {sorted(sizes)}\n  fix: "
                         "resize them to one size first")
    h, w = sizes.pop()
    return h, w


class Transform(nn.Module):
    """torchvision.transforms.v2.Transform: subclass it and define transform(inpt, params) (and
    make_params(flat_inputs) -> dict for random choices drawn once per call; check_inputs(flat_inputs)
    to refuse a sample). _transformed_types names what transform() is given (plain tensors and PIL
    images by default; see the module docstring for which tensors)."""

    _transformed_types: tuple = (Tensor,)

    def check_inputs(self, flat_inputs: List[Any]) -> None:
        pass

    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        return dict()

    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.transform(inpt, params) is not defined\n  fix: define it "
                                  "in the subclass (v2.Transform's protocol)")

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        # v2's kernels: a uint8 image is resized as uint8 (functional.py); a dict fill gives a
        # following mask its tv_tensors.Mask entry (_fills.py)
        with v2_kernels(), _fills.active(getattr(self, "fill", None)):
            return super().__call__(*inputs, **kwargs)

    def forward(self, *inputs: Any) -> Any:
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        self.check_inputs(flat)
        needed = needs_transform(flat, self._transformed_types)
        if not type(self).transform.__module__.startswith("glassgrad."):
            # A user's transform() gets the masks and boxes too, as torchvision's does.
            needed = [n or (follows(x) and isinstance(x, self._transformed_types)) for x, n in zip(flat, needed)]
            params = self.make_params([x for x, n in zip(flat, needed) if n])
            return unflatten([self.transform(x, params) if n else x for x, n in zip(flat, needed)], spec)
        params = self.make_params([x for x, n in zip(flat, needed) if n])
        return unflatten(run_sample(lambda x: self.transform(x, params), flat, needed), spec)

    def extra_repr(self) -> str:
        shown = [f"{k}={v}" for k, v in self.__dict__.items() if not k.startswith("_") and k != "training"
                 and isinstance(v, (bool, int, float, str, tuple, list, enum.Enum))]
        return ", ".join(shown)


class RandomApplied(Transform):
    """A transform applied with probability p (torchvision's _RandomApplyTransform): the sample
    passes through unchanged otherwise."""

    def __init__(self, p: float = 0.5) -> None:
        if not (0.0 <= p <= 1.0):
            raise ValueError(f"{type(self).__name__}: `p` should be a floating point value in the interval [0.0, 1.0], "
                             f"got {p}")
        super().__init__()
        self.p = p

    def forward(self, *inputs: Any) -> Any:
        from ..transforms import _rng
        sample = inputs if len(inputs) > 1 else inputs[0]
        if _rng().random() >= self.p:
            return sample
        return super().forward(*inputs)
