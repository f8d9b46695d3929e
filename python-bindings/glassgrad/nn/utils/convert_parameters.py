"""parameters_to_vector and vector_to_parameters (torch.nn.utils's): every parameter flattened into
one vector, and back."""
from __future__ import annotations

from typing import Iterable

from ... import _C
from ..._runtime import no_grad
from ..._spatial import cat
from ..._tensor import Tensor


def _same_device(params) -> None:
    if len({p.device for p in params}) > 1:
        found = ", ".join(f"{list(p.shape)} on {p.device}" for p in params)
        raise _C.DeviceError(f"parameters_to_vector: Found two parameters on different devices ({found})\n"
                             f"  fix: move the model to one device first: model.to(device)")


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-d tensor holding every parameter flattened, in order (differentiable: a cat of views)."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    _same_device(params)
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Writes consecutive slices of vec into the parameters (each keeps its identity, so an
    optimizer built over them sees the new values); vec must hold at least their elements (a
    longer one's tail is not read, as PyTorch's)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected glassgrad.Tensor, but got: {type(vec).__name__}\n"
                        f"  fix: vector_to_parameters(parameters_to_vector(model.parameters()), model.parameters())")
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    _same_device(params)
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() < total:  # PyTorch's slices leave a longer vector's tail unread
        raise _C.ShapeError(f"vector_to_parameters: vec has shape {list(vec.shape)}, the parameters hold {total} "
                            f"elements\n  fix: a 1-d vector of {total} elements, e.g. from parameters_to_vector")
    pointer = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[pointer:pointer + n].reshape(p.shape))
            pointer += n
