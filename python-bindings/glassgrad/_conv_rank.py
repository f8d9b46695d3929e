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


def check_arguments(op: str, spatial_dims: int, input_shape, weight_shape, **arguments) -> None:
    """PyTorch's checks of a convolution's arguments against its weight, in PyTorch's order, for an
    input whose rank check_input_rank passed: each argument (stride, padding, dilation,
    output_padding) one value or one per spatial dimension of the weight (its rank - 2), then the
    input (of the op's spatial_dims, an unbatched one given its batch of one) of the weight's
    rank. A layer built with a tuple of another length (PyTorch's, as nn.Conv1d(c, c,
    kernel_size=(1, 2)), which makes a 4-d weight) is refused here at its call, as PyTorch's
    (docs/porting.md)."""
    spatial = len(weight_shape) - 2
    for name, value in arguments.items():
        # an int is one per spatial dimension of the op, as PyTorch's argument parser expands it
        values = list(value) if isinstance(value, (tuple, list)) else [value] * spatial_dims \
            if isinstance(value, int) else None
        if values is not None and len(values) not in (1, spatial):
            raise _C.InvalidArgumentError(
                f"expected {name} to be a single integer value or a list of {spatial} values to match the "
                f"convolution dimensions, but got {name}={values}\n  cause: {op}'s weight "
                f"{list(weight_shape)} has {spatial} spatial dimension{'s' if spatial != 1 else ''}\n  fix: give "
                f"{name} one int per spatial dimension of the weight (build the layer with tuples of the length "
                f"its kernel_size has)")
    shape = list(input_shape)
    if len(shape) == spatial_dims + 1:
        shape = [1] + shape
    if len(shape) != len(weight_shape):
        raise _C.ShapeError(
            f"Expected {len(weight_shape)}-dimensional input for {len(weight_shape)}-dimensional weight "
            f"{list(weight_shape)}, but got {len(shape)}-dimensional input of size {shape} instead\n  cause: "
            f"{op} convolves {len(shape) - 2} spatial dimension{'s' if len(shape) != 3 else ''}, its weight has "
            f"{spatial}\n  fix: build the layer with a kernel_size of {len(shape) - 2} int"
            f"{'s' if len(shape) != 3 else ''} (or use the layer of the weight's dimensions)")


def check_layout(op: str, spatial_dims: int, input, weight, **arguments) -> None:
    """Nothing when weight has the op's rank and each argument one value or spatial_dims of them;
    else PyTorch's error for the first thing its convolution refuses (check_input_rank, then
    check_arguments). Operands that are no tensors are left to the op's own checks."""
    if not hasattr(weight, "shape") or not hasattr(input, "shape"):
        return
    shape = tuple(weight.shape)
    if len(shape) == spatial_dims + 2 and all(not isinstance(v, (tuple, list)) or len(v) in (1, spatial_dims)
                                              for v in arguments.values()):
        return
    check_input_rank(tuple(input.shape), spatial_dims, op)
    check_arguments(op, spatial_dims, tuple(input.shape), shape, **arguments)
