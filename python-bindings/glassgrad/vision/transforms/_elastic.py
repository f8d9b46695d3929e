"""Elastic distortion (torchvision's elastic_transform / ElasticTransform): the image resampled
at its identity grid plus a displacement field [1, H, W, 2] in grid_sample's normalised
coordinates (align_corners=False), through _geometric.sample_grid (points outside read 0, or the
fill); the random field is uniform noise blurred by a Gaussian and scaled by alpha / size."""
from __future__ import annotations

from typing import List

import numpy as np

from ..._tensor import Tensor
from . import _image as I
from ._geometric import sample_grid
from ._geometry_log import geometric
from ._photometric import blur
from .functional import InterpolationMode, interpolation_mode, pil_to_tensor, to_pil_image

__all__ = ["elastic", "elastic_displacement", "elastic_transform"]


def _identity_grid(dt, w: int, h: int):
    xs = I.linspace((-w + 1) / w, (w - 1) / w, w, dt)
    ys = I.linspace((-h + 1) / h, (h - 1) / h, h, dt)
    return np.broadcast_to(xs, (h, w)), np.broadcast_to(ys[:, None], (h, w))


@geometric
def elastic(inpt, displacement: Tensor, interpolation=InterpolationMode.BILINEAR, fill=None):
    """The image resampled at its identity grid plus displacement [1, H, W, 2] (x, y offsets in
    grid_sample's normalised coordinates, align_corners=False): points outside read 0, or the
    fill (v2.functional.elastic, transforms.functional.elastic_transform)."""
    if not isinstance(displacement, Tensor):
        raise TypeError("elastic: argument displacement should be a Tensor")
    if I.is_pil(inpt):
        return to_pil_image(elastic(pil_to_tensor(inpt), displacement, interpolation, fill), mode=inpt.mode)
    _, h, w = I.dimensions(inpt)
    if tuple(displacement.shape) != (1, h, w, 2):
        raise ValueError(f"elastic: argument displacement shape should be {(1, h, w, 2)}, but given "
                         f"{tuple(displacement.shape)}")
    d = displacement.numpy(force=True)[0]
    mode = interpolation_mode(interpolation).value

    def grid(dt, width: int, height: int):
        gx, gy = _identity_grid(dt, width, height)
        return (gx + d[..., 0].astype(dt)).astype(dt), (gy + d[..., 1].astype(dt)).astype(dt)
    return I.like(np.ascontiguousarray(sample_grid(I.chw_array(inpt), grid, w, h, mode, fill)), inpt)


elastic_transform = elastic


def elastic_displacement(alpha: List[float], sigma: List[float], size: List[int]) -> Tensor:
    """[1, H, W, 2]: uniform [-1, 1) noise per axis, blurred by a Gaussian of sigma (kernel
    int(8 sigma + 1), made odd) and scaled by alpha / size (torchvision's ElasticTransform)."""
    import glassgrad as gg
    h, w = size
    axes = []
    for i, extent in enumerate((w, h)):
        d = gg.rand(1, 1, h, w) * 2 - 1
        if sigma[i] > 0.0:
            k = int(8 * sigma[i] + 1)
            k += 1 if k % 2 == 0 else 0
            d = blur(d, [k, k], list(sigma), within_image=False)
        axes.append(d * alpha[i] / extent)
    return gg.cat(axes, 1).permute(0, 2, 3, 1)
