"""torchvision.ops.MultiScaleRoIAlign (Feature Pyramid Networks, Lin et al. 2017): each box is
pooled by roi_align from one level of a feature pyramid, the level
floor(canonical_level + log2(sqrt(area) / canonical_scale) + 1e-6) clamped to the pyramid's, and
each level's scale inferred as the power of two nearest to feature size / image size (the
largest image of the batch), as torchvision's. One level: plain roi_align. The input gradient is
roi_align's."""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ... import nn
from ..._tensor import Tensor
from .roi_align import roi_align

__all__ = ["MultiScaleRoIAlign"]


def _infer_scale(feature: Tensor, original_size: Tuple[int, int]) -> float:
    """2 ** round(log2(feature height / image height)) (torchvision uses the height's)."""
    approx = np.float32(float(feature.shape[-2]) / float(original_size[0]))
    return float(2 ** float(np.round(np.log2(approx))))


class MultiScaleRoIAlign(nn.Module):
    """MultiScaleRoIAlign(featmap_names, output_size, sampling_ratio, *, canonical_scale=224,
    canonical_level=4): forward(x: {name: [N, C, H, W]}, boxes: list of [L, 4] per image,
    image_shapes: list of (height, width)) -> [sum L, C, h, w]."""

    def __init__(self, featmap_names: List[str], output_size: Union[int, Tuple[int, int], List[int]],
                 sampling_ratio: int, *, canonical_scale: int = 224, canonical_level: int = 4):
        super().__init__()
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        h, w = (output_size, output_size) if isinstance(output_size, int) else output_size
        self.output_size: Tuple[int, int] = (h, w)
        self.scales: Optional[List[float]] = None
        self.canonical_scale, self.canonical_level = canonical_scale, canonical_level

    def _levels(self, boxes: Sequence[Tensor], k_min: int, k_max: int) -> np.ndarray:
        b = np.concatenate([x.detach().numpy(force=True).astype(np.float32) for x in boxes])
        s = np.sqrt((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))
        target = np.floor(self.canonical_level + np.log2(s / np.float32(self.canonical_scale)) + np.float32(1e-6))
        return (np.clip(target, k_min, k_max) - k_min).astype(np.int64)

    def forward(self, x: Dict[str, Tensor], boxes: List[Tensor], image_shapes: List[Tuple[int, int]]) -> Tensor:
        import glassgrad as gg
        features = [x[k] for k in self.featmap_names]
        size = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
        scales = [_infer_scale(f, size) for f in features]
        self.scales = scales
        rois = gg.cat([gg.cat([gg.full((len(b), 1), float(i), dtype=b.dtype, device=b.device), b], dim=1)
                       for i, b in enumerate(boxes)])
        if len(features) == 1:
            return roi_align(features[0], rois, self.output_size, scales[0], self.sampling_ratio)
        k_min, k_max = int(-math.log2(scales[0])), int(-math.log2(scales[-1]))
        levels = self._levels(boxes, k_min, k_max)
        pieces, order = [], []
        for level, (feature, scale) in enumerate(zip(features, scales)):
            picked = np.nonzero(levels == level)[0]
            if len(picked) == 0:
                continue
            index = gg.tensor(picked, dtype=gg.int64, device=rois.device)
            pieces.append(roi_align(feature, rois.index_select(0, index), self.output_size, scale,
                                    self.sampling_ratio))
            order.append(picked)
        if not pieces:
            c = features[0].shape[1]
            return gg.zeros(0, c, *self.output_size, dtype=features[0].dtype, device=features[0].device)
        result = gg.cat(pieces) if len(pieces) > 1 else pieces[0]
        inverse = np.argsort(np.concatenate(order))
        return result.index_select(0, gg.tensor(inverse, dtype=gg.int64, device=result.device))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(featmap_names={self.featmap_names}, output_size={self.output_size}, "
                f"sampling_ratio={self.sampling_ratio})")
