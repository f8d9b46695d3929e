"""torchvision.models.detection.anchor_utils.AnchorGenerator (Faster R-CNN's anchors, Ren et al.
2015): for feature map i, len(sizes[i]) * len(aspect_ratios[i]) anchors at every cell, as
torchvision computes them. The cell anchors, centred on 0, are
round([-w, -h, w, h] / 2) with h = sqrt(ratio) * size and w = size / sqrt(ratio) (ratio =
height / width; ratios major, sizes minor); a map of G_h x G_w cells on an image of H x W has
the strides (H // G_h, W // G_w) and its anchors are the cell anchors shifted by (x * stride_w,
y * stride_h) for the cells in row-major order, each cell's anchors together. forward gives each
image of the ImageList the anchors of all maps concatenated ([sum of cells * anchors, 4])."""
from __future__ import annotations

from typing import Any, List, Sequence

from .... import _C, nn
from ...._factories import arange, tensor
from ...._shapes import stack
from ...._spatial import cat
from ...._tensor import Tensor
from .image_list import ImageList

__all__ = ["AnchorGenerator"]


class AnchorGenerator(nn.Module):
    """AnchorGenerator(sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)): one tuple of each
    per feature map (a flat tuple of sizes means one size per map; flat ratios are every map's)."""

    def __init__(self, sizes: Sequence[Any] = ((128, 256, 512),),
                 aspect_ratios: Sequence[Any] = ((0.5, 1.0, 2.0),)) -> None:
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(s, a) for s, a in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales: Sequence[float], aspect_ratios: Sequence[float], dtype: Any = None,
                         device: Any = "cpu") -> Tensor:
        """The cell anchors [len(ratios) * len(scales), 4] of one feature map (x1, y1, x2, y2)."""
        from .... import float32
        scale: Any = tensor(list(scales), dtype=dtype or float32, device=device)
        ratio: Any = tensor(list(aspect_ratios), dtype=dtype or float32, device=device)
        h_ratios = ratio.sqrt()
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scale[None, :]).reshape(-1)
        hs = (h_ratios[:, None] * scale[None, :]).reshape(-1)
        corners: Any = stack([-ws, -hs, ws, hs], dim=1)  # Any: Tensor's operators are attached at import
        return (corners / 2).round()

    def set_cell_anchors(self, dtype: Any, device: Any) -> None:
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self) -> List[int]:
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes: List[List[int]], strides: List[List[Any]]) -> List[Tensor]:
        if not len(grid_sizes) == len(strides) == len(self.cell_anchors):
            raise _C.InvalidArgumentError(
                "Anchors should be Tuple[Tuple[int]] because each feature map could potentially have different "
                "sizes and aspect ratios. There needs to be a match between the number of feature maps passed and "
                f"the number of sizes / aspect ratios specified.\n  AnchorGenerator: {len(grid_sizes)} feature maps, "
                f"{len(self.cell_anchors)} entries of sizes\n  fix: one tuple of sizes and of aspect ratios per map")
        from .... import int32
        anchors = []
        for (gh, gw), (sh, sw), base in zip(grid_sizes, strides, self.cell_anchors):
            xs: Any = arange(0, gw, dtype=int32, device=base.device) * int(sw)
            ys: Any = arange(0, gh, dtype=int32, device=base.device) * int(sh)
            shift_x = xs.reshape(1, gw).expand(gh, gw).reshape(-1)
            shift_y = ys.reshape(gh, 1).expand(gh, gw).reshape(-1)
            shifts: Any = stack([shift_x, shift_y, shift_x, shift_y], dim=1)
            anchors.append((shifts.reshape(-1, 1, 4) + base.reshape(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list: ImageList, feature_maps: List[Tensor]) -> List[Tensor]:
        grid_sizes = [list(f.shape[-2:]) for f in feature_maps]
        height, width = image_list.tensors.shape[-2:]
        strides = [[height // g[0], width // g[1]] for g in grid_sizes]
        self.set_cell_anchors(feature_maps[0].dtype, feature_maps[0].device)
        over_maps = self.grid_anchors(grid_sizes, strides)
        return [cat(over_maps) for _ in range(len(image_list.image_sizes))]
