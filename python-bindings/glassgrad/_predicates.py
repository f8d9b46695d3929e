"""torch's module-level predicates and small queries on tensors: is_tensor, is_floating_point,
is_nonzero, numel, typename, ..."""
from __future__ import annotations

from ._tensor import Tensor


def is_tensor(obj) -> bool:
    """Whether obj is a glassgrad Tensor (torch.is_tensor)."""
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    """torch.is_storage: whether obj is what Tensor.storage() or untyped_storage() returns."""
    from .storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


def is_floating_point(input: Tensor) -> bool:
    """Whether input's dtype is a floating type (torch.is_floating_point)."""
    return _tensor_arg(input, "is_floating_point").dtype.is_floating_point


def is_complex(input: Tensor) -> bool:
    """torch.is_complex: glassgrad has no complex dtypes, so never."""
    _tensor_arg(input, "is_complex")
    return False


def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero (torch.is_nonzero): raises for other sizes."""
    t = _tensor_arg(input, "is_nonzero")
    if t.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if t.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(t.item() != 0)


def numel(input: Tensor) -> int:
    """The number of elements (torch.numel)."""
    return _tensor_arg(input, "numel").numel()


def typename(obj) -> str:
    """torch.typename: 'glassgrad.FloatTensor' for a float32 CPU tensor (Tensor.type()), else the
    object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    t = type(obj)
    return t.__qualname__ if t.__module__ in ("builtins", "__builtin__") else f"{t.__module__}.{t.__qualname__}"


def _tensor_arg(input, fn: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input


__all__ = ["is_tensor", "is_storage", "is_floating_point", "is_complex", "is_nonzero", "numel", "typename"]


def is_inference(input: Tensor) -> bool:
    """torch.is_inference(input): whether input was made inside inference_mode() (Tensor.is_inference)."""
    return _tensor_arg(input, "is_inference").is_inference()


def get_device(input: Tensor) -> int:
    """torch.get_device(input): the GPU's index, -1 for a CPU tensor (Tensor.get_device)."""
    return _tensor_arg(input, "get_device").get_device()


def is_distributed(input: Tensor) -> bool:
    """torch.is_distributed (and Tensor.is_distributed): False, as PyTorch's for every tensor."""
    _tensor_arg(input, "is_distributed")
    return False


def cudnn_is_acceptable(input: Tensor) -> bool:
    """torch.cudnn_is_acceptable: False, glassgrad has no cuDNN (its own kernels run convolutions)."""
    _tensor_arg(input, "cudnn_is_acceptable")
    return False


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Tensor.is_set_to(tensor): whether both are the same elements of the same buffer (same
    storage, offset, shape and strides)."""
    mine, theirs = self._raw(), tensor._raw()  # (computes pending work)
    same_buffer = int(mine.storage_ptr) == int(theirs.storage_ptr)
    def place(t: Tensor) -> tuple:
        return (t.storage_offset(), tuple(t.shape), tuple(t.stride()))
    return bool(same_buffer and place(self) == place(tensor))


def dim_order(self: Tensor, *, ambiguity_check=False):
    """Tensor.dim_order(): the dims from outermost to innermost in memory (by stride, larger
    first; ties keep their order), (0, 1, ..., n-1) for a contiguous tensor."""
    strides = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))
