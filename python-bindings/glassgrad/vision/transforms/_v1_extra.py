"""torchvision.transforms' LinearTransformation and ElasticTransform (v1 classes: one image in,
one out; tensor images, and PIL images for ElasticTransform)."""
from __future__ import annotations

from typing import List

from ..._tensor import Tensor
from . import _image as I
from ._elastic import elastic, elastic_displacement
from ._linear import check_linear, linear_transform
from .functional import InterpolationMode, interpolation_mode
from .transforms import _Transform

__all__ = ["ElasticTransform", "LinearTransformation"]


class LinearTransformation(_Transform):
    """transforms.LinearTransformation(transformation_matrix [D, D], mean_vector [D]): a tensor
    image of D values, flattened, minus mean_vector, times the matrix (ZCA whitening)."""

    _chw_aware = False

    def __init__(self, transformation_matrix: Tensor, mean_vector: Tensor):
        self.transformation_matrix, self.mean_vector = check_linear(transformation_matrix, mean_vector)

    def forward(self, tensor):
        return linear_transform(tensor, self.transformation_matrix, self.mean_vector)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(transformation_matrix={self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


class ElasticTransform(_Transform):
    """transforms.ElasticTransform(alpha=50.0, sigma=5.0, interpolation=BILINEAR, fill=0): the image
    resampled through get_params' random displacement field."""

    _chw_aware = False

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        self.alpha = [float(alpha)] * 2 if isinstance(alpha, (int, float)) else [float(a) for a in alpha][-2:] * (
            2 if len(alpha) == 1 else 1)
        self.sigma = [float(sigma)] * 2 if isinstance(sigma, (int, float)) else [float(s) for s in sigma][-2:] * (
            2 if len(sigma) == 1 else 1)
        self.interpolation, self.fill = interpolation_mode(interpolation), fill

    @staticmethod
    def get_params(alpha: List[float], sigma: List[float], size: List[int]) -> Tensor:
        """[1, H, W, 2]: the displacement for an image of size [H, W]."""
        return elastic_displacement(alpha, sigma, size)

    def forward(self, tensor):
        _, h, w = I.dimensions(tensor)
        return elastic(tensor, self.get_params(self.alpha, self.sigma, [h, w]), self.interpolation, self.fill)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(alpha={self.alpha}, sigma={self.sigma}, interpolation={self.interpolation}, "
                f"fill={self.fill})")
