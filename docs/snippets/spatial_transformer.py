"""A spatial transformer's sampling step (docs/porting.md, "Spatial transformers"), checked by
the test suite."""
import glassgrad as gg
import glassgrad.nn.functional as F

# --8<-- [start:stn]
x = gg.arange(16.0).reshape(1, 1, 4, 4)
theta = gg.tensor([[[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]]], requires_grad=True)  # zoom in 2x
grid = F.affine_grid(theta, x.size(), align_corners=False)    # (1, 4, 4, 2), x and y in [-1, 1]
y = F.grid_sample(x, grid, align_corners=False)               # bilinear, zeros outside
y.sum().backward()                                            # theta.grad: how the zoom moves the sum
print(y[0, 0, 1:3, 1:3].tolist(), theta.grad.shape)
# --8<-- [end:stn]
