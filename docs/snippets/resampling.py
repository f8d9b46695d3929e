"""interpolate's modes, fold and unfold (docs/resampling.md), checked by the test suite."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F

# --8<-- [start:modes]
image = gg.arange(16.0).reshape(1, 1, 4, 4)
volume = gg.arange(8.0).reshape(1, 1, 2, 2, 2)
up = F.interpolate(image, scale_factor=2, mode="bicubic", align_corners=False)     # (1, 1, 8, 8)
small = F.interpolate(image, size=(2, 2), mode="bilinear", antialias=True)          # filtered before sampling
pooled = F.interpolate(image, size=(2, 2), mode="area")                             # 2 x 2 block means
grown = F.interpolate(volume, size=(3, 3, 3), mode="trilinear", align_corners=True)
print(tuple(up.shape), pooled.flatten().tolist(), grown[0, 0, 1, 1, 1].item())
# --8<-- [end:modes]
assert tuple(up.shape) == (1, 1, 8, 8)
assert pooled.flatten().tolist() == [2.5, 4.5, 10.5, 12.5]
assert grown[0, 0, 1, 1, 1].item() == 3.5     # the centre of the cube: the mean of its corners
assert tuple(small.shape) == (1, 1, 2, 2)

# --8<-- [start:fold]
x = gg.tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6)))
cols = F.unfold(x, kernel_size=3, padding=1)          # (2, 3 * 3 * 3, 36): one column per 3x3 window
counts = F.fold(F.unfold(gg.ones(1, 1, 6, 6), 3, padding=1), (6, 6), 3, padding=1)
print(tuple(cols.shape), counts[0, 0, 0].tolist())    # how many windows cover each pixel of row 0
# --8<-- [end:fold]
assert tuple(cols.shape) == (2, 27, 36)
assert counts[0, 0, 0].tolist() == [4.0, 6.0, 6.0, 6.0, 6.0, 4.0]
