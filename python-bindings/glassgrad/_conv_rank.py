"""The rank rule of the convolutions' input, worded as PyTorch's: an N-d convolution (conv1d,
conv2d, conv3d and their transposes) takes (C_in, *spatial) unbatched or (N, C_in, *spatial)
batched; any other rank is a ShapeError (a RuntimeError, as PyTorch's) whose first line is
PyTorch's."""
from . import _C

_SPATIAL = {1: "L", 2: "H, W", 3: "D, H, W"}


def check_input_rank(shape, spatial: int, op: str) -> None:
    """Raises PyTorch's error unless len(shape) is spatial + 1 or spatial + 2."""
    if len(shape) in (spatial + 1, spatial + 2):
        return
    dims = _SPATIAL[spatial]
    cause = ("\n  cause: flattened samples ([N, features]) given to a convolution"
             if len(shape) == spatial and spatial > 1 else "")
    raise _C.ShapeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {op}, but got "
                        f"input of size: {list(shape)}{cause}\n  fix: give (N, C_in, {dims}) or one sample (C_in, "
                        f"{dims}), e.g. x.reshape(N, C_in, {dims})")
