"""v2.MixUp and v2.CutMix (Zhang et al. 2017; Yun et al. 2019) on a batch: called as
`mix(images, labels)` (or on a (images, labels) tuple, or a dict with a "labels"-like key), they
return the batch mixed with itself rolled by one (image i with image i - 1) and the labels as
float [B, num_classes] mixed the same way (index labels one-hot encoded first). lam is drawn from
Beta(alpha, alpha); CutMix pastes a box of the rolled batch covering about 1 - lam of the image
and mixes the labels by the exact share the box covers. As torchvision 0.29's."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

from ...._tensor import Tensor
from .. import _image as I
from ..transforms import _rng
from ._transform import Transform, flatten, needs_transform, query_size, unflatten

__all__ = ["CutMix", "MixUp"]


def _default_labels(inputs: Any):
    """torchvision's default labels_getter: the second item of a tuple/list, or a "labels" (then
    "*label*") key of a dict (or of a dict second item)."""
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if isinstance(inputs, Tensor):
        return inputs
    if not isinstance(inputs, dict):
        raise ValueError("When using the default labels_getter, the input passed to forward must be a dictionary or a "
                         f"two-tuple whose second item is a dictionary or a tensor, but got {inputs} instead.")
    keys = [k for k in inputs if isinstance(k, str) and k.lower() == "labels"] or \
        [k for k in inputs if isinstance(k, str) and "label" in k.lower()]
    if not keys:
        raise ValueError("Could not infer where the labels are in the sample. Try passing a callable as the "
                         "labels_getter parameter?")
    return inputs[keys[0]]


class _MixBase(Transform):
    def __init__(self, *, alpha: float = 1.0, num_classes: Optional[int] = None, labels_getter="default") -> None:
        super().__init__()
        self.alpha = float(alpha)
        if num_classes is not None and num_classes < 1:
            raise ValueError(f"num_classes should be >=1 if provided, got num_classes={num_classes}")
        self.num_classes = num_classes
        if labels_getter == "default":
            self._labels_getter: Callable = _default_labels
        elif callable(labels_getter):
            self._labels_getter = labels_getter
        else:
            raise ValueError(f"labels_getter should either be 'default' or a callable, got {labels_getter}")

    def _lam(self) -> float:
        return float(_rng().beta(self.alpha, self.alpha))

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat, spec = flatten(sample)
        if any(I.is_pil(x) for x in flat):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding boxes, masks and keypoints."
                             "\n  fix: a batch of tensor images (after the DataLoader)")
        labels = self._labels_getter(sample)
        if not isinstance(labels, Tensor):
            raise ValueError(f"The labels must be a ``torch.Tensor``, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError("labels should be index based with shape (batch_size,) or probability based with shape "
                             f"(batch_size, num_classes), but got a tensor of shape {tuple(labels.shape)} instead.")
        if labels.ndim == 2 and self.num_classes is not None and labels.shape[-1] != self.num_classes:
            raise ValueError(f"When passing 2D labels, the number of elements in last dimension must match "
                             f"num_classes: {labels.shape[-1]} != {self.num_classes}. You can Leave num_classes to None.")
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        needed = needs_transform(flat, (Tensor,))
        at = next(i for i, x in enumerate(flat) if x is labels)
        needed[at] = True
        params = {"labels": labels, "batch_size": labels.shape[0],
                  **self.make_params([x for x, n in zip(flat, needed) if n and x is not labels])}
        return unflatten([self.transform(x, params) if n else x for x, n in zip(flat, needed)], spec)

    def _check_image(self, inpt, batch_size: int) -> None:
        if inpt.ndim != 4:
            raise ValueError(f"Expected a batched input with 4 dims, but got {inpt.ndim} dimensions instead.")
        if inpt.shape[0] != batch_size:
            raise ValueError(f"The batch size of the image or video does not match the batch size of the labels: "
                             f"{inpt.shape[0]} != {batch_size}.")

    def _mix_labels(self, label, lam: float):
        import glassgrad.nn.functional as F
        if label.ndim == 1:
            label = F.one_hot(label, num_classes=self.num_classes or -1)  # forward refuses 1-d labels without it
        if not label.is_floating_point():
            label = label.float()
        return label.roll(1, 0) * (1.0 - lam) + label * lam


class MixUp(_MixBase):
    """v2.MixUp(*, alpha=1.0, num_classes=None, labels_getter="default"): images and labels
    lam * x + (1 - lam) * x.roll(1, 0)."""

    def make_params(self, flat_inputs):
        return dict(lam=self._lam())

    def transform(self, inpt, params):
        lam = params["lam"]
        if inpt is params["labels"]:
            return self._mix_labels(inpt, lam)
        if isinstance(inpt, Tensor):
            self._check_image(inpt, params["batch_size"])
            return inpt.roll(1, 0) * (1.0 - lam) + inpt * lam
        return inpt


class CutMix(_MixBase):
    """v2.CutMix(*, alpha=1.0, num_classes=None, labels_getter="default"): a box centred at a
    uniform pixel with sides sqrt(1 - lam) times the image's (clipped at the borders) pasted from
    the rolled batch; labels mixed by the share of the image the box leaves."""

    def make_params(self, flat_inputs):
        lam = self._lam()
        h, w = query_size(flat_inputs)
        rx, ry = int(_rng().integers(w)), int(_rng().integers(h))
        r = 0.5 * math.sqrt(1.0 - lam)
        half_w, half_h = int(r * w), int(r * h)
        x1, y1 = max(rx - half_w, 0), max(ry - half_h, 0)
        x2, y2 = min(rx + half_w, w), min(ry + half_h, h)
        return dict(box=(x1, y1, x2, y2), lam_adjusted=float(1.0 - (x2 - x1) * (y2 - y1) / (w * h)))

    def transform(self, inpt, params):
        if inpt is params["labels"]:
            return self._mix_labels(inpt, params["lam_adjusted"])
        if isinstance(inpt, Tensor):
            self._check_image(inpt, params["batch_size"])
            x1, y1, x2, y2 = params["box"]
            out = inpt.clone()
            out[..., y1:y2, x1:x2] = inpt.roll(1, 0)[..., y1:y2, x1:x2]
            return out
        return inpt
