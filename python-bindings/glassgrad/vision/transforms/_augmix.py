"""torchvision.transforms.AugMix (Hendrycks et al. 2020, "AugMix"): mixture_width chains of
chain_depth operations (1 to 3 at random for chain_depth <= 0), each at a magnitude among the
first `severity` of 10 bins (signed at random), mixed with Dirichlet(alpha) weights, and the mix
blended with the image by Beta(alpha, alpha) weights (a Dirichlet of two), as torchvision's.
The operations run on the uint8 tensor (a PIL image is converted and back); the float mix is
truncated back to the image's dtype. Random choices come from glassgrad's generator."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from . import _image as I
from . import functional as F
from .autoaugment import _NONE, _apply_op, _linspace, _posterize_bits, _tensor_fill
from .functional import InterpolationMode, interpolation_mode
from .transforms import _rng, _Transform

__all__ = ["AugMix"]


class AugMix(_Transform):
    """AugMix(severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
    interpolation=BILINEAR, fill=None)."""

    _chw_aware = False
    _PARAMETER_MAX = 10

    def __init__(self, severity: int = 3, mixture_width: int = 3, chain_depth: int = -1, alpha: float = 1.0,
                 all_ops: bool = True, interpolation=InterpolationMode.BILINEAR,
                 fill: Optional[List[float]] = None) -> None:
        if not (1 <= severity <= self._PARAMETER_MAX):
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead.")
        self.severity, self.mixture_width, self.chain_depth = severity, mixture_width, chain_depth
        self.alpha, self.all_ops = alpha, all_ops
        self.interpolation, self.fill = interpolation_mode(interpolation), fill

    def _augmentation_space(self, num_bins: int, image_size: Tuple[int, int]) -> Dict[str, Tuple[np.ndarray, bool]]:
        space = {"ShearX": (_linspace(0.0, 0.3, num_bins), True), "ShearY": (_linspace(0.0, 0.3, num_bins), True),
                 "TranslateX": (_linspace(0.0, image_size[1] / 3.0, num_bins), True),
                 "TranslateY": (_linspace(0.0, image_size[0] / 3.0, num_bins), True),
                 "Rotate": (_linspace(0.0, 30.0, num_bins), True),
                 "Posterize": (_posterize_bits(num_bins, 4) - 4, False),
                 "Solarize": (_linspace(255.0, 0.0, num_bins), False), "AutoContrast": (_NONE, False),
                 "Equalize": (_NONE, False)}
        if self.all_ops:
            space.update({"Brightness": (_linspace(0.0, 0.9, num_bins), True),
                          "Color": (_linspace(0.0, 0.9, num_bins), True),
                          "Contrast": (_linspace(0.0, 0.9, num_bins), True),
                          "Sharpness": (_linspace(0.0, 0.9, num_bins), True)})
        return space

    def _sample_dirichlet(self, params: np.ndarray) -> np.ndarray:
        """One Dirichlet draw per row of params [B, K] (a method, so tests can fix it)."""
        return np.stack([_rng().dirichlet(row) for row in params]).astype(np.float32)

    def forward(self, orig_img):
        was_pil = I.is_pil(orig_img)
        img = F.pil_to_tensor(orig_img) if was_pil else orig_img
        _, height, width = I.dimensions(img)
        fill = _tensor_fill(self.fill, img)
        space = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        names = list(space)
        shape = list(img.shape)
        batch = img.reshape([1] * max(4 - img.ndim, 0) + shape)
        b = batch.shape[0]
        m = self._sample_dirichlet(np.full((b, 2), self.alpha, np.float32))
        weights = self._sample_dirichlet(np.full((b, self.mixture_width), self.alpha, np.float32)) * m[:, 1:2]
        columns = [1] * (batch.ndim - 1)
        mix = I.chw_array(batch).astype(np.float32) * m[:, 0].reshape([b] + columns)
        rng = _rng()
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else int(rng.integers(1, 4))
            for _ in range(depth):
                op_name = names[int(rng.integers(len(names)))]
                magnitudes, signed = space[op_name]
                magnitude = float(magnitudes[int(rng.integers(self.severity))]) if magnitudes.ndim > 0 else 0.0
                if signed and rng.integers(2):
                    magnitude *= -1.0
                aug = _apply_op(aug, op_name, magnitude, self.interpolation, fill)
            mix += weights[:, i].reshape([b] + columns) * I.chw_array(aug).astype(np.float32)
        out = I.like(mix.reshape(shape).astype(I.chw_array(img).dtype), img)
        return F.to_pil_image(out, mode=orig_img.mode) if was_pil else out

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(severity={self.severity}, mixture_width={self.mixture_width}, "
                f"chain_depth={self.chain_depth}, alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
