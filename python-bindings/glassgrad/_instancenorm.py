"""Instance normalization as a function: PyTorch's F.instance_norm (argument order, return value,
running-statistics update), over (N, C, *spatial) input with at least one spatial axis.

    y[n, c] = (x[n, c] - mean(x[n, c])) / sqrt(var(x[n, c]) + eps) * weight[c] + bias[c]

Each (sample, channel) pair is normalized over its own spatial values (biased var). This is
batch normalization of x viewed as (1, N*C, *spatial), whose channels are the pairs, so it runs
on the BatchNorm2DTrain kernels (CPU and CUDA) with weight and bias repeated N times; PyTorch
computes it the same way. The running statistics, when given, are updated with the pairs'
statistics averaged over the batch (again PyTorch's rule, through BatchNormUpdateStats):

    running_mean = (1 - momentum) * running_mean + momentum * mean_n(mean[n, c])
    running_var  = (1 - momentum) * running_var + momentum * mean_n(var[n, c]) * L / (L - 1)

with L the spatial values per pair. With use_input_stats=False the running statistics normalize
(batch normalization in evaluation, on x itself).
"""
from __future__ import annotations

import math
from typing import Optional

from . import _C, _args
from ._batchnorm import _constant, batch_norm, update_running_stats
from ._tensor import Tensor, _op_multi


def _repeated(t: Tensor, n: int) -> Tensor:
    """[C] -> [N*C]: t repeated n times (t.repeat(n)); its gradient sums the n copies."""
    c = t.shape[0]
    return t.reshape(1, c).expand(n, c).reshape(n * c)


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True, momentum: float = 0.1,
                  eps: float = 1e-5) -> Tensor:
    """PyTorch's torch.nn.functional.instance_norm (see the module doc)."""
    where = "instance_norm"
    use_input_stats = _args.flag(use_input_stats, "use_input_stats", where)
    momentum = _args.real(momentum, "momentum", where, fix="momentum=0.1")
    eps = _args.real(eps, "eps", where, minimum=0.0, fix="eps=1e-5")
    if not isinstance(input, Tensor):
        _args.fail(where, "input", "a glassgrad.Tensor", input, type_error=True)
    if input.ndim < 3:
        raise _C.ShapeError(f"instance_norm: expected (N, C, *spatial) input with at least one spatial axis, got "
                            f"{list(input.shape)}\n  fix: x.unsqueeze(0) for one unbatched sample (C, L)")
    if (running_mean is None) != (running_var is None):
        raise _C.InvalidArgumentError("instance_norm: give both running_mean and running_var, or neither\n"
                                      "  fix: instance_norm(x, running_mean, running_var, ...)")
    if not use_input_stats:
        if running_mean is None:
            raise _C.InvalidArgumentError(
                "instance_norm: Expected running_mean and running_var to be defined when use_input_stats is false\n"
                "  fix: pass the running statistics, or use_input_stats=True")
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = input.shape[:2]
    spatial = math.prod(input.shape[2:])
    if spatial == 1:
        raise _C.ShapeError(f"instance_norm: Expected more than 1 spatial element when training, got input size "
                            f"{list(input.shape)}\n  cause: each (sample, channel) pair is normalized over its "
                            f"spatial values, and one value has no spread\n  fix: normalize over the batch "
                            f"instead (BatchNorm), or give the layer larger images")
    pairs = input.reshape(1, n * c, *input.shape[2:])
    w = _repeated(weight, n) if weight is not None else _constant(1.0, n * c, input)
    b = _repeated(bias, n) if bias is not None else _constant(0.0, n * c, input)
    y, mean, var = _op_multi("BatchNorm2DTrain", [pairs, w, b], {"eps": eps})
    if running_mean is not None:
        update_running_stats(running_mean, running_var, mean.reshape(n, c).mean(dim=0),
                             var.reshape(n, c).mean(dim=0), spatial, momentum)
    return y.reshape(*input.shape)
